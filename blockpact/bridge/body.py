"""What every body (a mineflayer bot or a simulator agent) offers: run a program, observe, close."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


# Why a program failed (ProgramResult.failure), for callers that sort failures:
FAILURE_KINDS = (
    "program",  # the program's own error (an exception, a syntax error, misuse of a primitive)
    "budget",  # a time budget ran out: simulated time, computing time (simulator) or wall time (live)
    "limit",  # it broke a resource limit, named in ProgramResult.limit (memory, message size, calls, chat)
    "stalled",  # it awaited something that can never happen (no primitive pending, nothing to run)
    "cancelled",  # the caller stopped it (episode over, the run stopped, the bot left or lost its connection)
    "sandbox",  # the sandbox worker could not start or died for a reason of its own
    "bridge",  # the Node runtime or the Python-Node bridge broke (it is restarted for the next program)
)


@dataclass
class ProgramResult:
    """The outcome of one program run, in the form the critic, the judge and the CLI read."""

    player: str
    success: bool
    error: str | None
    error_line: int | None
    stack: str | None
    chat: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    observation: dict[str, Any] = field(default_factory=dict)
    duration: float = 0.0
    timed_out: bool = False
    failure: str | None = None  # one of FAILURE_KINDS when success is False
    limit: str | None = None  # the limit it broke: "budget", "memoryMb", "maxMessageBytes", "maxPendingCalls", ...

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Body(Protocol):
    player: str

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult: ...

    def observe(self) -> dict[str, Any]: ...

    async def close(self) -> None: ...
