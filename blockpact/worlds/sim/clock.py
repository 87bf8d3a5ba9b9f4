"""The simulator's discrete-event clock.

Agents' programs run concurrently as asyncio tasks. A program that calls a primitive blocks on the
clock until simulated time reaches the primitive's end. Time advances only when no program is
running (all are blocked, waiting for a signal, or finished); then the earliest wake-up is served,
ordered by (time, agent, request order), and the clock waits for that program to block again before
serving the next. So one seed gives one trajectory however the OS schedules the processes behind
the programs (a program may await a Node bridge or an LLM between primitives: the clock waits).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


class EpisodeOver(Exception):
    """Raised inside a program that is still blocked when the episode ends."""


@dataclass(order=True)
class _Wakeup:
    time: float
    rank: int
    seq: int
    agent: str = field(compare=False)
    future: asyncio.Future = field(compare=False)


class Clock:
    def __init__(self, agents: list[str]) -> None:
        self.now = 0.0
        self.rank = {a: i for i, a in enumerate(sorted(agents))}
        self._heap: list[_Wakeup] = []
        self._seq = itertools.count()
        self._running: set[str] = set()
        self._changed = asyncio.Event()
        self._waiting: dict[str, asyncio.Future] = {}
        self.ended = False

    def _check_open(self) -> None:
        if self.ended:
            raise EpisodeOver()

    # -- used by primitives (inside an agent's task) -------------------------------------------
    async def sleep(self, agent: str, seconds: float) -> None:
        """Block `agent` for `seconds` of simulated time."""
        self._check_open()
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, _Wakeup(self.now + max(0.0, seconds), self.rank[agent], next(self._seq), agent, future))
        await self._block(agent, future)

    async def wait_until(self, agent: str, ready: Callable[[], object], timeout: float) -> object:
        """Block `agent` until `ready()` is truthy (re-checked on `notify`) or `timeout` passes."""
        deadline = self.now + timeout
        while True:
            value = ready()
            if value or self.now >= deadline - 1e-12:
                return value
            self._check_open()
            future = asyncio.get_running_loop().create_future()
            self._waiting[agent] = future
            heapq.heappush(self._heap, _Wakeup(deadline, self.rank[agent], next(self._seq), agent, future))
            try:
                await self._block(agent, future)
            finally:
                self._waiting.pop(agent, None)

    def alarm(self, agent: str, at: float) -> asyncio.Future:
        """A future resolved when simulated time reaches `at`, served in `agent`'s turn.

        From then the agent counts as running (time stands still) until it blocks or finishes, so the
        owner can cancel what the agent was doing. Cancel the future when it is no longer needed.
        """
        self._check_open()
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, _Wakeup(max(at, self.now), self.rank[agent], next(self._seq), agent, future))
        return future

    def notify(self, agents: list[str]) -> None:
        """Wake the given agents if they wait in `wait_until` (they re-check their condition now)."""
        for agent in sorted(agents, key=self.rank.__getitem__):
            future = self._waiting.get(agent)
            if future is not None and not future.done():
                heapq.heappush(self._heap, _Wakeup(self.now, self.rank[agent], next(self._seq), agent, future))

    def interrupt(self, agent: str, task: asyncio.Future) -> None:
        """Cancel `task`, one of `agent`'s, which may be blocked here. Its wake-up is dropped at once, but the task
        only resumes (and counts as running again) at its next step: a main loop served in between would see the
        agent neither running nor due to wake and end the episode. So it counts as running from now on."""
        self._running.add(agent)
        task.cancel()

    async def _block(self, agent: str, future: asyncio.Future) -> None:
        self._running.discard(agent)
        self._changed.set()
        try:
            await future
        finally:
            self._running.add(agent)

    # -- used by the simulator's main loop -----------------------------------------------------
    def reopen(self) -> None:
        """A new batch of programs starts (after `end` stopped the previous one at its `until`)."""
        self.ended = False

    def started(self, agent: str) -> None:
        self._running.add(agent)

    def finished(self, agent: str) -> None:
        self._running.discard(agent)
        self._changed.set()

    async def quiescent(self) -> None:
        """Return once no agent program is running."""
        while self._running:
            self._changed.clear()
            await self._changed.wait()

    def next_time(self) -> float | None:
        self._drop_stale()
        return self._heap[0].time if self._heap else None

    def _drop_stale(self) -> None:
        while self._heap and self._heap[0].future.done():
            heapq.heappop(self._heap)

    def wake_next(self) -> str | None:
        """Serve the earliest wake-up; returns the agent woken."""
        self._drop_stale()
        if not self._heap:
            return None
        wakeup = heapq.heappop(self._heap)
        self.now = max(self.now, wakeup.time)
        self._running.add(wakeup.agent)
        wakeup.future.set_result(None)
        return wakeup.agent

    def end(self) -> None:
        """Fail every pending wake-up with `EpisodeOver`; later sleeps and waits fail at once (a
        controller that goes on after the end must not block a loop that no longer serves it)."""
        self.ended = True
        for wakeup in self._heap:
            if not wakeup.future.done():
                wakeup.future.set_exception(EpisodeOver())
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(EpisodeOver())
        self._heap.clear()
