"""The headless simulator: a world state, its clock and dynamics, and agents' programs running on it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from blockpact.settings import settings
from blockpact.worlds.sim.clock import Clock, EpisodeOver
from blockpact.worlds.sim.facing import SPAWN_FACING
from blockpact.worlds.events import Event
from blockpact.worlds.membership import Membership, MembershipError
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError, ProgramFn
from blockpact.worlds.spec.schema import Vec, WorldSpec
from blockpact.worlds.state import WorldState
from blockpact.worlds.rules.ticks import ticks_between

if TYPE_CHECKING:
    from blockpact.worlds.rules.dynamics import Dynamics


@dataclass
class ProgramOutcome:
    agent: str
    success: bool
    error: str | None
    value: Any
    started: float
    ended: float


class Simulation:
    def __init__(self, spec: WorldSpec, seed: int = 0) -> None:
        self.spec = spec
        self.state = WorldState(spec, seed)
        self.timing: dict[str, float] = dataclasses.asdict(settings().simulator)  # type: ignore[assignment]
        self.clock = Clock(list(spec.players))
        self.dynamics = self._dynamics() if spec.rules else None
        self.last_changed_by: dict[Vec, str] = {}
        self.schedule: list[dict[str, Any]] | None = None  # a live lockstep episode's order of shared actions, when asked for
        self.facing: dict[str, tuple[float, float]] = {p: SPAWN_FACING for p in spec.players}  # (yaw, pitch)
        self.known_chests: dict[str, dict[Vec, dict[str, int]]] = {p: {} for p in spec.players}
        self._signals: dict[str, deque[str]] = {p: deque() for p in spec.players}
        self.membership = Membership(spec.groups, spec.players)  # the groups' members now (joinGroup, leaveGroup)
        self.state.log.listeners.append(self._track_block_changes)
        self.state.emit(None, "episode_start", world=spec.name, seed=seed, **self.state.snapshot())

    def _dynamics(self) -> Dynamics:
        """The world's rules, run once per tick. Imported only for a world that has rules: the interpreter
        loads numba (~0.4 s of CPU), and a world without rules has nothing to apply at any tick."""
        from blockpact.worlds.rules.dynamics import Dynamics

        return Dynamics(self.state, self.timing["tick_seconds"])

    @property
    def now(self) -> float:
        return self.clock.now

    def api(self, agent: str) -> AgentAPI:
        if agent not in self.spec.players:
            raise KeyError(f"no player {agent!r} in world {self.spec.name} (players: {', '.join(sorted(self.spec.players))})")
        return AgentAPI(self, agent)

    # -- time ------------------------------------------------------------------------------------
    def advance_to(self, t: float) -> None:
        """Move simulated time forward to `t`, applying the dynamics once per tick passed."""
        if self.dynamics is not None:
            for tick in ticks_between(self.clock.now, t, self.timing["tick_seconds"]):
                self.clock.now = self.state.time = tick
                self.dynamics.tick(tick)
        self.clock.now = self.state.time = max(self.clock.now, t)

    async def run(self, programs: dict[str, ProgramFn], until: float | None = None) -> dict[str, ProgramOutcome]:
        """Run one program per agent concurrently until all finish or simulated time reaches `until`."""
        end = self.spec.episode_seconds if until is None else until
        outcomes: dict[str, ProgramOutcome] = {}
        stopped: set[str] = set()  # agents whose programs the end stopped: their ends are recorded last
        tasks = []
        self.clock.reopen()
        for agent in sorted(programs):
            self.clock.started(agent)
            task = asyncio.create_task(self._run_one(agent, programs[agent], outcomes, stopped))
            task.add_done_callback(lambda _t, a=agent: self.clock.finished(a))
            tasks.append(task)
        try:
            while True:
                await self.clock.quiescent()
                if all(t.done() for t in tasks):
                    break
                t = self.clock.next_time()
                if t is None or t > end:
                    self.advance_to(end)
                    self.clock.end()
                    break
                self.advance_to(t)
                self.clock.wake_next()
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            # Their own cleanup (a body freeing its runner) ends before the next run can start.
            await asyncio.gather(*tasks, return_exceptions=True)
            for agent in sorted(stopped):
                self._record_end(outcomes[agent])
        return outcomes

    async def _run_one(self, agent: str, program: ProgramFn, outcomes: dict[str, ProgramOutcome],
                       stopped: set[str]) -> None:
        start = self.clock.now
        self.state.emit(agent, "program_start")
        try:
            value = await program(self.api(agent))
            outcome = ProgramOutcome(agent, True, None, value, start, self.clock.now)
        except EpisodeOver:
            outcome = ProgramOutcome(agent, False, f"episode ended at {self.clock.now:g} s", None, start, self.clock.now)
        except PrimitiveError as exc:
            outcome = ProgramOutcome(agent, False, str(exc), None, start, self.clock.now)
        except Exception as exc:  # a program's own bug: reported to the agent, never crashes the run
            outcome = ProgramOutcome(agent, False, f"{type(exc).__name__}: {exc}", None, start, self.clock.now)
        outcomes[agent] = outcome
        if self.clock.ended:  # stopped at the same simulated instant as the others, in the order Node answered
            stopped.add(agent)
        else:
            self._record_end(outcome)

    def _record_end(self, outcome: ProgramOutcome) -> None:
        self.state.emit(outcome.agent, "program_end", success=outcome.success, error=outcome.error)

    def finish(self) -> Event:
        """Mark the end of the episode with the final state (rewards are read from it)."""
        self.advance_to(max(self.clock.now, self.spec.episode_seconds))
        return self.state.emit(None, "episode_end", **self.state.snapshot())

    # -- shared bookkeeping used by primitives -----------------------------------------------------
    def _track_block_changes(self, event: Event) -> None:
        if event.kind == "block" and event.agent:
            self.last_changed_by[tuple(event.data["pos"])] = event.agent  # type: ignore[index]

    def observe_chest(self, agent: str, pos: Vec) -> dict[str, int]:
        contents = dict(sorted(self.state.chests[pos].items()))
        self.known_chests[agent][pos] = contents
        self.state.emit(agent, "chest_seen", pos=list(pos), items=contents)
        return contents

    def send_signal(self, sender: str, task: str) -> None:
        others = [p for p in sorted(self.spec.players) if p != sender]
        for p in others:
            self._signals[p].append(sender)
        self.state.emit(sender, "signal", task=task, to=others)
        self.clock.notify(others)

    def take_signal(self, agent: str, sender: str = "") -> str | None:
        """The oldest unread signal to `agent` (from `sender` only, when given): signals are kept until read,
        so one sent before the wait began is delivered, and one from another sender stays for a later wait."""
        queue = self._signals[agent]
        for i, signaller in enumerate(queue):
            if not sender or signaller == sender:
                del queue[i]
                return signaller
        return None

    def change_group(self, agent: str, action: str, group: str, share: float = 1.0) -> list[str]:
        """`agent` joins, leaves or forms `group` now (worlds/membership.py), recorded as a group_ACTION event;
        returns the group's members after the change. A call that cannot be made raises PrimitiveError."""
        try:
            if action == "join":
                data = self.membership.join(agent, group)
            elif action == "leave":
                data = self.membership.leave(agent, group)
            else:
                data = self.membership.form(agent, group, share, self.now)
        except MembershipError as exc:
            raise PrimitiveError(f"{action}Group: {exc}") from None
        self.state.emit(agent, f"group_{action}", **data)
        return list(data["members"])
