"""The grid of dynamics ticks in simulated time, shared by the simulator, the step API and the live master."""

from __future__ import annotations

import math


def is_multiple(t: float, period: float) -> bool:
    ratio = t / period
    return abs(ratio - round(ratio)) < 1e-9 and round(ratio) > 0


def ticks_between(start: float, end: float, step: float) -> list[float]:
    """Tick times in (start, end], on the grid of multiples of `step`."""
    first = math.floor(start / step + 1e-9) + 1
    last = math.floor(end / step + 1e-9)
    return [k * step for k in range(first, last + 1)]


def tick_number(second: float, tick_seconds: float) -> int:
    """The tick's number, which counter-based draws of that tick are keyed by."""
    return round(second / tick_seconds)
