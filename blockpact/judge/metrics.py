"""What the judge, the negotiators and a run's metrics measure of an episode: welfare, the Gini of rewards (bare,
and with its meaning stated for metrics.json), and rewards, items and resources over time, read from the world's
events (so they can be rebuilt from `events.jsonl` alone). Statistics over seeds are experiments' (stats.py)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from blockpact.numbers import equal_up_to_rounding
from blockpact.worlds.events import Event


def gini(values: Iterable[float]) -> float:
    """G = sum_i sum_j |x_i - x_j| / (2 (n - 1) sum x): 0 for equality, 1 when one player has everything.

    The (n - 1) normalisation (as in the contracting paper) makes "one has all" equal 1 for any n.
    Undefined cases (fewer than two players, or nothing to share) give 0, and so do values equal to twelve
    significant digits (rewards split three ways differ in their last bit, which is no inequality).
    """
    xs = [float(v) for v in values]
    n, total = len(xs), sum(xs)
    if n < 2 or total == 0:
        return 0.0
    if any(x < 0 for x in xs):
        raise ValueError("gini needs non-negative rewards")
    if equal_up_to_rounding(xs):
        return 0.0
    diffs = sum(abs(a - b) for a in xs for b in xs)
    return diffs / (2 * (n - 1) * total)


def social_welfare(rewards: Mapping[str, float]) -> float:
    return math.fsum(rewards.values())  # exact sum of the floats, rounded once


@dataclass(frozen=True)
class GiniMeasure:
    """Gini with its meaning stated: `value` None when undefined (`reason` says why); `basis` "rewards"
    or "shifted" (a reward was negative: measured on rewards + `shift`, so the smallest is 0)."""

    value: float | None
    basis: str = "rewards"
    shift: float = 0.0
    reason: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "basis": self.basis, "shift": self.shift, "reason": self.reason}


def gini_measure(values: Iterable[float]) -> GiniMeasure:
    """The Gini of `values`, defined for every input a run can produce.

    - fewer than two players, or every value 0 (nothing to share): undefined (None, with the reason);
    - all values equal (to twelve significant digits: blockpact.numbers): 0 (equality), also when negative;
    - a negative value (a transfer larger than the payer's holdings): measured on the values shifted by
      -min so the smallest is 0 (basis "shifted"), the usual convention for Gini of signed incomes.
    """
    xs = [float(v) for v in values]
    if len(xs) < 2:
        return GiniMeasure(None, reason="undefined: fewer than two players")
    if all(x == 0 for x in xs):
        return GiniMeasure(None, reason="undefined: every reward is 0 (nothing to share)")
    if equal_up_to_rounding(xs):
        return GiniMeasure(0.0)
    low = min(xs)
    if low < 0:
        shifted = [x - low for x in xs]
        return GiniMeasure(gini(shifted), "shifted", -low,
                           f"a reward was negative: measured on rewards shifted by +{-low:g} so the smallest is 0")
    return GiniMeasure(gini(xs))


@dataclass
class Curve:
    """A step function sampled at the times it changes: value[i] holds from time[i] on."""

    times: list[float]
    values: list[float]

    def at(self, t: float) -> float:
        value = self.values[0] if self.values else 0.0
        for ti, vi in zip(self.times, self.values):
            if ti > t:
                break
            value = vi
        return value


def _episode(events: Sequence[Event]) -> tuple[Event, Sequence[Event]]:
    """The last episode_start and the events from it on: an episode replayed in the same log (a live
    retry after a disconnect) is read from its last attempt, as the judge's observables are."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind == "episode_start":
            return events[i], events[i:]
    raise ValueError("the event log has no episode_start event")


def reward_curves(events: Sequence[Event], values: Mapping[str, Mapping[str, float]]) -> dict[str, Curve]:
    """Each player's reward over time: sum of value x count over the inventory, replayed from events.

    `values[player][item]` is the item's worth in emeralds to that player (emeralds are worth 1).
    """
    start, events = _episode(events)
    inventories = {p: dict(inv) for p, inv in start.data["inventories"].items()}
    owners = start.data.get("chest_owners", {})  # chests whose contents count for a player or all
    chests = {pos: dict(start.data.get("chests", {}).get(pos, {})) for pos in owners}

    def reward(p: str) -> float:
        held = sum(_value(values, p, item) * n for item, n in inventories[p].items())
        for pos, owner in owners.items():
            share = 1.0 / len(inventories) if owner == "shared" else float(owner == p)
            held += share * sum(_value(values, p, item) * n for item, n in chests[pos].items())
        return held

    curves = {p: Curve([start.time], [reward(p)]) for p in inventories}
    for e in events:
        if e.kind == "chest" and (pos := ",".join(str(c) for c in e.data["pos"])) in owners:
            chests[pos][e.data["item"]] = e.data["count"]
            for p in inventories if owners[pos] == "shared" else [owners[pos]] if owners[pos] in inventories else []:
                _append(curves[p], e.time, reward(p))
        if e.kind != "inventory" or e.agent not in inventories:
            continue
        inventories[e.agent][e.data["item"]] = e.data["count"]
        _append(curves[e.agent], e.time, reward(e.agent))
    return curves


def item_curves(events: Sequence[Event], items: Iterable[str]) -> dict[str, dict[str, Curve]]:
    """How many of each of `items` every player holds over time, replayed from inventory events."""
    start, events = _episode(events)
    wanted = set(items)
    curves = {
        p: {item: Curve([start.time], [float(inv.get(item, 0))]) for item in sorted(wanted)}
        for p, inv in start.data["inventories"].items()
    }
    for e in events:
        if e.kind == "inventory" and e.agent in curves and e.data["item"] in wanted:
            _append(curves[e.agent][e.data["item"]], e.time, float(e.data["count"]))
    return curves


def _value(values: Mapping[str, Mapping[str, float]], player: str, item: str) -> float:
    if item == "emerald":
        return 1.0
    return float(values.get(player, {}).get(item, 0.0))


def resource_curves(events: Sequence[Event]) -> dict[str, Curve]:
    """Count of each dynamics-rule block in its region over time (e.g. `slime_block@river`)."""
    start, events = _episode(events)
    counts: dict[str, float] = dict(start.data.get("region_counts", {}))
    regions = start.data.get("region_boxes", {})
    curves = {key: Curve([start.time], [float(n)]) for key, n in counts.items()}
    # A cell's block as the events so far have it. Live, one change can be reported twice (the world master's
    # read-back "reconcile" event, then the server's journal entry of the same dig): the second finds the cell
    # already changed and counts nothing.
    cells: dict[tuple[int, ...], str] = {}
    boxes = [(key, block, *regions[region]) for key in counts for block, region in [key.split("@")]]
    for e in events:
        if e.kind != "block":
            continue
        pos = e.data["pos"]
        cell = tuple(pos)
        old = cells.get(cell, e.data["old"])
        cells[cell] = e.data["new"]
        for key, block, lo, hi in boxes:
            if not (lo[0] <= pos[0] <= hi[0] and lo[1] <= pos[1] <= hi[1] and lo[2] <= pos[2] <= hi[2]):
                continue
            delta = (e.data["new"] == block) - (old == block)
            if delta:
                counts[key] += delta
                _append(curves[key], e.time, counts[key])
    return curves


def welfare_curve(curves: Mapping[str, Curve]) -> Curve:
    """The sum of the players' curves at every time one of them changes. Each curve is read with a cursor
    that only moves forward (the times are visited in order), giving `Curve.at` without its scan from the
    start: linear in the events rather than quadratic."""
    times = sorted({t for c in curves.values() for t in c.times})
    cursors = [_Cursor(c) for c in curves.values()]
    return Curve(times, [sum(cursor.at(t) for cursor in cursors) for t in times])


class _Cursor:
    """`Curve.at` for non-decreasing query times: the first index whose time exceeds t never moves back."""

    def __init__(self, curve: Curve) -> None:
        self.curve, self.k = curve, 0

    def at(self, t: float) -> float:
        times, values = self.curve.times, self.curve.values
        while self.k < len(times) and times[self.k] <= t:
            self.k += 1
        return values[self.k - 1] if self.k else (values[0] if values else 0.0)


def _append(curve: Curve, t: float, v: float) -> None:
    if curve.times and curve.times[-1] == t:
        curve.values[-1] = v
    else:
        curve.times.append(t)
        curve.values.append(v)
