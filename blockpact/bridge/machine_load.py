"""How busy the machine is, for bounds that must tell a slow Node runtime from a wedged one.

A busy runtime answers late and a wedged one never does; a fixed bound chosen on an idle machine kills
busy runtimes on a loaded one (and fails their programs as bridge failures). Bounds on Node's answers
are stretched by the load per core, up to MAX_STRETCH, so wedge detection stays bounded.

A runtime a developer holds in a debugger (paused at a breakpoint, or stopped by gdb) looks wedged to all of
that. With BLOCKPACT_NODE_DEBUG=1 (`node_held`) the bounds on Node's answers are HELD_SECONDS, and neither the
runtime's guard (runtime.py) nor the live watchdog (live/watchdog.py) kills a stopped runtime: README, Limits.
"""

from __future__ import annotations

import os

MAX_STRETCH = 3.0
NODE_DEBUG_ENV = "BLOCKPACT_NODE_DEBUG"
HELD_SECONDS = 7 * 24 * 3600.0  # a bound on Node's answers while a debugger may hold it: a week
# Read once: os.cpu_count() costs ~10 us (it reads sysfs), and the simulator's bridge asks for the load before each
# of the thousands of calls an episode makes into Node (os.getloadavg() costs ~1 us).
CORES = os.cpu_count() or 1


def load_per_core() -> float:
    """The last minute's load average per core, at least 1: how much slower than idle things run now."""
    try:
        return max(1.0, os.getloadavg()[0] / CORES)
    except OSError:
        return 1.0


def node_held() -> bool:
    """Whether a developer may hold Node in a debugger (BLOCKPACT_NODE_DEBUG set, and not to 0): then nothing of
    blockpact's kills a runtime for answering late, nor for being stopped."""
    return os.environ.get(NODE_DEBUG_ENV, "").strip() not in ("", "0")


def stretched(seconds: float, at_most: float = MAX_STRETCH) -> float:
    """`seconds` (a bound that holds on an idle machine) stretched by the load, by at most `at_most` times
    (HELD_SECONDS while `node_held()`)."""
    if node_held():
        return HELD_SECONDS
    return seconds * min(at_most, load_per_core())
