"""What the simulator body keeps of one program run (`Run`) and of one call waiting its turn (`Request`), and how the
host's own work for a call is measured (`timed`), charged to the program's compute budget in Node."""

from __future__ import annotations

import asyncio
import time
import types
from collections.abc import Coroutine, Generator
from dataclasses import dataclass, field
from typing import Any

from blockpact.bridge.sim.bounds import InstantCounter


def timed(coro: Coroutine[Any, Any, Any], spent: list[float]) -> Coroutine[Any, Any, Any]:
    """`coro`, adding to spent[0] the CPU seconds of this thread each of its steps takes (the time between its
    awaits, not the waits): the host's own work for one call, whatever other tasks run meanwhile."""

    @types.coroutine
    def steps() -> Generator[Any, Any, Any]:
        value: Any = None
        error: BaseException | None = None
        while True:
            started = time.thread_time()
            try:
                step = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as stop:
                spent[0] += time.thread_time() - started
                return stop.value
            except BaseException:
                spent[0] += time.thread_time() - started
                raise
            spent[0] += time.thread_time() - started
            try:
                value, error = (yield step), None
            except BaseException as exc:  # cancellation and interrupts go on into the call
                value, error = None, exc

    return steps()


@dataclass
class Run:
    """One program run, as Python follows it."""

    id: str
    done: asyncio.Future
    started: float
    first_event: int
    cancel_reason: str | None = None
    alarm: asyncio.Future | None = None
    compute_budget_ms: int = 0
    cancel_kind: str = "cancelled"  # ProgramResult.failure of a run Python cancelled
    cancel_limit: str | None = None
    finished: bool = False
    last_exchange: float = 0.0  # loop time of the last request from Node or answer to it
    calls: InstantCounter | None = None  # primitive calls per instant of simulated time
    budget_since: float = 0.0  # simulated time the compute budget last started again (it counts per instant)


@dataclass
class Request:
    call_id: int
    name: str
    args: list[Any] = field(default_factory=list)
