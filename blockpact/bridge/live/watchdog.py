"""The watchdog of the bots' Node runtime during a live episode: a dead, stopped or wedged runtime ends the
episode with cause `bridge` instead of hanging it.

It pings Node from a worker thread once per LIVENESS_POLL_SECONDS (never again at once: back-to-back pings kept
Python and the bots' runtime busy answering them, a third of a core each, which slowed the bots on a loaded
machine). While a ping goes unanswered for UNANSWERED_SECONDS, `answering` is False and the event loop's thread
makes no other call into Node (such a call could block it for node_call_seconds()): the world master skips its
tick, and the watchdog decides.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from blockpact.bridge.runtime import BridgeBroken, NodeRuntime

LIVENESS_POLL_SECONDS = 1.0  # how often the runtime is pinged, and checked to be still there
UNANSWERED_SECONDS = 2.0  # a ping unanswered this long: the loop thread makes no other call into Node


class RuntimeWatchdog:
    """Pings `node` with `ping` (a quick call bounded by `call_seconds()`, run on a worker thread)."""

    def __init__(self, node: NodeRuntime, ping: Callable[[], Any], call_seconds: Callable[[], float]) -> None:
        self.node = node
        self.ping = ping
        self.call_seconds = call_seconds
        self._asked: float | None = None  # monotonic time of the unanswered ping

    @property
    def answering(self) -> bool:
        asked = self._asked
        return asked is None or time.monotonic() - asked < UNANSWERED_SECONDS

    async def watch(self) -> None:
        """Never returns: raises BridgeBroken within LIVENESS_POLL_SECONDS once the runtime is gone or stopped, and
        when it does not answer a ping within call_seconds(); a runtime that stopped answering is killed (and
        restarted for whatever comes next)."""
        node = self.node
        ping: asyncio.Future[Any] | None = None
        asked = 0.0
        try:
            while True:
                if not node.alive:
                    raise BridgeBroken(f"the Node runtime (pid {node.pid}) died ({node.end})")
                if ping is None:
                    ping = asyncio.ensure_future(asyncio.to_thread(self.ping))
                    asked = self._asked = time.monotonic()
                await asyncio.wait([ping], timeout=LIVENESS_POLL_SECONDS)
                if not ping.done():
                    if node.stopped:
                        await asyncio.to_thread(node.kill)
                        raise BridgeBroken(f"the Node runtime (pid {node.pid}) was stopped and answered nothing; it was killed")
                    continue
                self._asked = None
                if ping.exception() is not None and node.alive:
                    await asyncio.to_thread(node.kill)
                    raise BridgeBroken(f"the Node runtime (pid {node.pid}) did not answer within "
                                       f"{self.call_seconds():.0f} s ({ping.exception()}); it was killed") from None
                ping = None
                await asyncio.sleep(max(0.0, asked + LIVENESS_POLL_SECONDS - time.monotonic()))
        finally:
            self._asked = None
            if ping is not None:
                ping.cancel()
