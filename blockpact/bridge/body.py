"""What every body (a mineflayer bot or a simulator agent) offers: run a program, observe, close."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Body(Protocol):
    player: str

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult: ...

    def observe(self) -> dict[str, Any]: ...

    async def close(self) -> None: ...
