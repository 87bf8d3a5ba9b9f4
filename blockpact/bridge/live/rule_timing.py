"""When a live episode's dynamics fired against when they were due, per rule, for the `dynamics_timing` event.

On the simulator a rule fires exactly at its tick. On a live server the world master applies the ticks due by
the wall clock whenever it gets to run: on a busy machine a growth period due at 60 s may fire at 63 s, and ticks
due before the episode's end may never fire if the episode ends first. Both change a commons' outcome, so the
master counts them, logs a `firing_late` event as a late tick fires and a `firing_missed` event at the end for
the ticks that never did, and the run reports them (experiments/outputs/lateness.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blockpact.worlds.spec.schema import WorldSpec

LATE_S = 1.0  # a tick applied this much after it was due or more counts as late


@dataclass
class _Rule:
    label: str
    due: int = 0
    late: int = 0
    max_late_s: float = 0.0
    missed: list[float] = field(default_factory=list)
    first_late: float | None = None


class RuleTiming:
    def __init__(self, spec: WorldSpec) -> None:
        self.rules = [_Rule(f"{type(r).__name__.removesuffix('Rule').lower()} {r.block} in {r.region}") for r in spec.rules]

    def applied(self, second: float, due: np.ndarray, late_s: float) -> list[str]:
        """The tick ending at `second` fired `late_s` after it was due, for the rules `due` marks; returns the
        rules for which it counts as late."""
        late = []
        for i in np.flatnonzero(due):
            rule = self.rules[i]
            rule.due += 1
            if late_s >= LATE_S:
                rule.late += 1
                rule.max_late_s = max(rule.max_late_s, round(late_s, 3))
                if rule.first_late is None:
                    rule.first_late = second
                late.append(rule.label)
        return late

    def never(self, second: float, due: np.ndarray) -> list[str]:
        """The tick ending at `second`, due before the world's episode length, never fired; returns its rules."""
        for i in np.flatnonzero(due):
            self.rules[i].due += 1
            self.rules[i].missed.append(second)
        return [self.rules[i].label for i in np.flatnonzero(due)]

    def to_json(self) -> list[dict[str, Any]]:
        return [{"rule": r.label, "due": r.due, "late": r.late, "max_late_s": r.max_late_s, "first_late_at": r.first_late,
                 "missed": len(r.missed), "first_missed_at": r.missed[0] if r.missed else None} for r in self.rules]


CLOCK_STEP_S = 0.05  # a sample of the server's clock is kept when its lag moved this much since the last kept one


class ServerClock:
    """The server's clock (its ticks / 20: the world's age its players see as `bot.time.age`, by which programs keep
    time) against the episode's wall clock. A busy server ticks slower than 20 a second: a quota round a program
    starts at 60 s of the server's clock then starts later than 60 s into the episode, when the judge's period has
    begun, or never. Samples `(episode s, server s)` are kept where the lag changed, so they interpolate it."""

    def __init__(self) -> None:
        self.kept: list[tuple[float, float]] = []
        self.last: tuple[float, float] | None = None

    def sample(self, episode: float, server: float | None) -> None:
        if server is None:
            return
        self.last = (round(episode, 3), round(server, 3))
        if not self.kept or abs((episode - server) - (self.kept[-1][0] - self.kept[-1][1])) >= CLOCK_STEP_S:
            self.kept.append(self.last)

    def to_json(self) -> list[list[float]] | None:
        if self.last is None:
            return None
        return [list(s) for s in (self.kept if self.kept[-1] == self.last else [*self.kept, self.last])]
