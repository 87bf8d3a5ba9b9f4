"""Asynchronous agents on a live server: `SimWorld.run_agents` for a `LiveWorld`.

`LiveAgents(world)` offers what an organization episode uses of a `SimWorld` (the `World` protocol's
`now`, `state`, `events`, `listen`, and `run_agents`, `wake`, `stop`, `stopped`, `close`): each controller runs as its own task with a `LiveSession` on
its mineflayer bot. Time is the episode's wall clock: sleeping (an agent thinking) and waiting for a
message take wall seconds, and a program has live.toml's wall budget (`bots.program_budget`), so a
bot stuck on an unreachable block fails its action and the organization hands the rest on. `stop` cancels
running programs with the reason and every later session call raises `EpisodeOver`, as on the
simulator.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from blockpact.bridge.inbox import Inbox, next_message
from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.world import LiveWorld
from blockpact.worlds.sim.clock import EpisodeOver
from blockpact.worlds.events import Event, Listener
from blockpact.worlds.sim.simulator import ProgramOutcome
from blockpact.worlds.state import WorldState


class LiveSession:
    """One agent's handle on its bot inside `LiveAgents.run_agents` (the `AgentSession` interface)."""

    def __init__(self, agents: LiveAgents, player: str) -> None:
        self.agents = agents
        self.player = player
        self.woken = asyncio.Event()

    @property
    def now(self) -> float:
        return self.agents.now

    def observe(self) -> dict[str, Any]:
        return self.agents.world.body(self.player).observe()

    def _check(self) -> None:
        if self.agents.stopped is not None:
            raise EpisodeOver()

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult:
        self._check()
        left = max(1.0, self.agents.world.spec.episode_seconds - self.now)
        limit = live_settings().bots.program_budget if budget is None else float(budget)
        return await self.agents.world.body(self.player).run(source, skills=skills, budget=min(left, limit))

    async def _until_woken(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.woken.wait(), timeout=max(0.0, seconds))
        self.woken.clear()

    async def sleep(self, seconds: float) -> None:
        """Wall seconds; cut short only by the episode's end."""
        self._check()
        end = asyncio.get_running_loop().time() + seconds
        while self.agents.stopped is None and (left := end - asyncio.get_running_loop().time()) > 0:
            await self._until_woken(left)
        self._check()

    async def wait_until(self, ready: Callable[[], object], timeout: float) -> object:
        self._check()
        end = asyncio.get_running_loop().time() + timeout
        while not (value := ready()) and self.agents.stopped is None and (left := end - asyncio.get_running_loop().time()) > 0:
            await self._until_woken(left)
        self._check()
        return value

    async def wait_message(self, inbox: Any, timeout: float, *, simulated: bool = True) -> Any | None:
        """The next message of `inbox`, or None after `timeout` wall seconds (live time is wall time)."""
        await self.wait_until(lambda: inbox.pending() > 0, timeout)
        return await inbox.get() if inbox.pending() > 0 else None


class LiveAgents:
    def __init__(self, world: LiveWorld) -> None:
        self.world = world
        self.stopped: str | None = None
        self._sessions: dict[str, LiveSession] = {}
        self._running: set[str] = set()

    @property
    def now(self) -> float:
        return self.world.now

    @property
    def state(self) -> WorldState:
        return self.world.state

    @property
    def events(self) -> list[Event]:
        return self.world.events

    def emit(self, agent: str | None, kind: str, **data: Any) -> Event:
        return self.world.emit(agent, kind, **data)

    def listen(self, listener: Listener) -> None:
        self.world.listen(listener)

    @property
    def spec(self) -> Any:
        return self.world.spec

    async def run_agents(self, controllers: Mapping[str, Callable[[LiveSession], Awaitable[Any]]]) -> dict[str, ProgramOutcome]:
        """Every controller as its own task on its bot; returns when all returned, `stop` was called or
        the episode's wall time is up."""
        await self.world._ensure_ready()
        self.stopped = None
        self._sessions = {p: LiveSession(self, p) for p in controllers}
        started = {p: self.now for p in controllers}

        async def play(player: str) -> Any:
            self._running.add(player)
            try:
                return await controllers[player](self._sessions[player])
            finally:
                self._running.discard(player)

        tasks = {p: asyncio.ensure_future(play(p)) for p in controllers}
        left = max(0.0, self.world.spec.episode_seconds - self.now)
        _, pending = await asyncio.wait(tasks.values(), timeout=left)
        if pending:
            self.stop(f"the episode ended at {self.world.spec.episode_seconds:g} s")
        outcomes = {}
        for player, task in tasks.items():
            try:
                value, error = await task, None
            except EpisodeOver:
                value, error = None, f"stopped: {self.stopped}"
            outcomes[player] = ProgramOutcome(player, error is None, error, value, started[player], self.now)
        return outcomes

    def wake(self, agents: Sequence[str]) -> None:
        for agent in agents:
            if agent in self._sessions:
                self._sessions[agent].woken.set()

    def stop(self, reason: str) -> None:
        """End `run_agents`: running programs are cancelled with `reason`, waiting agents wake."""
        if self.stopped is not None:
            return
        self.stopped = reason
        for player in self._running:
            with contextlib.suppress(Exception):
                self.world.body(player).cancel(reason)
        self.wake(list(self._sessions))

    def finish(self) -> Any:
        return self.world.finish()

    async def close(self) -> None:
        await self.world.close()


class BotSession:
    """One agent's own bot on a server it shares with agents in other processes (`blockpact agent
    --server`): wall-clock time from the session's start, live.toml's program budget; `stop` ends
    it (later calls raise `EpisodeOver`)."""

    def __init__(self, body: Any, player: str) -> None:
        self.body = body
        self.player = player
        self.stopped: str | None = None
        self._start = asyncio.get_running_loop().time()
        self._woken = asyncio.Event()

    @property
    def now(self) -> float:
        return asyncio.get_running_loop().time() - self._start

    def observe(self) -> dict[str, Any]:
        return self.body.observe()

    def _check(self) -> None:
        if self.stopped is not None:
            raise EpisodeOver()

    def stop(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = reason
            with contextlib.suppress(Exception):
                self.body.cancel(reason)
            self._woken.set()

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult:
        self._check()
        limit = live_settings().bots.program_budget if budget is None else float(budget)
        return await self.body.run(source, skills=skills, budget=limit)

    async def sleep(self, seconds: float) -> None:
        self._check()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), timeout=max(0.0, seconds))
        self._check()

    async def wait_message(self, inbox: Inbox, timeout: float, *, simulated: bool = True) -> Any | None:
        """The next message of `inbox`, or None after `timeout` seconds (wall seconds, whatever `simulated` says:
        live, the game's clock is the wall clock)."""
        return await next_message(inbox, timeout, self._check)
