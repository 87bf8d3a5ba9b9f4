"""A pool message: who says what to whom. Plain JSON on the wire and in events.jsonl.

Recipients are agent names, teams written `team:NAME`, or `all`. Names double as MQTT topic
levels, so they are restricted to letters, digits, `_`, `-` and `.`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from blockpact.errors import UserError

ALL = "all"
TEAM_PREFIX = "team:"
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
Body = str | dict[str, Any]


class MessageError(UserError, ValueError):
    """A message (or its JSON) is malformed; the text says which field and why."""


class MessageKind(StrEnum):
    CHAT = "chat"
    COMMAND = "command"
    REPORT = "report"
    SIGNAL = "signal"
    SYSTEM = "system"


def check_name(name: object, what: str) -> str:
    """An agent or team name, or a MessageError saying what is wrong with it."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise MessageError(
            f"{what} {name!r} is not a valid name: use 1-64 letters, digits, '_', '-' or '.', not starting with '-' or '.'"
        )
    if name == ALL:
        raise MessageError(f"{what} may not be named {ALL!r}: that word addresses everyone")
    return name


def team(name: str) -> str:
    """The recipient string that addresses every member of a team."""
    return TEAM_PREFIX + check_name(name, "team")


def normalize_recipients(to: str | Iterable[str]) -> tuple[str, ...]:
    """Recipients in a canonical form: validated, duplicates removed, order kept."""
    items = [to] if isinstance(to, str) else list(to)
    if not items:
        raise MessageError("recipients are empty: name an agent, a team ('team:NAME') or 'all'")
    result: list[str] = []
    for item in items:
        if item == ALL:
            if len(items) > 1:
                raise MessageError(f"recipient {ALL!r} already addresses everyone; it cannot be combined with {items!r}")
        elif isinstance(item, str) and item.startswith(TEAM_PREFIX):
            check_name(item[len(TEAM_PREFIX):], "team")
        else:
            check_name(item, "recipient")
        if item not in result:
            result.append(item)
    return tuple(result)


def check_body(body: object) -> Body:
    if isinstance(body, str):
        return body
    if isinstance(body, Mapping):
        try:
            json.dumps(body, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise MessageError(f"body is not JSON-serialisable: {exc}") from None
        return dict(body)
    raise MessageError(f"body must be a string or a JSON object, not {type(body).__name__}")


@dataclass(frozen=True)
class Message:
    """One message. `seq` numbers a sender's messages 1, 2, 3, ... so receivers can keep their order."""

    id: str
    time: float
    sender: str
    recipients: tuple[str, ...]
    kind: MessageKind
    body: Body
    seq: int

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise MessageError(f"id must be a non-empty string, not {self.id!r}")
        if isinstance(self.time, bool) or not isinstance(self.time, (int, float)) or self.time != self.time:
            raise MessageError(f"time must be a number of seconds, not {self.time!r}")
        check_name(self.sender, "sender")
        object.__setattr__(self, "recipients", normalize_recipients(self.recipients))
        try:
            object.__setattr__(self, "kind", MessageKind(self.kind))
        except ValueError:
            kinds = ", ".join(k.value for k in MessageKind)
            raise MessageError(f"kind {self.kind!r} is not one of: {kinds}") from None
        object.__setattr__(self, "body", check_body(self.body))
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or self.seq < 1:
            raise MessageError(f"seq must be a positive integer, not {self.seq!r}")

    def is_for(self, agent: str, teams: Iterable[str] = ()) -> bool:
        """Whether `agent` (a member of `teams`) is among the recipients."""
        if ALL in self.recipients or agent in self.recipients:
            return True
        return any(TEAM_PREFIX + t in self.recipients for t in teams)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": self.time,
            "sender": self.sender,
            "recipients": list(self.recipients),
            "kind": self.kind.value,
            "body": self.body,
            "seq": self.seq,
        }

    @classmethod
    def from_json(cls, data: object) -> Message:
        """A message from its JSON object, or a MessageError naming the missing or bad field."""
        if not isinstance(data, Mapping):
            raise MessageError(f"a message must be a JSON object, not {type(data).__name__}")
        fields = ("id", "time", "sender", "recipients", "kind", "body", "seq")
        missing = [f for f in fields if f not in data]
        if missing:
            raise MessageError(f"message lacks {', '.join(missing)}")
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise MessageError(f"message has unknown fields: {', '.join(unknown)}")
        recipients = data["recipients"]
        if not isinstance(recipients, list):
            raise MessageError(f"recipients must be a list, not {type(recipients).__name__}")
        return cls(**{f: data[f] for f in fields})

    def to_bytes(self) -> bytes:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, payload: bytes) -> Message:
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MessageError(f"message payload is not JSON: {exc}") from None
        return cls.from_json(data)
