"""How busy the machine is, for bounds that must tell a slow Node runtime from a wedged one.

A busy runtime answers late and a wedged one never does; a fixed bound chosen on an idle machine kills
busy runtimes on a loaded one (and fails their programs as bridge failures). Bounds on Node's answers
are stretched by the load per core, up to MAX_STRETCH, so wedge detection stays bounded.
"""

from __future__ import annotations

import os

MAX_STRETCH = 3.0
# Read once: os.cpu_count() costs ~10 us (it reads sysfs), and the simulator's bridge asks for the load before each
# of the thousands of calls an episode makes into Node (os.getloadavg() costs ~1 us).
CORES = os.cpu_count() or 1


def load_per_core() -> float:
    """The last minute's load average per core, at least 1: how much slower than idle things run now."""
    try:
        return max(1.0, os.getloadavg()[0] / CORES)
    except OSError:
        return 1.0


def stretched(seconds: float, at_most: float = MAX_STRETCH) -> float:
    """`seconds` (a bound that holds on an idle machine) stretched by the load, by at most `at_most` times."""
    return seconds * min(at_most, load_per_core())
