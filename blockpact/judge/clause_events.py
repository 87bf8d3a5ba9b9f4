"""The events a clause is about, read from an episode's observables: what was mined, collected or taken,
where (a region the world names), when (a clause's time window) and in which state of the world (a
condition such as "while the river holds at most 7 slime_block", checked just before each event).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from blockpact.judge.clauses import Window
from blockpact.judge.contract_render import number
from blockpact.judge.observables import EpisodeObservables
from blockpact.worlds.spec.schema import Condition

Act = tuple[float, str, int]  # (time, player, count)


@dataclass(frozen=True)
class Deed:
    """What a breach is about, for the judge's causality (judge/causality.py): a verb (mine, collect, take), the
    block or item (None: anything), how many, and when in seconds from the episode's start: for a deed done
    against a clause, when it was first done; for one left undone, when it was due."""

    verb: str
    thing: str | None
    count: float
    at: float


@dataclass(frozen=True)
class Breach:
    clause: int  # 1-based number in the contract
    player: str
    text: str
    did: Deed | None = None  # the act against the clause (took, mined what it rules out)
    lacked: Deed | None = None  # what the player left undone (another's breach may have made it impossible)


def region_has(obs: EpisodeObservables, region: str | None, cell: tuple[int, int, int] | None) -> bool:
    if region is None:
        return True
    box = obs.regions.get(region)
    return box is not None and cell is not None and box.contains(cell)


def actions(obs: EpisodeObservables, verb: str, target: str | None, chest: str | None = None,
            region: str | None = None) -> list[Act]:
    """(time, player, count) of every `verb` of `target` (None: anything): blocks dug (in `region`),
    items collected, items taken from a chest (the one named `chest`)."""
    if verb == "mine":
        if region is None:
            return [(t, p, 1) for t, p, b in obs.digs if target is None or b == target]
        return [(t, p, 1) for t, p, b, cell in obs.dig_cells if (target is None or b == target) and region_has(obs, region, cell)]
    if verb == "collect":
        return [(t, p, n) for t, p, i, n in obs.gains if target is None or i == target]
    return [
        (op.time, op.player, -op.delta) for op in obs.chest_ops
        if (target is None or op.item == target) and op.delta < 0
        and (not chest or obs.chest_names.get(op.chest, "").lower() == chest)
    ]


class RegionCounts:
    """How many of a block a region holds at any time of the episode (from the start map and every change)."""

    def __init__(self, obs: EpisodeObservables, block: str, region: str) -> None:
        box = obs.regions[region]
        count = sum(1 for cell, b in obs.start_blocks.items() if b == block and box.contains(cell))
        self.times: list[float] = []
        self.counts: list[int] = []
        self.start = count
        for t, cell, old, new in obs.block_changes:
            if not box.contains(cell) or (old == block) == (new == block):
                continue
            count += 1 if new == block else -1
            self.times.append(t)
            self.counts.append(count)

    def before(self, t: float) -> int:
        """The count just before time `t` (what an action at `t` sees)."""
        i = bisect_left(self.times, t)
        return self.counts[i - 1] if i else self.start


def condition_test(obs: EpisodeObservables, condition: Condition | None) -> Callable[[float], bool]:
    if condition is None:
        return lambda t: True
    counts = _counts(obs, condition.block, condition.region)
    return lambda t: condition.holds(counts.before(t))


def _counts(obs: EpisodeObservables, block: str, region: str) -> RegionCounts:
    kept = obs.__dict__.setdefault("_region_counts", {})
    if (block, region) not in kept:
        kept[(block, region)] = RegionCounts(obs, block, region)
    return kept[(block, region)]


def condition_ever_held(obs: EpisodeObservables, condition: Condition) -> bool:
    counts = _counts(obs, condition.block, condition.region)
    return any(condition.holds(c) for c in [counts.start, *counts.counts])


def span(obs: EpisodeObservables, window: Window | None) -> tuple[float, float]:
    """The window as seconds from the episode's start, cut to what the episode lasted."""
    length = max(obs.end_time - obs.start_time, 0.0)
    if window is None:
        return 0.0, length
    return window.start, min(window.end if window.end is not None else length, length)


def within(obs: EpisodeObservables, events: list[Act], window: Window | None, condition: Condition | None) -> list[Act]:
    """The events inside the window (times from the episode's start) and while the condition held."""
    lo, hi = span(obs, window)
    holds = condition_test(obs, condition)
    return [(t, p, n) for t, p, n in events if lo <= t - obs.start_time < hi and holds(t)]


def not_applicable(obs: EpisodeObservables, window: Window | None, condition: Condition | None) -> str | None:
    """Why a clause limited to `window` / `condition` had nothing to apply to, else None."""
    lo, hi = span(obs, window)
    if window is not None and lo >= hi:
        return f"the episode ended at {number(hi)} s, before the clause's window began ({number(lo)} s)"
    if condition is not None and not condition_ever_held(obs, condition):
        return f"{condition} never held during the episode"
    return None


def window_text(window: Window | None) -> str:
    if window is None:
        return ""
    end = "the end" if window.end is None else f"{number(window.end)} s"
    return f" between {number(window.start)} s and {end}"
