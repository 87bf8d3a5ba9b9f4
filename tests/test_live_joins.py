"""Bots log in a few at a time (bridge/live/joins.py): the server logs players in one after another, and 128 bots
started at once left the last waiting past their bound. Queued joins are not timed; a join under way is, with a
bound that grows with the joins beside it, not with the queue."""

from __future__ import annotations

import asyncio

from blockpact.bridge.live.joins import JoinQueue, join_timeout
from blockpact.bridge.live.settings import live_settings


def test_joins_go_a_few_at_a_time_each_timed_by_the_joins_under_way(monkeypatch) -> None:
    from blockpact.bridge import machine_load

    monkeypatch.setattr(machine_load.os, "getloadavg", lambda: (8.0, 0.0, 0.0))  # not moving during the test
    monkeypatch.setattr(machine_load, "CORES", 2)
    slots = live_settings().bots.join_concurrency
    under_way, most, bounds = 0, 0, []

    async def attempt(spawn_timeout: float) -> str | None:
        nonlocal under_way, most
        under_way += 1
        most = max(most, under_way)
        bounds.append(spawn_timeout)
        await asyncio.sleep(0.01)
        under_way -= 1
        return None

    async def scenario() -> list[str | None]:
        queue = JoinQueue()
        return await asyncio.gather(*(queue.join(attempt) for _ in range(3 * slots)))

    assert asyncio.run(scenario()) == [None] * (3 * slots)
    assert most == slots, most
    assert len(bounds) == 3 * slots and max(bounds) <= join_timeout(slots), (bounds, join_timeout(slots))


def test_a_failed_join_is_tried_again_and_the_last_reason_is_kept(monkeypatch) -> None:
    from blockpact.bridge import machine_load

    monkeypatch.setattr(machine_load.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    monkeypatch.setattr(machine_load, "CORES", 2)
    reasons = iter(["kicked: the server is full", "did not spawn within 30 s", None])
    calls: list[float] = []

    async def flaky(spawn_timeout: float) -> str | None:
        calls.append(spawn_timeout)
        return next(reasons)

    async def never(spawn_timeout: float) -> str | None:
        return f"did not spawn within {spawn_timeout:g} s"

    async def scenario() -> tuple[str | None, str | None]:
        queue = JoinQueue()
        return await queue.join(flaky), await JoinQueue().join(never)

    joined, failed = asyncio.run(scenario())
    attempts = live_settings().bots.join_attempts
    assert joined is None and len(calls) == 3
    assert failed == f"did not spawn within {join_timeout(1):g} s ({attempts} attempts)"
