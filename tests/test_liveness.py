"""The one liveness policy of waits on Node (bridge/liveness.py): a wait ends with BridgeBroken within a poll of
the runtime's death, with its own bound as TimeoutError, and runs its caller's per-poll check meanwhile.

The runtime is a stand-in with what the policy reads of a NodeRuntime (alive, pid, end); a real runtime killed
during a wait is tests/test_sandbox_limits.py and tests/test_live_primitives.py."""

from __future__ import annotations

import asyncio
import time

import pytest

from blockpact.bridge import liveness
from blockpact.bridge.liveness import await_while_alive, check_alive
from blockpact.bridge.runtime import BridgeBroken

from harness.pace import scaled


class StandIn:
    pid = 4242
    end = "killed by SIGKILL"

    def __init__(self) -> None:
        self.alive = True


def test_a_dead_runtime_is_named_with_what_was_waited_for_and_how_it_ended() -> None:
    node = StandIn()
    check_alive(node, "while waiting for connect")  # type: ignore[arg-type]
    node.alive = False
    with pytest.raises(BridgeBroken, match=r"^the Node runtime died while waiting for connect \(pid 4242: killed by SIGKILL\)$"):
        check_alive(node, "while waiting for connect")  # type: ignore[arg-type]
    with pytest.raises(BridgeBroken, match=r"^the Node runtime died during program run A-1$"):
        check_alive(None, "during program run A-1")


def test_a_wait_returns_the_answer_and_leaves_the_future_alone() -> None:
    async def scenario() -> tuple[str, asyncio.Future[str]]:
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, answer.set_result, "ok")
        return await await_while_alive(answer, StandIn(), "while waiting for ping"), answer  # type: ignore[arg-type]

    said, answer = asyncio.run(scenario())
    assert said == "ok" and answer.done() and not answer.cancelled()


def test_a_runtime_that_dies_ends_the_wait_within_a_poll(monkeypatch) -> None:
    monkeypatch.setattr(liveness, "LIVENESS_POLL_SECONDS", 0.1)
    node = StandIn()

    async def scenario() -> tuple[float, bool]:
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.25, setattr, node, "alive", False)
        begun = time.monotonic()
        with pytest.raises(BridgeBroken, match=r"died while waiting for run \(pid 4242"):
            await await_while_alive(answer, node, "while waiting for run")  # type: ignore[arg-type]
        return time.monotonic() - begun, answer.cancelled()

    took, cancelled = asyncio.run(scenario())
    assert 0.25 <= took < 0.25 + scaled(3 * 0.1), took
    assert not cancelled  # the caller decides what becomes of what it waited for


def test_the_bound_of_a_wait_is_a_timeout_and_each_poll_runs_the_callers_check(monkeypatch) -> None:
    monkeypatch.setattr(liveness, "LIVENESS_POLL_SECONDS", 0.1)
    polls: list[float] = []

    async def check() -> None:
        polls.append(time.monotonic())

    async def scenario() -> float:
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        begun = time.monotonic()
        with pytest.raises(TimeoutError, match="within 0.35 s"):
            await await_while_alive(answer, StandIn(), "while waiting for run", timeout=0.35, on_poll=check)  # type: ignore[arg-type]
        return time.monotonic() - begun

    took = asyncio.run(scenario())
    assert 0.35 <= took < 0.35 + scaled(3 * 0.1), took
    assert 2 <= len(polls) <= 3, polls  # at 0.1, 0.2, 0.3 s (later on a busy machine); not once the bound had passed


def test_a_callers_check_that_raises_ends_the_wait(monkeypatch) -> None:
    monkeypatch.setattr(liveness, "LIVENESS_POLL_SECONDS", 0.05)

    async def wedged() -> None:
        raise BridgeBroken("the Node runtime did not answer; it was restarted")

    async def scenario() -> None:
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        await await_while_alive(answer, StandIn(), "during program run A-1", on_poll=wedged)  # type: ignore[arg-type]

    with pytest.raises(BridgeBroken, match="did not answer"):
        asyncio.run(scenario())
