"""Outcome measures of a run used in the contracting and GovSim papers: welfare, the Gini with its
meaning stated, means with intervals over seeds, and a commons' sustainability. They read plain numbers
or curves from the judge's measures (judge/metrics.py), so a report can be rebuilt from `events.jsonl`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from blockpact.judge.metrics import Curve, gini


def social_welfare(rewards: Mapping[str, float]) -> float:
    return float(sum(rewards.values()))


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
