"""The simulator's `World` (bridge/protocols.py): one episode of a world spec on the grid simulator, a `SimBody`
per player, and `run_agents` sessions for organizations (see bridge/sim/__init__)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any

from blockpact.bridge.inbox import Inbox, next_message
from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.sim.body import SimBody
from blockpact.bridge.sim.common import ProgramFailed
from blockpact.errors import UserError
from blockpact.settings import settings
from blockpact.worlds.sim.clock import EpisodeOver
from blockpact.worlds.events import Event, Listener
from blockpact.worlds.sim.simulator import ProgramOutcome, Simulation
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.state import WorldState


class SimWorld:
    """One simulated world with a body per player; all their programs share one Node runtime."""

    def __init__(self, spec: WorldSpec, seed: int = 0, *, compute_budget: float | None = None) -> None:
        self.spec = spec
        self.sim = Simulation(spec, seed=seed)
        programs = settings().programs
        self.sim_budget = programs.sim_budget_seconds
        self.compute_budget = float(programs.compute_budget_seconds if compute_budget is None else compute_budget)
        self.max_calls_per_instant = programs.max_calls_per_instant
        if not self.compute_budget > 0:
            raise UserError(f"the compute budget must be a positive number of seconds, got {compute_budget}")
        self._bodies: dict[str, SimBody] = {}
        self._busy = False
        self.stopped: str | None = None  # why run_agents was stopped early, if it was
        self._finished: Event | None = None

    # -- the World protocol's record of the episode ---------------------------------------------------
    @property
    def now(self) -> float:
        """Simulated seconds since the episode started."""
        return self.sim.now

    @property
    def events(self) -> list[Event]:
        return self.sim.state.log.events

    @property
    def state(self) -> WorldState:
        return self.sim.state

    def emit(self, agent: str | None, kind: str, **data: Any) -> Event:
        return self.sim.state.emit(agent, kind, **data)

    def listen(self, listener: Listener) -> None:
        self.sim.state.log.listeners.append(listener)

    def body(self, player: str) -> SimBody:
        if player not in self._bodies:
            self._bodies[player] = SimBody(self, player)  # sim.api raises a KeyError naming the players
        return self._bodies[player]

    async def observe(self, player: str) -> dict[str, Any]:
        """What `player` sees now (the action prompt's observation); LiveWorld.observe gives the same keys."""
        return self.body(player).observe()

    async def run_programs(
        self,
        programs: Mapping[str, str],
        *,
        skills: Mapping[str, Sequence[str]] | None = None,
        until: float | None = None,
        budget: float | None = None,
        trusted: Collection[str] = (),
    ) -> dict[str, ProgramResult]:
        """All players' programs start together at the current simulated time; returns when all finish
        or the episode end / `until` is reached (then unfinished ones are cancelled, timed_out=True).
        `budget`: simulated seconds each program may take (default from defaults.toml). `trusted`: players whose
        programs are trusted (scripted): they share sandbox worker threads of the runtime (sandbox/worker-pack.js);
        every other program runs in a sandbox process of its own, which is killed at its budget whatever it runs (see
        bridge/sim/body.py)."""
        if self._busy:
            raise RuntimeError("programs are already running in this world: run players together with one run_programs call")
        self._busy = True
        try:
            limit = self.sim_budget if budget is None else float(budget)
            bodies = {p: self.body(p) for p in programs}
            fns = {
                p: (lambda api, p=p: bodies[p]._program(api, programs[p], tuple((skills or {}).get(p, ())), limit,
                                                        p in trusted))
                for p in programs
            }
            outcomes = await self.sim.run(fns, until=until)
        finally:
            self._busy = False
        results = {}
        for player, outcome in sorted(outcomes.items()):
            result = bodies[player].last_result
            if result is None:  # the body itself failed (e.g. the Node runtime died): say so
                result = ProgramResult(player, False, outcome.error, None, None, observation=bodies[player].observe(),
                                       duration=outcome.ended - outcome.started, failure="bridge")
            results[player] = result
        return results

    async def run_agents(self, controllers: Mapping[str, Controller], *, until: float | None = None) -> dict[str, ProgramOutcome]:
        """Each player's controller runs as its own asynchronous agent on the one simulated clock:
        `await controller(session)` may run many programs, sleep and wait for messages. Returns when
        every controller has returned, `stop` was called, or the episode end / `until` is reached
        (then session calls raise EpisodeOver). Outcomes carry each controller's return value."""
        if self._busy:
            raise RuntimeError("agents or programs are already running in this world")
        self._busy = True
        self.stopped = None
        try:
            sessions = {p: AgentSession(self, p) for p in controllers}
            fns = {p: (lambda _api, p=p: controllers[p](sessions[p])) for p in controllers}
            return await self.sim.run(fns, until=until)
        finally:
            self._busy = False

    def wake(self, agents: Sequence[str]) -> None:
        """Let the given agents re-check what they wait for (e.g. a message just arrived for them)."""
        self.sim.clock.notify([a for a in agents if a in self.sim.clock.rank])

    def stop(self, reason: str) -> None:
        """End `run_agents` early: running programs are cancelled with `reason`, waiting agents wake,
        and every later session call raises EpisodeOver."""
        if self.stopped is not None:
            return
        self.stopped = reason
        for body in self._bodies.values():
            if body._run is not None:
                body._cancel(body._run, reason)
        self.wake(sorted(self.sim.clock.rank))

    def finish(self) -> Event:
        if self._finished is None:
            self._finished = self.sim.finish()
        return self._finished

    async def close(self) -> None:
        for body in self._bodies.values():
            await body.close()


class AgentSession:
    """One agent's handle on its body inside `SimWorld.run_agents`."""

    def __init__(self, world: SimWorld, player: str) -> None:
        self.world = world
        self.player = player
        self.body = world.body(player)

    @property
    def now(self) -> float:
        return self.world.now

    def observe(self) -> dict[str, Any]:
        return self.body.observe()

    def _check(self) -> None:
        if self.world.stopped is not None:
            raise EpisodeOver()

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None,
                  trusted: bool = False) -> ProgramResult:
        """Run one program on this agent's body; the other agents go on meanwhile (`trusted`: see run_programs)."""
        self._check()
        limit = self.world.sim_budget if budget is None else float(budget)
        try:
            return await self.body._program(self.body.api, source, tuple(skills), limit, trusted)
        except ProgramFailed:
            assert self.body.last_result is not None
            return self.body.last_result

    async def sleep(self, seconds: float) -> None:
        self._check()
        await self.world.sim.clock.sleep(self.player, seconds)
        self._check()

    async def wait_until(self, ready: Callable[[], object], timeout: float) -> object:
        """Block in simulated time until `ready()` holds (re-checked when `SimWorld.wake` names this
        agent) or `timeout` simulated seconds pass; returns the last value of `ready()`."""
        self._check()
        value = await self.world.sim.clock.wait_until(self.player, lambda: ready() or self.world.stopped is not None, timeout)
        self._check()
        return value

    async def wait_message(self, inbox: Inbox, timeout: float, *, simulated: bool = True) -> Any | None:
        """The next message of `inbox`, or None after `timeout` seconds. `simulated`: the seconds are
        simulated and time may advance meanwhile (whoever delivers messages must call `SimWorld.wake`);
        otherwise they are wall seconds and simulated time stands still (messages from other processes)."""
        if not simulated:
            return await next_message(inbox, timeout, self._check)
        self._check()
        await self.wait_until(lambda: inbox.pending() > 0, timeout)
        return await inbox.get() if inbox.pending() > 0 else None


Controller = Callable[[AgentSession], Awaitable[Any]]
