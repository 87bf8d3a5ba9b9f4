"""Where a run plays: the backend, and for a live one the server (the embedded one, started for the run, or an
external one given as HOST:PORT) with the options that go with it, checked before anything is written."""

from __future__ import annotations

from dataclasses import dataclass

from blockpact.errors import UserError


BACKENDS = ("sim", "minecraft")


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


@dataclass(frozen=True)
class LiveOptions:
    """Where live episodes play: `server` "HOST:PORT" of an external server, None for the embedded one."""

    server: str | None = None
    version: str | None = None
    auth: str = "offline"
    viewer: bool = False
    lockstep: bool = False  # shared actions in the simulator's order (see lockstep_choice)

    def check(self, backend: str) -> None:
        """Before anything is written: options that need a live server, and the server's address."""
        if backend != "minecraft" and (self.server or self.viewer or self.auth != "offline" or self.lockstep):
            raise UserError("--server, --auth, --viewer and --lockstep apply to --backend minecraft only")
        if self.lockstep and self.server is not None:
            raise UserError("lockstep (--lockstep, or live.toml [episode] lockstep) needs the embedded server (leave out "
                            "--server, or add --no-lockstep): on another server the bots cannot wait for each other "
                            "between walking to a block and digging it")
        if self.server is not None:
            server_address(self.server)
        if self.server is None and self.auth != "offline":
            raise UserError("--auth microsoft needs --server: the embedded server runs in offline mode")


def lockstep_choice(flag: bool | None, backend: str) -> bool:
    """Whether a run's live episodes play in lockstep: --lockstep / --no-lockstep, else live.toml's [episode] lockstep
    for a live run. Decided once, before the run, so that the run records what its episodes do (and resume keeps it)."""
    if flag is not None:
        return flag
    if backend != "minecraft":
        return False
    from blockpact.bridge.live.settings import live_settings

    return live_settings().episode.lockstep


def server_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--server must be HOST:PORT, e.g. 127.0.0.1:25565 (got {text!r})")
    return host, int(port)
