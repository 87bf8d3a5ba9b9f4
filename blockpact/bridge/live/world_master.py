"""The world master of a live episode: builds the spec's world on a live server, keeps a mirror of it in
the simulator's `WorldState`, records what happens there as the simulator's events, and applies the
spec's dynamics.

What happens on the server reaches Python through two journals drained every tick: the server's (on the
embedded server, the blockpact plugin's: blocks, inventories with their causes, chests, chat;
`js/server/plugin/journal.js`) and the bots' (signals, which never touch the server; on a server without
the plugin also what the bots witness, `js/mineflayer/witness.js`). How the server is reached is a
`WorldAccess` (`world_access.py`). Each entry updates the mirror and becomes an `Event` at
its episode time, so the engine, the judge's observables and the metrics read a live episode exactly
as a simulated one. Dynamics are the simulator's own `Dynamics` run on the mirror (after reading the
rules' regions back from the server); the block changes it decides are sent to the server as commands
and come back through the journal, so every block event has one source: the server.

A tick runs on the event loop's thread without awaiting: control requests take milliseconds, and a tick
that can never be interrupted halfway can never lose what it drained.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from blockpact.bridge.live.world_access import WorldAccess
from blockpact.bridge.live.world_compiler import CompiledWorld, compile_world
from blockpact.errors import UserError
from blockpact.settings import settings
from blockpact.worlds.rules.dynamics import Dynamics
from blockpact.worlds.events import Event, EventLog
from blockpact.worlds.spec.schema import Vec, WorldSpec
from blockpact.worlds.state import WorldState
from blockpact.bridge.live.rule_timing import LATE_S, RuleTiming, ServerClock
from blockpact.worlds.rules.ticks import ticks_between

DYNAMICS_CAUSES = ("regrow", "spawn", "grow")
RECONCILE_CAUSE = "reconcile"  # a change the journals did not report, found by reading the world back


class WorldBuildError(UserError):
    """The server's world does not match the spec after building it."""


@dataclass
class TickStats:
    """Wall seconds each tick took (drain, read back, dynamics), for bench/live.py."""

    durations: list[float] = field(default_factory=list)
    events: int = 0
    commands: int = 0


def _vec(value: Any) -> Vec:
    return (int(value[0]), int(value[1]), int(value[2]))


