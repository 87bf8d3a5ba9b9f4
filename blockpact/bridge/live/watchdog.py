"""The watchdog of the bots' Node runtime during a live episode: a dead, stopped or wedged runtime ends the
episode with cause `bridge` instead of hanging it.

It pings Node from a worker thread once per liveness poll (liveness.py; never again at once: back-to-back pings kept
Python and the bots' runtime busy answering them, a third of a core each, which slowed the bots on a loaded
machine). While a ping goes unanswered for UNANSWERED_SECONDS, `answering` is False and the event loop's thread
makes no other call into Node (such a call could block it for node_call_seconds()): the world master skips its
tick, and the watchdog decides.

How long a ping may go unanswered grows with how late the runtime says its main thread has been running: each
ping's answer is that lateness. A runtime of 64 bots whose programs start together runs 9-18 s late for minutes
while every bot walks; on a machine that was idle a minute before, the load average (which `call_seconds()`
follows) has not caught up yet, and a fixed 8 s bound killed that merely slow runtime (bench/live_scale.py's
intermittent "runtime gone" with one runtime, issue 18). A wedged runtime answers nothing and is still killed,
after at most LATE_FACTOR times the lateness it last showed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from blockpact.bridge import liveness
from blockpact.bridge.liveness import check_alive
from blockpact.bridge.machine_load import node_held
from blockpact.bridge.runtime import BridgeBroken, NodeRuntime

UNANSWERED_SECONDS = 2.0  # a ping unanswered this long: the loop thread makes no other call into Node
LATE_FACTOR = 3.0  # a call may take this many times the longest lateness the runtime showed lately
LATE_MEMORY_SECONDS = 60.0  # how long a lateness the runtime showed counts
LATE_NOTE_SECONDS = 2.0  # a runtime's stall this long during an episode's programs is said (lateness_note)


def lateness_note(late: float) -> str | None:
    """What a user is told of an episode whose bots' runtime ran `late` seconds behind at worst (None: nothing worth
    it). Under a load of 15-19 on 2 cores a 40 s episode's programs acted for ~28 s of it and the seed read as a
    normal one with a fifth of its usual welfare: it still happened, and is kept, but said."""
    if late < LATE_NOTE_SECONDS:
        return None
    return (f"the bots' Node runtime stalled for up to {late:.1f} s at a time during this episode's programs (a busy "
            "machine): its bots acted late, and its numbers are those of a slowed episode")


class RuntimeWatchdog:
    """Pings `node` with `ping(bound)` (a quick call bounded by `bound` seconds, run on a worker thread) that answers
    how late, in seconds, Node's main thread ran since the last ping."""

    def __init__(self, node: NodeRuntime, ping: Callable[[float], Any], call_seconds: Callable[[], float]) -> None:
        self.node = node
        self.ping = ping
        self.call_seconds = call_seconds
        self._asked: float | None = None  # monotonic time of the unanswered ping
        self._late: deque[tuple[float, float]] = deque()  # (when, seconds late) the runtime showed
        self.worst_late = 0.0  # its longest stall, in seconds, since this was last set to 0 (a batch of programs started)

    def bound(self) -> float:
        """How long a quick call into Node may take before Node counts as wedged: `call_seconds()`, or LATE_FACTOR
        times the longest lateness the runtime showed in the last LATE_MEMORY_SECONDS if that is longer."""
        now = time.monotonic()
        while self._late and now - self._late[0][0] > LATE_MEMORY_SECONDS:
            self._late.popleft()
        return max(self.call_seconds(), LATE_FACTOR * max((late for _, late in self._late), default=0.0))

    def _answered(self, said: Any) -> None:
        """A ping's answer: how late Node measured its main thread ran (a thread blocked for s seconds makes its
        next timer s seconds late). Not the answer's own time, which a busy Python process lengthens too."""
        if isinstance(said, int | float):
            self._late.append((time.monotonic(), float(said)))
            self.worst_late = max(self.worst_late, float(said))

    @property
    def answering(self) -> bool:
        asked = self._asked
        return asked is None or time.monotonic() - asked < UNANSWERED_SECONDS

    async def watch(self) -> None:
        """Never returns: raises BridgeBroken within a liveness poll once the runtime is gone or stopped, and
        when it does not answer a ping within call_seconds(); a runtime that stopped answering is killed (and
        restarted for whatever comes next). With BLOCKPACT_NODE_DEBUG a stopped runtime is waited for, and
        call_seconds() is a week (machine_load.node_held): only a runtime that is gone ends the episode."""
        node = self.node
        ping: asyncio.Future[Any] | None = None
        asked = 0.0
        try:
            while True:
                check_alive(node, "while watched")
                if ping is None:
                    bound = self.bound()
                    ping = asyncio.ensure_future(asyncio.to_thread(self.ping, bound))
                    asked = self._asked = time.monotonic()
                await asyncio.wait([ping], timeout=liveness.LIVENESS_POLL_SECONDS)
                if not ping.done():
                    if node.stopped and not node_held():  # BLOCKPACT_NODE_DEBUG: a debugger may stop it
                        await asyncio.to_thread(node.kill)
                        raise BridgeBroken(f"the Node runtime (pid {node.pid}) was stopped and answered nothing; it was killed")
                    continue
                self._asked = None
                if ping.exception() is not None and node.alive:
                    await asyncio.to_thread(node.kill)
                    raise BridgeBroken(f"the Node runtime (pid {node.pid}) did not answer within "
                                       f"{bound:.0f} s ({ping.exception()}); it was killed") from None
                if ping.exception() is None:
                    self._answered(ping.result())
                ping = None
                await asyncio.sleep(max(0.0, asked + liveness.LIVENESS_POLL_SECONDS - time.monotonic()))
        finally:
            self._asked = None
            if ping is not None:
                ping.cancel()
