"""Every change to a world is an event; a run log records them and every metric is derived from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    time: float
    agent: str | None
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[Event], None]


class EventLog:
    """Keeps the events of one world in order and passes each to listeners (e.g. a run's events.jsonl)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.listeners: list[Listener] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def of_kind(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]
