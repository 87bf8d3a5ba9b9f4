"""Setting a live episode up on its server, before its first programs start: the embedded server (a new one if an
earlier episode's died, which the log says), the people in human slots, the bots' world and the world built by the
world master, every bot at its spawn with its items, the viewer pages, and the world master's ticks."""

from __future__ import annotations

import asyncio

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import MineflayerWorld


class SetupPart:
    """The setting-up part of a live world (`world.LiveWorld`), which holds the state it reads."""

    async def _ensure_ready(self) -> None:
        """Set the episode up on the server, once (again after a retry's start over)."""
        if self.bots is not None:
            return
        if self.server is not None and not self.server.running:
            await self._start_server(self.server)
        if self.humans is not None:  # nobody else joins before the people do (bounded: HumanAbsent)
            for person in self.humans.humans:
                await self.humans.wait_for(person)
        self.bots = MineflayerWorld(self.access.address)
        self.master.bot_journal = self.bots.drain_journal
        await self.access.prepare(self.bots)
        compiled = await self.master.build()
        if compiled.unsupported:  # before anyone plays, in the log and where the user looks
            self.state.emit(None, "live_unsupported", parts=list(compiled.unsupported))
            self.announce(f"this server does not reproduce part of {self.spec.name}: {'; '.join(compiled.unsupported)}")
        await self.bots.join(self.spec, self.access.target, compiled, players=self.bot_players)
        if self.humans is not None:
            await self.humans.seat(self.spec, compiled)
        if self.viewer:
            self.viewer_urls = {p: await self.bots.start_viewer(p, i) for i, p in enumerate(self.bot_players)}
            for player, url in self.viewer_urls.items():
                self.announce(f"viewer of {player}: {url}")
        self.master.start()
        self._ticker = asyncio.ensure_future(self._tick_forever())

    @property
    def bot_players(self) -> list[str]:
        """The players a bot plays (all but the people in human slots)."""
        return [p for p in sorted(self.spec.players) if self.humans is None or p not in self.humans]


    async def _start_server(self, server: EmbeddedServer) -> None:
        """Start the embedded server; one that an earlier episode saw die (or fail to start) is replaced, and the
        log and the user are told."""
        dead_pid, exit_code, failed_start = server.pid, server.exited, server.start_failure
        await asyncio.to_thread(server.start)
        self.announce(f"embedded Minecraft {server.version} server at {server.host}:{server.port} (pid {server.pid})")
        if dead_pid is not None:  # an earlier episode's server died (or never started): this one plays on a new one
            self.state.emit(None, "server_restart", old_pid=dead_pid, exit_code=exit_code, pid=server.pid,
                            port=server.port, failed_start=failed_start)
            ended = f"did not start ({failed_start})" if failed_start else f"had exited with code {exit_code}"
            self.announce(f"the embedded server (pid {dead_pid}) {ended}; started another for seed {self.seed} "
                          f"(pid {server.pid})")
