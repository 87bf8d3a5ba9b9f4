"""One simulated player's calls from its program, served one at a time in the order they came (each then starts in
its turn on the clock). Stopping, as a stopped bot does, answers the queued calls with a failure and interrupts the
one running, but lets chat lines through: what the program already said (un-awaited bot.chat) is still said."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from blockpact.bridge.sim.run_state import Request


class CallLine:
    """`execute(request)` runs one call and answers it; `refuse(call_id, reason)` answers one with a failure;
    `interrupt(task)` interrupts a running call's task on the simulated clock."""

    def __init__(self, execute: Callable[[Request], Awaitable[None]], refuse: Callable[[int, str], None],
                 interrupt: Callable[[asyncio.Future], None]) -> None:
        self._execute = execute
        self._refuse = refuse
        self._interrupt = interrupt
        self._queue: deque[Request] = deque()
        self._server: asyncio.Task | None = None
        self._current: tuple[Request, asyncio.Future] | None = None

    @property
    def busy(self) -> bool:
        """Whether a call waits or runs: the program is owed an answer."""
        return bool(self._queue) or self._current is not None

    def add(self, request: Request) -> None:
        self._queue.append(request)
        if self._server is None or self._server.done():
            self._server = asyncio.ensure_future(self._serve())

    async def _serve(self) -> None:
        while self._queue:
            request = self._queue.popleft()
            self._current = request, asyncio.ensure_future(self._execute(request))
            await asyncio.wait([self._current[1]])
            self._current = None

    def stop(self, reason: str) -> None:
        """Stop acting: refuse the queued calls but chat, interrupt the running one unless it is chat."""
        kept = deque(r for r in self._queue if r.name == "chat")
        for request in self._queue:
            if request.name != "chat":
                self._refuse(request.call_id, reason)
        self._queue = kept
        if self._current is not None and self._current[0].name != "chat":
            self._interrupt(self._current[1])

    async def finish(self, cancelled: bool) -> None:
        """After a run: let its last chat lines through, unless it was `cancelled` (then drop everything)."""
        self.stop("the program has finished")
        if cancelled:
            while self._queue:
                self._refuse(self._queue.popleft().call_id, "the program has finished")
            if self._current is not None:
                self._interrupt(self._current[1])
        server = self._server
        if server is not None and not server.done():
            await asyncio.gather(server, return_exceptions=True)