class WorldMaster:
    """Builds one episode's world and keeps `state` (the mirror) and its event log in step with the server."""

    def __init__(self, access: WorldAccess, spec: WorldSpec, state: WorldState) -> None:
        self.access = access
        self.spec = spec
        self.state = state
        self.dynamics = Dynamics(state)
        self.tick_seconds = settings().simulator.tick_seconds
        self.bot_journal: Callable[[], list[dict[str, Any]]] = list  # set once bots are in: drains their journal
        self.started_at: float | None = None  # wall time of episode time 0
        self.dynamics_time = 0.0  # episode second up to which the dynamics have been applied
        self.timing = RuleTiming(spec)  # when each rule fired against when it was due
        self.clock = ServerClock()  # the server's clock (by which programs keep time) against the episode's
        self.stats = TickStats()
        self._touched: set[Vec] | None = None  # cells the journals changed while reconcile_regions drained them
        # (player, line) a bot said as a primitive's feedback (bots' journal) and the server's chat has not shown yet
        self._feedback: Counter[tuple[str | None, str]] = Counter()
        self._regions = sorted({name for rule in spec.rules
                                for name in [rule.region, *(c.region for c in rule.when)]})

    # -- building -----------------------------------------------------------------------------------
    async def build(self) -> CompiledWorld:
        """Build blocks, chests, drops and game rules, then check the world by reading it back."""
        compiled = compile_world(self.spec, self.state.seed, plugin=self.access.plugin)
        problems = await self.access.build(self.spec, compiled)
        if problems:
            raise WorldBuildError(f"the server's world does not match {self.spec.name} after building it:\n  "
                                  + "\n  ".join(problems))
        return compiled

    def discard_journal(self) -> None:
        """Forget what happened so far (building, players joining): the episode starts from the spec's state."""
        self.access.drain()
        self.bot_journal()

    def start(self) -> None:
        """The episode's clock starts, and the server's (the world's age its players see) starts from 0 with it."""
        self.discard_journal()
        self.access.server_seconds(reset=True)
        self.started_at = time.time()

    @property
    def now(self) -> float:
        """Episode seconds (wall clock) since `start`."""
        return 0.0 if self.started_at is None else max(0.0, time.time() - self.started_at)

    # -- ticks ------------------------------------------------------------------------------------------
    def tick(self) -> None:
        """Record what happened, read the rules' regions back, and apply the dynamics due by now."""
        begun = time.perf_counter()
        self.clock.sample(self.now, self.access.server_seconds())
        self.record()
        self._update_positions()
        if self.spec.rules:
            self.reconcile_regions()
            due = ticks_between(self.dynamics_time, self.now, self.tick_seconds)
            if due:
                self._apply_dynamics(due)
                self.record()
        self.stats.durations.append(time.perf_counter() - begun)

    def record(self) -> None:
        """Drain both journals into the mirror and the event log, in time order."""
        entries, dropped = self.access.drain()
        entries += self.bot_journal()
        if dropped:
            self._emit(None, "journal_overflow", {"dropped": dropped})
        for entry in sorted(entries, key=lambda e: (e["time"], e["kind"] != "feedback")):  # a note before its chat
            self._apply(entry)

    def _at(self, wall_ms: float) -> float:
        assert self.started_at is not None
        return max(0.0, wall_ms / 1000.0 - self.started_at)

    def _emit(self, agent: str | None, kind: str, data: dict[str, Any], at: float | None = None) -> Event:
        """An event at `at` (a journal entry's time) or now. The log stays in time order: an entry that reaches
        Python after a later event was logged (a journal drained late on a busy machine) is logged at that
        later time, with `late_s` saying by how much it was late."""
        at = round(self.now if at is None else at, 6)
        log = self.state.log.events
        if log and at < log[-1].time:
            data = {**data, "late_s": round(log[-1].time - at, 3)}
            at = log[-1].time
        self.state.time = at
        return self.state.emit(agent, kind, **data)

    def _apply(self, entry: dict[str, Any]) -> None:
        kind, agent, data, at = entry["kind"], entry.get("agent"), dict(entry.get("data") or {}), self._at(entry["time"])
        state = self.state
        if kind == "block":
            pos = _vec(data["pos"])
            if not self.spec.in_bounds(pos):
                return  # outside the world's box: not part of the scenario
            self._set_cell(pos, data["new"])
            self._emit(agent, "block", {"pos": list(pos), "old": data["old"], "new": data["new"], "cause": data["cause"]}, at)
        elif kind == "inventory":
            if agent not in state.inventories:
                return
            inventory = state.inventories[agent]
            inventory[data["item"]] = int(data["count"])
            if inventory[data["item"]] <= 0:
                del inventory[data["item"]]
            self._emit(agent, "inventory", {"item": data["item"], "delta": int(data["delta"]), "count": int(data["count"]),
                                            "cause": data["cause"]}, at)
        elif kind == "chest":
            pos = _vec(data["pos"])
            chest = state.chests.setdefault(pos, Counter())
            chest[data["item"]] = int(data["count"])
            if chest[data["item"]] <= 0:
                del chest[data["item"]]
            self._emit(agent, "chest", {"pos": list(pos), "item": data["item"], "delta": int(data["delta"]),
                                        "count": int(data["count"])}, at)
        elif kind == "feedback":  # the next chat line of `agent` with this text is a primitive's, not its program's
            self._feedback[(agent, str(data.get("message")))] += 1
            return
        elif kind == "chat" and self._feedback[(agent, str(data.get("message")))] > 0:
            self._feedback[(agent, str(data.get("message")))] -= 1
            self._emit(agent, kind, {**data, "source": "primitive"}, at)  # the chat log marks it apart
        else:  # chat, signal, connection: as recorded
            self._emit(agent, kind, data, at)
        self.stats.events += 1

    def _set_cell(self, pos: Vec, block: str) -> None:
        if self._touched is not None:
            self._touched.add(pos)
        state = self.state
        state.grid.set(pos, state.block_id(block))
        if block != "chest":
            state.chests.pop(pos, None)
        elif pos not in state.chests:
            state.chests[pos] = Counter()

    def reconcile_regions(self) -> None:
        """Read the rules' regions back; a cell the journals did not report changing is corrected in the mirror
        and recorded as a block event with cause "reconcile" (e.g. a server's own block updates).

        The journals are drained after the read-back, so a change the read saw (a dig a moment ago) is the
        journal's event, not a reconcile; a cell the journals changed meanwhile is compared at the next tick."""
        seen = {name: self.access.read_blocks(self.spec.regions[name].lo, self.spec.regions[name].hi) for name in self._regions}
        self._touched = set()
        try:
            self.record()
            touched = self._touched
        finally:
            self._touched = None
        for name, blocks in seen.items():
            for pos, block in zip(self.spec.regions[name].cells(), blocks):
                old = self.state.block_at(pos)
                if old != block and pos not in touched:
                    self._set_cell(pos, block)
                    self._emit(None, "block", {"pos": list(pos), "old": old, "new": block, "cause": RECONCILE_CAUSE})

    def _update_positions(self) -> None:
        """The bots' block positions; a bot that moved since the last tick is a `move` event (as the simulator's
        moveTo writes; `steps`: blocks between the two positions, the grid distance)."""
        for name, position in self.access.positions().items():
            if name in self.state.positions:
                new = _vec([int(v // 1) for v in position])
                old = self.state.positions[name]
                self.state.positions[name] = new
                if new != old:
                    self._emit(name, "move", {"to": list(new), "steps": sum(abs(a - b) for a, b in zip(new, old))})

    def _apply_dynamics(self, seconds: list[float]) -> None:
        """The simulator's dynamics on the mirror decide the changes; the server makes them (only where the
        cell still holds what the dynamics saw), and its journal reports them."""
        state = self.state
        real_log, state.log = state.log, EventLog()
        now = self.now
        late: dict[str, float] = {}  # rule -> the first second it was due on that fired late in this batch
        worst = 0.0
        try:
            for second in seconds:
                state.time = second
                for rule in self.timing.applied(second, self.dynamics.compiled.due(second), now - second):
                    late.setdefault(rule, second)
                    worst = max(worst, now - second)
                self.dynamics.tick(second)
            changes = [e for e in state.log.events if e.kind == "block" and e.data.get("cause") in DYNAMICS_CAUSES]
        finally:
            state.log = real_log
        if late:  # said as it happens: the ticks of these rules came a second or more after they were due
            self._emit(None, "firing_late", {"firing": "rule", "rules": list(late), "due_at": min(late.values()),
                                             "worst_late_s": round(worst, 3), "threshold_s": LATE_S})
        for change in reversed(changes):  # the mirror shows only what the server reports
            self._set_cell(_vec(change.data["pos"]), change.data["old"])
        self.dynamics_time = seconds[-1]
        for change in changes:
            x, y, z = change.data["pos"]
            command = f"fill {x} {y} {z} {x} {y} {z} {change.data['new']} replace {change.data['old']}"
            self.access.change_blocks(command, [(x, y, z)], change.data["cause"])
            self.stats.commands += 1

    # -- the end --------------------------------------------------------------------------------------------
    def final_check(self, connected: list[str]) -> None:
        """Before the episode_end snapshot: record the last events, then compare the mirror's inventories and
        chests with the server's (where the access can read them) and correct (as `reconcile` events) whatever the journals missed."""
        self.tick()
        self._update_positions()
        if self.spec.rules:
            ended = self.now
            missed: dict[str, list[float]] = {}
            for second in ticks_between(self.dynamics_time, self.spec.episode_seconds, self.tick_seconds):
                for rule in self.timing.never(second, self.dynamics.compiled.due(second)):
                    missed.setdefault(rule, []).append(second)
            if missed:  # due before the world's length, after the episode's end
                self._emit(None, "firing_missed", {"firing": "rule", "rules": list(missed),
                                                   "first_due_at": min(t[0] for t in missed.values()),
                                                   "missed": sum(len(t) for t in missed.values()),
                                                   "ended_at": round(ended, 3)})
            self._emit(None, "dynamics_timing", {"rules": self.timing.to_json(), "ended_at": round(ended, 3),
                                                 "episode_seconds": self.spec.episode_seconds, "threshold_s": LATE_S})
        if (samples := self.clock.to_json()) is not None:
            self._emit(None, "server_clock", {"samples": samples, "ended_at": round(self.now, 3)})
        for player in connected:
            actual, mirrored = self.access.inventory(player), dict(self.state.inventories[player])
            if actual is None:
                continue
            for item in sorted(set(actual) | set(mirrored)):
                if actual.get(item, 0) != mirrored.get(item, 0):
                    self._apply({"time": time.time() * 1000, "agent": player, "kind": "inventory",
                                 "data": {"item": item, "delta": actual.get(item, 0) - mirrored.get(item, 0),
                                          "count": actual.get(item, 0), "cause": RECONCILE_CAUSE}})
        for pos in sorted(self.state.chests):
            actual = self.access.chest(pos)
            if actual is None:  # unknown to this access: the mirror is the record
                continue
            mirrored = dict(self.state.chests[pos])
            for item in sorted(set(actual) | set(mirrored)):
                if actual.get(item, 0) != mirrored.get(item, 0):
                    self._apply({"time": time.time() * 1000, "agent": None, "kind": "chest",
                                 "data": {"pos": list(pos), "item": item, "delta": actual.get(item, 0) - mirrored.get(item, 0),
                                          "count": actual.get(item, 0)}})
