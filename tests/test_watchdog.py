"""The live watchdog (bridge/live/watchdog.py): one ping per poll period, a stopped runtime ends the episode at
once, and while a ping goes unanswered the loop thread is told not to call into Node.

The runtime here is a stand-in with the three things the watchdog reads of a NodeRuntime (alive, stopped, kill);
the real runtime killed, stopped and wedged mid-episode is tests/test_live_failures.py (slow)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from blockpact.bridge.live import watchdog
from blockpact.bridge.live.watchdog import RuntimeWatchdog
from blockpact.bridge.runtime import BridgeBroken


class StandIn:
    pid = 0

    def __init__(self) -> None:
        self.alive, self.stopped, self.killed = True, False, False

    def kill(self) -> None:
        self.killed, self.alive = True, False


async def _watch_for(dog: RuntimeWatchdog, seconds: float) -> None:
    task = asyncio.ensure_future(dog.watch())
    await asyncio.sleep(seconds)
    assert not task.done(), task.exception()
    task.cancel()


def test_pings_are_paced_not_back_to_back() -> None:
    pings: list[float] = []
    dog = RuntimeWatchdog(StandIn(), lambda: pings.append(time.monotonic()), lambda: 8.0)  # type: ignore[arg-type]
    asyncio.run(_watch_for(dog, 2.5))
    assert 2 <= len(pings) <= 4, len(pings)  # before: thousands, a ping the moment the last was answered


def test_a_stopped_runtime_is_killed_within_a_poll_period() -> None:
    node, release = StandIn(), threading.Event()
    node.stopped = True
    dog = RuntimeWatchdog(node, lambda: release.wait(10), lambda: 8.0)  # type: ignore[arg-type]

    async def scenario() -> float:
        begun = time.monotonic()
        with pytest.raises(BridgeBroken, match="stopped"):
            await dog.watch()
        took = time.monotonic() - begun
        release.set()  # the ping's worker thread ends (asyncio.run waits for it)
        return took

    try:
        took = asyncio.run(scenario())
    finally:
        release.set()
    assert node.killed and took < 3 * watchdog.LIVENESS_POLL_SECONDS


def test_an_unanswered_ping_tells_the_loop_not_to_call_node(monkeypatch) -> None:
    monkeypatch.setattr(watchdog, "UNANSWERED_SECONDS", 0.3)
    release = threading.Event()
    dog = RuntimeWatchdog(StandIn(), lambda: release.wait(10), lambda: 8.0)  # type: ignore[arg-type]

    async def scenario() -> tuple[bool, bool, bool]:
        task = asyncio.ensure_future(dog.watch())
        await asyncio.sleep(0.1)
        early = dog.answering
        await asyncio.sleep(0.5)
        late = dog.answering
        release.set()
        await asyncio.sleep(1.5 * watchdog.LIVENESS_POLL_SECONDS)
        answered = dog.answering
        task.cancel()
        return early, late, answered

    try:
        assert asyncio.run(scenario()) == (True, False, True)
    finally:
        release.set()
