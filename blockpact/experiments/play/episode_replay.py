"""Simulated episodes that a run has already played, replayed instead of played again.

The scripted negotiator's contract search (agents/scripted/contract_search.py) plays every candidate
contract on the simulator at seed 0 with the same programs the scripted players then run in the
negotiate condition's seed-0 episode, so that episode is a game the search already played. The
simulator is deterministic in what decides an episode: the world text, the seed, the programs (and
their skills), their budgets, and the world's state when they start. A `ReplayableSimWorld` records
what its programs did (the world events from their start to the episode's end, the program results)
under those inputs when it is a recorder's (the search's worlds are); another, non-recorder world of
the same `EpisodeReplays` whose programs start from the same untouched state with the same inputs
takes that recording instead of running them, once. The events in its log are then the recorded
episode's own, and `replayed` says so (the run log's episode_end carries it). A world that has
changed before its programs start (anything but `task` notes, which only the judge reads) never
replays.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.events import Event
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.spec.schema import WorldSpec

# World events a world may hold before its programs start and still be untouched: the start, and the
# tasks the experiment gives (notes for the judge; the simulation never reads them).
UNTOUCHED_KINDS = frozenset({"episode_start", "task"})

Inputs = tuple[object, ...]


@dataclass
class _Recording:
    label: str  # who played it, for the log
    results: dict[str, ProgramResult]
    run: list[Event]  # the world events of run_programs
    sim: Simulation  # the recorded world, at the episode's end once finished
    end: list[Event] = field(default_factory=list)  # the world events of finish(), the last one episode_end


class EpisodeReplays:
    """The recordings of one run's simulated episodes, each replayed at most once."""

    def __init__(self) -> None:
        self._recorded: dict[Inputs, _Recording] = {}

    def world(self, spec: WorldSpec, seed: int = 0) -> ReplayableSimWorld:
        """A world whose episode is replayed when a recorder's world played it already, else played (a WorldFactory)."""
        return ReplayableSimWorld(spec, seed, self)

    def recorder(self, label: str) -> Callable[[WorldSpec, int], ReplayableSimWorld]:
        """A WorldFactory whose worlds' episodes are recorded under `label` (e.g. "the contract search")."""
        return lambda spec, seed=0: ReplayableSimWorld(spec, seed, self, record_as=label)

    def keep(self, inputs: Inputs, recording: _Recording) -> None:
        self._recorded.setdefault(inputs, recording)

    def take(self, inputs: Inputs) -> _Recording | None:
        return self._recorded.pop(inputs, None)


class ReplayableSimWorld(SimWorld):
    """A SimWorld of an `EpisodeReplays`: it replays a recorded episode with its inputs, or plays (and, given
    `record_as`, records its episode under that name for a later world)."""

    def __init__(self, spec: WorldSpec, seed: int, replays: EpisodeReplays, *, record_as: str | None = None) -> None:
        super().__init__(spec, seed)
        self.seed = seed
        self._replays = replays
        self._label = record_as
        self._inputs: Inputs | None = None
        self._recording: _Recording | None = None  # this world's episode, kept once it finishes
        self._replayed_end: list[Event] = []  # the recording's finish() events, logged at finish()
        self.replayed: str | None = None  # whose recorded episode this world replayed

    def _untouched_inputs(self, programs: Mapping[str, str], skills: Mapping[str, Sequence[str]] | None,
                          until: float | None, budget: float | None) -> Inputs | None:
        """Everything that decides the episode from here, or None when the world has already changed."""
        if self.now != 0 or any(e.kind not in UNTOUCHED_KINDS for e in self.events):
            return None
        return (repr(self.spec), self.seed, tuple(sorted(programs.items())),
                tuple(sorted((p, tuple(s)) for p, s in (skills or {}).items() if s)), until,
                self.sim_budget if budget is None else float(budget), self.compute_budget, self.max_calls_per_instant,
                tuple(sorted(self.sim.timing.items())))

    async def run_programs(self, programs: Mapping[str, str], *, skills: Mapping[str, Sequence[str]] | None = None,
                           until: float | None = None, budget: float | None = None,
                           trusted: Collection[str] = ()) -> dict[str, ProgramResult]:
        if self.replayed is not None:  # its world stands at the recorded episode's end, finish() applied
            raise RuntimeError("this world replayed a recorded episode: it runs no further programs")
        inputs = self._untouched_inputs(programs, skills, until, budget)
        # A recorder's world plays: two candidates of the search may be the same game, and its recording
        # is kept for the episode that follows the search.
        recorded = self._replays.take(inputs) if inputs is not None and self._label is None else None
        if recorded is not None:
            for body in self._bodies.values():  # bodies made before (to observe) see the world replaced
                await body.close()
            self._bodies.clear()
            return self._replay(recorded)
        start = len(self.events)
        results = await super().run_programs(programs, skills=skills, until=until, budget=budget, trusted=trusted)
        # Only an episode that is one run of programs from the untouched start is kept (a second run,
        # e.g. an agent's next attempt, makes the episode depend on more than these inputs).
        self._inputs, self._recording = inputs, None
        if inputs is not None and self._label is not None:
            self._recording = _Recording(self._label, dict(results), self.events[start:], self.sim)
        return results

    def _replay(self, recorded: _Recording) -> dict[str, ProgramResult]:
        """Log the recorded run's events here (the listeners see them), then stand for the recorded world."""
        log = self.sim.state.log
        for event in recorded.run:
            log.emit(event)
        self.sim = recorded.sim
        self.sim.state.log = log
        self._replayed_end = recorded.end
        self.replayed = recorded.label
        return dict(recorded.results)

    def finish(self) -> Event:
        if self._finished is None and self.replayed is not None:
            for event in self._replayed_end:
                self.sim.state.log.emit(event)
            self._finished = self._replayed_end[-1]
        start = len(self.events)
        finished = super().finish()
        if self._recording is not None and self._inputs is not None:
            self._recording.end = self.events[start:]
            self._replays.keep(self._inputs, self._recording)
            self._recording = None
        return finished
