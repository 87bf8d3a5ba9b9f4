"""SIGTERM handled as Ctrl-C: what `timeout`, Slurm and most schedulers send must leave the same valid
log, metrics.json and report of what finished as an interrupt, and say how to resume.

Inside the event loop, SIGTERM cancels the run's main task (as asyncio.run does for SIGINT), so every
`finally` runs and the protocol writes `run_end` with status "interrupted"; outside it, the handler
raises `Terminated`, a KeyboardInterrupt, which the same code paths already handle.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

from blockpact.experiments.play.exit_codes import SIGINT, SIGTERM

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""


@dataclass(frozen=True)
class Stop:
    word: str  # "interrupted" | "terminated (SIGTERM)"
    code: int


class SigtermAsInterrupt:
    """Context manager: SIGTERM stops the run like SIGINT while it is active (main thread only)."""

    def __init__(self) -> None:
        self.terminated = False
        self._previous: Any = None
        self._active = False

    def _raise(self, signum: int, frame: FrameType | None) -> None:
        self.terminated = True
        raise Terminated()

    def __enter__(self) -> SigtermAsInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._raise)
            self._active = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._active:
            signal.signal(signal.SIGTERM, self._previous if self._previous is not None else signal.SIG_DFL)
            self._active = False

    async def guard(self, body: Coroutine[Any, Any, T]) -> T:
        """Run `body`; a SIGTERM meanwhile cancels it (its `finally` blocks run) instead of killing the loop."""
        if not self._active:
            return await body
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def cancel() -> None:
            self.terminated = True
            task.cancel()

        loop.add_signal_handler(signal.SIGTERM, cancel)
        try:
            return await body
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, self._raise)  # remove_signal_handler left the default behind

    def stop_of(self, exc: BaseException) -> Stop:
        if self.terminated or isinstance(exc, Terminated):
            return Stop("terminated (SIGTERM)", SIGTERM)
        if isinstance(exc, asyncio.CancelledError):
            raise exc  # cancelled by something other than a signal: not ours to swallow
        return Stop("interrupted", SIGINT)


class HeldSignals:
    """Context manager: SIGINT and SIGTERM are noted, not raised, while a stop that must not be cut short runs
    (a pool's workers being stopped); `hurry()` says whether one came, so that stop can cut its waits short."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self._previous: dict[int, Any] = {}

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.seen.append(signum)

    def hurry(self) -> bool:
        return bool(self.seen)

    @property
    def terminated(self) -> bool:
        return signal.SIGTERM in self.seen

    def __enter__(self) -> HeldSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()
