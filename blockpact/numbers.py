"""Numbers as the run's files write them: derived floats without the noise of binary arithmetic.

Rewards after a three-way share are thirds, and three of them add up to `187.99999999999997`, not 188; a Gini of
rewards that are equal but for that last bit comes out as `3.8e-17`, not 0. Both are the floating-point
representation of an exact result, not a measurement. What a file holds is cut to `SIGNIFICANT_DIGITS`
significant digits (`tidy`, at the places outputs are written), and values that agree to that precision
are equal (`equal_up_to_rounding`, where a measure of spread would otherwise report the noise: Gini, std).
Item counts and the values a world gives them have a few digits; twelve keep everything they can produce.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

SIGNIFICANT_DIGITS = 12
RELATIVE_TOLERANCE = 10.0 ** -SIGNIFICANT_DIGITS


def tidy(value: Any) -> Any:
    """`value` with every finite float rounded to SIGNIFICANT_DIGITS significant digits (and -0.0 written 0.0),
    through dicts, lists and tuples (tuples become lists, as JSON writes them); everything else unchanged."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}") + 0.0 if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tidy(v) for v in value]
    return value


def tidy_fraction(value: float) -> float:
    """A measure whose scale is 1 (a Gini) to SIGNIFICANT_DIGITS decimals: the Gini `3.8e-17` that files
    written before this module held for equal rewards reads as 0."""
    return round(value, SIGNIFICANT_DIGITS) + 0.0


def equal_up_to_rounding(values: Iterable[float]) -> bool:
    """Every value equal to the others to SIGNIFICANT_DIGITS significant digits (True for none or one)."""
    xs = [float(v) for v in values]
    if len(xs) < 2:
        return True
    spread = max(xs) - min(xs)
    return spread <= RELATIVE_TOLERANCE * max(abs(x) for x in xs)
