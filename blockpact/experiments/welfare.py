"""Outcome measures of a run used in the contracting and GovSim papers: welfare, the Gini with its
meaning stated, means with intervals over seeds, and a commons' sustainability. They read plain numbers
or curves from the judge's measures (judge/metrics.py), so a report can be rebuilt from `events.jsonl`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from dataclasses import dataclass

from blockpact.experiments.stats import estimate
from blockpact.judge.metrics import Curve, gini
from blockpact.numbers import equal_up_to_rounding


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


def summary_stats(values: Sequence[float], bounds: tuple[float | None, float | None] = (None, None)) -> dict[str, Any]:
    """n, mean, sample standard deviation and the 95% confidence interval of the mean (Student's t, cut at the
    measure's `bounds`): the interval is None below two values (no spread to estimate)."""
    if not values:
        return {"n": 0, "mean": None, "std": None, "ci95": None}
    e = estimate(values, bounds)
    return {"n": e.n, **mean_std(values), "ci95": None if e.low is None else [e.low, e.high]}


def mean_std(values: Sequence[float]) -> dict[str, float]:
    """Mean and sample standard deviation (0 for a single value, and for values equal up to rounding), as
    reported in the paper's tables."""
    n = len(values)
    if n == 0:
        return {"mean": math.nan, "std": math.nan}
    mean = math.fsum(values) / n
    std = 0.0 if equal_up_to_rounding(values) else math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return {"mean": mean, "std": std}


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
        if v < threshold and not collapsed and t <= episode_end:  # live: the clock runs on while programs stop
            survival, collapsed = t, True
        previous = v
    return Sustainability(survival, collapsed, over / harvests if harvests else 0.0, curve.values[-1] if curve.values else 0.0)
