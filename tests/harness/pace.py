"""How busy the machine is right now, for the few waits a live test must bound in wall seconds, and the
`slow` marker.

`slowdown()` runs a short pure-Python loop and compares the wall time it took with the CPU time this
thread got for it: on an idle core the two agree (1.0); with both cores shared by four busy processes
the loop gets about half a core (2.0). `scaled(seconds)` stretches a bound by that factor, so a bound
chosen on an idle machine holds on a loaded one instead of failing the test. Tests still wait on
events (a logged event, a server tick, a line printed); the scaled bound only says when to give up.

Tests marked `@pytest.mark.slow` (long live episodes, extra variants of a case that a fast test
already covers) run only with `--run-slow` (`make test-all`).
"""

from __future__ import annotations

import os
import time

import pytest

SAMPLE_SECONDS = 0.03
MAX_SLOWDOWN = 4.0  # 90 s live episodes x 4 stay well inside pytest-timeout's 600 s
_cache: tuple[float, float] = (0.0, 1.0)  # (when measured, factor)


def slowdown(refresh_after: float = 5.0) -> float:
    """Wall seconds per CPU second this thread gets now (>= 1, at most MAX_SLOWDOWN); measured at most every few seconds."""
    global _cache
    now = time.monotonic()
    if now - _cache[0] < refresh_after:
        return _cache[1]
    samples = []
    for _ in range(3):  # the median of three short samples: one lucky or unlucky time slice decides less
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        while time.perf_counter() - wall0 < SAMPLE_SECONDS:
            sum(range(200))
        samples.append((time.perf_counter() - wall0) / max(time.thread_time() - cpu0, 1e-6))
    factor = min(MAX_SLOWDOWN, max(1.0, sorted(samples)[1]))
    if os.environ.get("BLOCKPACT_TEST_SLOWDOWN"):  # to force a factor, e.g. on a machine slower than ours at its best
        factor = max(factor, float(os.environ["BLOCKPACT_TEST_SLOWDOWN"]))
    _cache = (now, factor)
    return factor


def scaled(seconds: float, at_most: float = MAX_SLOWDOWN) -> float:
    """`seconds` (a bound that holds on an idle machine) stretched by how busy the machine is now, by at
    most `at_most` times (for a live episode that plays out its whole length: its cost grows with it)."""
    return seconds * min(slowdown(), at_most)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run the tests marked slow (make test-all)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long live episodes and extra variants; run by `make test-all` (--run-slow)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)


def pytest_report_header(config: pytest.Config) -> str:
    mode = "run" if config.getoption("--run-slow") else "deselected (make test-all runs them)"
    return f"slow tests: {mode}; machine slowdown now: {slowdown(0):.1f}x (timeouts of live tests scale with it)"
