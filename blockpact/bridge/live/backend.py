"""The live backend of a run: one `LiveWorld` per episode, one embedded server for all of them.

Lines for the user (`announce`) are said once per run: a run of ten seeds of a world the server cannot fully
reproduce said so ten times; every episode's log still has its own `live_unsupported` event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.human_seats import HumanSeats
from blockpact.bridge.live.mineflayer_body import ServerAddress
from blockpact.bridge.live.world import LiveWorld
from blockpact.errors import UserError
from blockpact.worlds.spec.schema import WorldSpec


class SaidOnce:
    """An announcer that passes each distinct line on once (a server started again has a new pid: a new line)."""

    def __init__(self, announce: Callable[[str], None]) -> None:
        self._announce = announce
        self._said: set[str] = set()

    def __call__(self, line: str) -> None:
        if line not in self._said:
            self._said.add(line)
            self._announce(line)


class _EpisodeLines:
    """The announcer of one episode's world: a line about the episode ("seed 3: the bots' Node runtime stalled
    ...", said by LiveWorld) names its condition too, as metrics.json does ("negotiate seed 3"): a run plays
    each seed once per condition, and "seed 3" alone did not say which of them ran slowed."""

    def __init__(self, announce: Callable[[str], None], condition: str, seed: int) -> None:
        self._announce = announce
        self._prefix = f"seed {seed}: "
        self._condition = condition

    def __call__(self, line: str) -> None:
        self._announce(f"{self._condition} {line}" if line.startswith(self._prefix) else line)


class LiveWorlds:
    """The live backend of a run: a `LiveWorld` per episode, called like the `SimWorld` class: `worlds(spec, seed)`.
    On the embedded server, one server serves all the run's episodes: started by the first episode, stopped by
    `aclose` or `stop` (also after an error or Ctrl-C). With `address`, episodes play on that external server."""

    def __init__(self, server: EmbeddedServer | None = None, *, address: ServerAddress | None = None,
                 version: str | None = None, on_disconnect: str | None = None, viewer: bool = False,
                 announce: Callable[[str], None] | None = None, lockstep: bool | None = None) -> None:
        if server is not None and address is not None:
            raise UserError("a run plays either on the embedded server or on an external one, not both")
        self.humans: HumanSeats | None = None
        self.address = address
        self._own_server = server is None and address is None
        self.server = server if address is not None or server is not None else EmbeddedServer(version=version)
        self.on_disconnect = on_disconnect
        self.viewer = viewer
        self.lockstep = lockstep  # None: live.toml's
        self.announce = SaidOnce(announce) if announce is not None else None
        self._announce_each = announce  # a person awaited again for another seed is told again

    def __call__(self, spec: WorldSpec, seed: int = 0, condition: str | None = None) -> LiveWorld:
        announce = self.announce if self.announce is None or condition is None else _EpisodeLines(self.announce, condition, seed)
        return LiveWorld(spec, seed, server=self.server, address=self.address, on_disconnect=self.on_disconnect,
                         viewer=self.viewer, announce=announce, humans=self.humans, lockstep=self.lockstep)

    def for_condition(self, condition: str) -> Callable[[WorldSpec, int], LiveWorld]:
        """The worlds of one condition's episodes, whose lines about their episode name the condition (the
        episode engine asks a world factory for this when it has it)."""
        return lambda spec, seed: self(spec, seed, condition)

    def seat_humans(self, humans: Sequence[str]) -> HumanSeats:
        """The run's human slots: people who join this backend's embedded server with their own client."""
        if self.address is not None or self.server is None:
            raise UserError("a `human` slot needs the embedded server (leave out --server): on an external server "
                            "blockpact cannot read a person's inventory or end their part of an episode")
        self.humans = HumanSeats(humans, self.server, self.ensure_server, self._announce_each)
        return self.humans

    def ensure_server(self) -> None:
        """Start the embedded server now (before the first episode), e.g. for a person to join and negotiate."""
        if self.server is not None and not self.server.running:
            self.server.start()
            if self.announce is not None:
                self.announce(f"embedded Minecraft {self.server.version} server at {self.server.host}:{self.server.port} "
                              f"(pid {self.server.pid})")

    def stop(self) -> None:
        """Stop the embedded server if this backend started it (idempotent, synchronous: safe after Ctrl-C)."""
        if self._own_server and self.server is not None:
            self.server.stop()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.stop)
