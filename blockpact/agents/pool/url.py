"""Broker URLs: `mqtt://[user[:password]@]host[:port][/pool]`. The password is never printed."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from blockpact.agents.pool.message import check_name
from blockpact.errors import UserError

DEFAULT_MQTT_PORT = 1883


@dataclass(frozen=True)
class BrokerURL:
    host: str
    port: int
    pool: str | None
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str) -> BrokerURL:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise UserError(f"broker URL {redact(url)!r} is malformed: {exc}") from None
        if parts.scheme != "mqtt":
            raise UserError(f"broker URL {redact(url)!r} must start with mqtt:// (TLS and websockets are not supported)")
        if not parts.hostname:
            raise UserError(f"broker URL {redact(url)!r} names no host")
        pool = parts.path.strip("/") or None
        if pool is not None:
            try:
                check_name(pool, "pool")
            except UserError as exc:
                raise UserError(f"broker URL {redact(url)!r}: {exc}") from None
        return cls(
            host=parts.hostname,
            port=port or DEFAULT_MQTT_PORT,
            pool=pool,
            username=unquote(parts.username) if parts.username is not None else None,
            password=unquote(parts.password) if parts.password is not None else None,
        )

    def __str__(self) -> str:
        """The URL for logs and screens: the password, if any, shown as ***."""
        user = ""
        if self.username is not None:
            user = self.username + (":***" if self.password is not None else "") + "@"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"mqtt://{user}{host}:{self.port}" + (f"/{self.pool}" if self.pool else "")


def redact(url: str) -> str:
    """`url` with any password replaced by ***, even when the rest does not parse."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    userinfo, at, hostpart = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{hostpart}"
