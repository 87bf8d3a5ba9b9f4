"""Means with 95% confidence intervals (Student's t), for the comparison of runs.

No SciPy here: the two-sided 97.5% quantiles of t are tabulated for 1–30 degrees of freedom and
interpolated linearly in 1/df beyond (the standard table method; error < 0.001 for df > 30).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from blockpact.numbers import equal_up_to_rounding

# t_{0.975, df} for df = 1..30.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
# (df, t) beyond the table; df = inf is the normal quantile.
_T975_TAIL = ((30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980), (math.inf, 1.960))


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (df ≥ 1)."""
    if df < 1:
        raise ValueError("t quantile needs at least one degree of freedom")
    if df <= 30:
        return _T975[df - 1]
    for (d0, t0), (d1, t1) in zip(_T975_TAIL, _T975_TAIL[1:]):
        if df <= d1:
            x, x0, x1 = 1 / df, 1 / d0, (0.0 if math.isinf(d1) else 1 / d1)
            return t0 + (t1 - t0) * (x0 - x) / (x0 - x1)
    return 1.960


@dataclass(frozen=True)
class Estimate:
    """A sample's mean with a 95% CI; `low`/`high` are None for n < 2 (no interval from one value)."""

    n: int
    mean: float | None
    std: float | None
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, float | int | None]:
        return {"n": self.n, "mean": self.mean, "std": self.std, "ci95_low": self.low, "ci95_high": self.high}


def estimate(values: Sequence[float], bounds: tuple[float | None, float | None] = (None, None)) -> Estimate:
    """Mean and Student's t interval; the interval is cut at `bounds`, the range the measure can take (a Gini's
    [0, 1]): with few seeds a t interval reaches past it, and a Gini "CI" of [-0.54, 0.96] reads as nonsense."""
    n = len(values)
    if n == 0:
        return Estimate(0, None, None, None, None)
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(1, mean, None, None, None)
    # values equal up to rounding (twenty seeds' identical Gini) have no spread: not one of 3.6e-18
    std = 0.0 if equal_up_to_rounding(values) else math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * std / math.sqrt(n)
    lowest, highest = bounds
    low = mean - half if lowest is None else max(lowest, mean - half)
    high = mean + half if highest is None else min(highest, mean + half)
    return Estimate(n, mean, std, low, high)


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
