"""Outcome measures used in the contracting and GovSim papers, computed from rewards or event logs.

Everything here reads plain numbers or events, so a report can be rebuilt from `events.jsonl` alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from blockpact.worlds.events import Event


def social_welfare(rewards: Mapping[str, float]) -> float:
    return float(sum(rewards.values()))


def gini(values: Iterable[float]) -> float:
    """G = sum_i sum_j |x_i - x_j| / (2 (n - 1) sum x): 0 for equality, 1 when one player has everything.

    The (n - 1) normalisation (as in the contracting paper) makes "one has all" equal 1 for any n.
    Undefined cases (fewer than two players, or nothing to share) give 0.
    """
    xs = [float(v) for v in values]
    n, total = len(xs), sum(xs)
    if n < 2 or total == 0:
        return 0.0
    if any(x < 0 for x in xs):
        raise ValueError("gini needs non-negative rewards")
    diffs = sum(abs(a - b) for a in xs for b in xs)
    return diffs / (2 * (n - 1) * total)


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
    - all values equal: 0 (equality), also when they are negative;
    - a negative value (a transfer larger than the payer's holdings): measured on the values shifted by
      -min so the smallest is 0 (basis "shifted"), the usual convention for Gini of signed incomes.
    """
    xs = [float(v) for v in values]
    if len(xs) < 2:
        return GiniMeasure(None, reason="undefined: fewer than two players")
    if all(x == 0 for x in xs):
        return GiniMeasure(None, reason="undefined: every reward is 0 (nothing to share)")
    if all(x == xs[0] for x in xs):
        return GiniMeasure(0.0)
    low = min(xs)
    if low < 0:
        shifted = [x - low for x in xs]
        return GiniMeasure(gini(shifted), "shifted", -low,
                           f"a reward was negative: measured on rewards shifted by +{-low:g} so the smallest is 0")
    return GiniMeasure(gini(xs))


# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond, the normal's 1.96 plus
# the first Cornish-Fisher terms (error below 1e-3).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


def t975(df: int) -> float:
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def summary_stats(values: Sequence[float]) -> dict[str, float | int | list[float] | None]:
    """n, mean, sample standard deviation and the 95% confidence interval of the mean (Student's t):
    the interval is None below two values (no spread to estimate)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "ci95": None}
    ms = mean_std(values)
    ci = None
    if n > 1:
        half = t975(n - 1) * ms["std"] / math.sqrt(n)
        ci = [ms["mean"] - half, ms["mean"] + half]
    return {"n": n, "mean": ms["mean"], "std": ms["std"], "ci95": ci}


def mean_std(values: Sequence[float]) -> dict[str, float]:
    """Mean and sample standard deviation (0 for a single value), as reported in the paper's tables."""
    n = len(values)
    if n == 0:
        return {"mean": math.nan, "std": math.nan}
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return {"mean": mean, "std": std}


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
    for e in events:
        if e.kind != "block":
            continue
        pos = e.data["pos"]
        cell = tuple(pos)
        old = cells.get(cell, e.data["old"])
        cells[cell] = e.data["new"]
        for key in counts:
            block, region = key.split("@")
            lo, hi = regions[region]
            if not all(lo[i] <= pos[i] <= hi[i] for i in range(3)):
                continue
            delta = (e.data["new"] == block) - (old == block)
            if delta:
                counts[key] += delta
                _append(curves[key], e.time, counts[key])
    return curves


def welfare_curve(curves: Mapping[str, Curve]) -> Curve:
    times = sorted({t for c in curves.values() for t in c.times})
    return Curve(times, [sum(c.at(t) for c in curves.values()) for t in times])


def _append(curve: Curve, t: float, v: float) -> None:
    if curve.times and curve.times[-1] == t:
        curve.values[-1] = v
    else:
        curve.times.append(t)
        curve.values.append(v)


@dataclass
class Sustainability:
    """GovSim's figures for a commons: how long the resource lasted and how far use exceeded its regrowth."""

    survival_time: float  # when the resource first fell below its collapse threshold (episode end if never)
    collapsed: bool
    over_usage: float  # fraction of harvests taken while the stock was below the sustainable level
    final_stock: float


def sustainability(curve: Curve, threshold: float, sustainable_level: float, episode_end: float) -> Sustainability:
    """From a resource curve: collapse = stock below `threshold`; over-usage = harvests below `sustainable_level`.

    A harvest is a step down in the curve; it counts as over-use when it leaves the stock below the
    level from which it can still regrow to capacity in one period (for doubling: half the capacity).
    """
    survival, collapsed = episode_end, False
    harvests = over = 0
    previous = curve.values[0] if curve.values else 0.0
    for t, v in zip(curve.times, curve.values):
        if v < previous:
            harvests += int(previous - v)
            if v < sustainable_level:
                over += int(previous - v)
        if v < threshold and not collapsed:
            survival, collapsed = t, True
        previous = v
    return Sustainability(survival, collapsed, over / harvests if harvests else 0.0, curve.values[-1] if curve.values else 0.0)
