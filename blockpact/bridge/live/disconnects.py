"""What a live episode does when a bot loses its connection mid-episode, as live.toml's [episode] on_disconnect
says: `reconnect` (log the bot in again and restart its program, at most max_reconnects times), `retry` (start
the episode over, at most max_retries times: the failed attempt stays in the log, a new episode_start follows
it) or `fail`. Nothing already logged is dropped."""

from __future__ import annotations

from blockpact.bridge.live.lockstep import EpisodeLockstep
from blockpact.bridge.live.mineflayer_body import StartBatch
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.world_master import WorldMaster
from blockpact.bridge.protocols import ProgramResult
from blockpact.errors import UserError
from blockpact.worlds.state import WorldState

DISCONNECT_POLICIES = ("reconnect", "retry", "fail")


class EpisodeFailed(UserError):
    """A live episode could not be played to its end (a bot lost its connection and the policy gave up)."""


class Retry(Exception):
    """Start the episode over (on_disconnect = "retry"): LiveWorld.run_programs plays it again."""


class DisconnectPart:
    """The connection-loss part of a live world (`world.LiveWorld`), which holds the state it reads."""

    def set_disconnect_policy(self, on_disconnect: str | None) -> None:
        """`on_disconnect`: one of DISCONNECT_POLICIES (None: live.toml's)."""
        episode = live_settings().episode
        self.on_disconnect = on_disconnect or episode.on_disconnect
        if self.on_disconnect not in DISCONNECT_POLICIES:
            raise UserError(f"on_disconnect must be one of {', '.join(DISCONNECT_POLICIES)}, got {self.on_disconnect!r}")
        self.max_reconnects, self.max_retries = episode.max_reconnects, episode.max_retries
        self.reconnects = self.retries = 0

    async def _run_until_done(self, player: str, source: str, skills: tuple[str, ...], end: float,
                              budget: float | None, batch: StartBatch | None) -> ProgramResult:
        while True:
            remaining = max(1.0, end - self.now + 1.0)  # the episode end stops it first
            seconds = remaining if budget is None else min(float(budget), remaining)
            result = await self.body(player).run(source, skills=skills, budget=seconds, batch=batch,
                                                 trusted=player in self._trusted)
            batch = None  # a program restarted after a reconnect starts alone
            lost = self._connection_lost(player)
            if lost is None:
                return result
            self.master.record()
            self.state.emit(player, "connection", state="lost", reason=lost)
            if self.on_disconnect == "fail" or (self.on_disconnect == "reconnect" and self.reconnects >= self.max_reconnects):
                raise EpisodeFailed(f"{player} lost its connection mid-episode ({lost}); on_disconnect = "
                                    f"{self.on_disconnect!r} after {self.reconnects} reconnect(s)")
            if self.on_disconnect == "retry":
                if self.retries >= self.max_retries:
                    raise EpisodeFailed(f"{player} lost its connection mid-episode ({lost}) and the episode was "
                                        f"already retried {self.retries} time(s)")
                raise Retry(f"{player} lost its connection ({lost})")
            if self.now >= end:
                return result
            await self._reconnect(player)
            self.state.emit(player, "program_restart", reason=lost)

    def _connection_lost(self, player: str) -> str | None:
        assert self.bots is not None
        return self.bots.connection_lost(player)

    async def _reconnect(self, player: str) -> None:
        """Log the bot in again; the server gives it back its items and place."""
        assert self.bots is not None
        self.reconnects += 1
        await self.bots.leave(player)
        await self.bots.connect(player)
        self.state.emit(player, "connection", state="reconnected")

    async def _start_over(self, reason: str) -> None:
        """on_disconnect = "retry": the failed attempt stays in the log; a new episode_start follows it."""
        self.retries += 1
        self.master.record()
        state = self.state
        tasks = [e for e in state.log.events if e.kind == "task"]
        state.emit(None, "episode_failed", reason=reason, attempt=self.retries)
        if self._ticker is not None:
            self._ticker.cancel()
        if self.bots is not None:
            await self.bots.close()
            self.bots = None
        fresh = WorldState(self.spec, self.seed)
        fresh.log = state.log  # the engine follows this log
        self.state, self.master = fresh, WorldMaster(self.access, self.spec, fresh)
        fresh.emit(None, "episode_start", world=self.spec.name, seed=self.seed, backend="minecraft", attempt=self.retries,
                   **(EpisodeLockstep.MARK if self.lockstep else {}), **fresh.snapshot())
        if self.lockstep is not None:
            await self.lockstep.restart()
        for task in tasks:
            fresh.emit(task.agent, "task", **task.data)
