"""The live watchdog (bridge/live/watchdog.py): one ping per poll period, a stopped runtime ends the episode at
once, and while a ping goes unanswered the loop thread is told not to call into Node.

The runtime here is a stand-in with the three things the watchdog reads of a NodeRuntime (alive, stopped, kill);
the real runtime killed, stopped and wedged mid-episode is tests/test_live_failures.py (slow)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from blockpact.bridge import liveness
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
    dog = RuntimeWatchdog(StandIn(), lambda bound: pings.append(time.monotonic()), lambda: 8.0)  # type: ignore[arg-type]
    asyncio.run(_watch_for(dog, 2.5))
    assert 2 <= len(pings) <= 4, len(pings)  # before: thousands, a ping the moment the last was answered


def test_a_stopped_runtime_is_killed_within_a_poll_period() -> None:
    node, release = StandIn(), threading.Event()
    node.stopped = True
    dog = RuntimeWatchdog(node, lambda bound: release.wait(10), lambda: 8.0)  # type: ignore[arg-type]

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
    assert node.killed and took < 3 * liveness.LIVENESS_POLL_SECONDS


def test_an_unanswered_ping_tells_the_loop_not_to_call_node(monkeypatch) -> None:
    monkeypatch.setattr(watchdog, "UNANSWERED_SECONDS", 0.3)
    release = threading.Event()
    dog = RuntimeWatchdog(StandIn(), lambda bound: release.wait(10), lambda: 8.0)  # type: ignore[arg-type]

    async def scenario() -> tuple[bool, bool, bool]:
        task = asyncio.ensure_future(dog.watch())
        await asyncio.sleep(0.1)
        early = dog.answering
        await asyncio.sleep(0.5)
        late = dog.answering
        release.set()
        await asyncio.sleep(1.5 * liveness.LIVENESS_POLL_SECONDS)
        answered = dog.answering
        task.cancel()
        return early, late, answered

    try:
        assert asyncio.run(scenario()) == (True, False, True)
    finally:
        release.set()


def test_a_runtime_running_late_is_given_longer_before_it_counts_as_wedged(monkeypatch) -> None:
    """Each ping's answer says how late Node's main thread ran; a call may then take LATE_FACTOR times that. A
    64-bot runtime runs 9-18 s late while its bots walk, and a fixed bound (8 s on a machine idle a minute before)
    killed it (issue 18). The stand-in's ping fails as JSPyBridge's call does when it is not answered within its bound."""
    monkeypatch.setattr(watchdog, "LATE_MEMORY_SECONDS", 1.0)
    monkeypatch.setattr(liveness, "LIVENESS_POLL_SECONDS", 0.2)
    node, bounds = StandIn(), []
    takes = iter([(0.0, 0.4), (0.6, 0.6)])  # (seconds to answer, lateness it reports)

    def ping(bound: float) -> float:
        bounds.append(bound)
        answer_after, late = next(takes, (0.0, 0.0))
        if answer_after > bound:
            time.sleep(bound)
            raise TimeoutError(f"Call to 'ping' timed out after {bound} s")
        time.sleep(answer_after)
        return late

    dog = RuntimeWatchdog(node, ping, lambda: 0.3)  # type: ignore[arg-type]
    asyncio.run(_watch_for(dog, 2.4))
    assert not node.killed
    assert bounds[0] == 0.3 and bounds[1] == pytest.approx(3 * 0.4), bounds  # after it said it ran 0.4 s late
    assert bounds[2] == pytest.approx(3 * 0.6), bounds  # its 0.6 s answer, as late as it said
    assert dog.bound() == 0.3  # past LATE_MEMORY_SECONDS with prompt answers


def test_a_ping_unanswered_past_its_bound_kills_the_runtime() -> None:
    node = StandIn()

    def ping(bound: float) -> float:
        time.sleep(bound)
        raise TimeoutError("Call to 'ping' timed out")

    dog = RuntimeWatchdog(node, ping, lambda: 0.3)  # type: ignore[arg-type]
    with pytest.raises(BridgeBroken, match=r"did not answer within 0 s .*; it was killed"):
        asyncio.run(dog.watch())
    assert node.killed


def test_how_late_the_runtime_ran_is_kept_for_the_episode_and_said_past_two_seconds(monkeypatch) -> None:
    """A loaded machine's 40 s episode acted for ~28 s and read as a normal seed: the worst
    lateness the pings reported stays known after the bound has forgotten it, and from LATE_NOTE_SECONDS on the
    live world logs a `runtime_late` event and says so on stderr (bridge/live/world.py)."""
    monkeypatch.setattr(watchdog, "LATE_MEMORY_SECONDS", 0.1)
    monkeypatch.setattr(liveness, "LIVENESS_POLL_SECONDS", 0.1)
    lateness = iter([0.2, 3.5, 0.1])
    dog = RuntimeWatchdog(StandIn(), lambda bound: next(lateness, 0.0), lambda: 30.0)  # type: ignore[arg-type]
    asyncio.run(_watch_for(dog, 0.8))
    assert dog.worst_late == 3.5 and dog.bound() == 30.0  # the bound forgot it; the record did not
    assert watchdog.lateness_note(1.9) is None
    note = watchdog.lateness_note(dog.worst_late)
    assert note is not None and "stalled for up to 3.5 s at a time" in note and "slowed episode" in note


def test_a_runtime_held_in_a_debugger_is_not_killed(monkeypatch) -> None:
    """BLOCKPACT_NODE_DEBUG=1 (machine_load.node_held): a runtime stopped or silent in a debugger is waited for, with
    bounds on Node's answers of a week; one that is gone still ends the episode at once."""
    from blockpact.bridge import machine_load

    monkeypatch.setenv("BLOCKPACT_NODE_DEBUG", "1")
    assert machine_load.stretched(8.0) == machine_load.HELD_SECONDS
    node, release, bounds = StandIn(), threading.Event(), []
    node.stopped = True
    dog = RuntimeWatchdog(node, lambda bound: bounds.append(bound) or release.wait(10), lambda: machine_load.stretched(8.0))  # type: ignore[arg-type]

    async def scenario() -> None:
        await _watch_for(dog, 3 * liveness.LIVENESS_POLL_SECONDS)  # it was killed within one
        task = asyncio.ensure_future(dog.watch())
        node.alive, node.end = False, "exited with code 1"  # type: ignore[attr-defined]
        with pytest.raises(BridgeBroken, match="died"):
            await asyncio.wait_for(task, 3 * liveness.LIVENESS_POLL_SECONDS)
        release.set()

    try:
        asyncio.run(scenario())
    finally:
        release.set()
    assert not node.killed and bounds and all(b == machine_load.HELD_SECONDS for b in bounds)
    monkeypatch.setenv("BLOCKPACT_NODE_DEBUG", "0")
    assert not machine_load.node_held() and machine_load.stretched(8.0) < machine_load.HELD_SECONDS
