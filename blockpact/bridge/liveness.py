"""How a wait on the bots' Node runtime notices that the runtime is gone: one policy for the simulator's bodies,
the live bots and the live watchdog.

A wait on Node (a program's report, a callback's answer, a ping) looks at the runtime once per
LIVENESS_POLL_SECONDS: a runtime that died ends the wait within that period with `BridgeBroken`, never after the
wait's own, much longer bound. Whoever waits adds its own checks per poll (a wedged runtime, a deadline)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from blockpact.bridge.runtime import BridgeBroken, NodeRuntime

LIVENESS_POLL_SECONDS = 1.0  # how often a wait on Node checks that the runtime is still there

T = TypeVar("T")


def check_alive(node: NodeRuntime | None, during: str) -> None:
    """Raises BridgeBroken, saying what was going on (`during`, e.g. "while waiting for connect") and how the
    process ended, if `node` (None: never started) is gone."""
    if node is None:
        raise BridgeBroken(f"the Node runtime died {during}")
    if not node.alive:
        raise BridgeBroken(f"the Node runtime died {during} (pid {node.pid}: {node.end})")


async def await_while_alive(future: asyncio.Future[T], node: NodeRuntime | None, during: str, *,
                            timeout: float | None = None,
                            on_poll: Callable[[], Awaitable[None]] | None = None) -> T:
    """`future`'s result, looking at `node` once per LIVENESS_POLL_SECONDS meanwhile: BridgeBroken (check_alive)
    once the runtime is gone, TimeoutError once `timeout` seconds have passed (None: no bound), and `on_poll()`
    (which may raise to end the wait) after each look that found neither. `future` is not cancelled."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while True:
        poll = LIVENESS_POLL_SECONDS if timeout is None else min(LIVENESS_POLL_SECONDS, timeout)
        try:
            return await asyncio.wait_for(asyncio.shield(future), poll)
        except TimeoutError:
            pass
        check_alive(node, during)
        if deadline is not None and loop.time() >= deadline:
            raise TimeoutError(f"no answer {during} within {timeout:g} s")
        if on_poll is not None:
            await on_poll()
