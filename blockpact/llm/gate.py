"""Bounds on LLM requests in flight per endpoint, shared by every process of a sweep.

One client bounds its own requests (`max_concurrent_requests`); a sweep runs many clients in many
processes, or on many machines, against the same endpoint. A gate installed for an endpoint's base
URL makes every request to it wait for a slot first: a multiprocessing semaphore for a local
process pool, a Ray actor on a cluster. Without a gate, requests go straight out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
POLL_SECONDS = 0.02


class Gate(Protocol):
    async def acquire(self) -> None: ...
    async def release(self) -> None: ...


_GATES: dict[str, Gate] = {}


def _key(base_url: str) -> str:
    return base_url.rstrip("/")


def install(base_url: str, gate: Gate) -> None:
    _GATES[_key(base_url)] = gate


def uninstall_all() -> None:
    _GATES.clear()


async def gated(base_url: str, send: Callable[[], Awaitable[T]]) -> T:
    gate = _GATES.get(_key(base_url))
    if gate is None:
        return await send()
    await gate.acquire()
    try:
        return await send()
    finally:
        await gate.release()


class SemaphoreGate:
    """A `multiprocessing` semaphore (a Manager proxy, shared by a process pool's workers). Acquiring
    polls without blocking, so a waiting request never ties up a thread or the event loop."""

    def __init__(self, semaphore: Any) -> None:
        self.semaphore = semaphore

    async def acquire(self) -> None:
        while not self.semaphore.acquire(False):
            await asyncio.sleep(POLL_SECONDS)

    async def release(self) -> None:
        self.semaphore.release()
