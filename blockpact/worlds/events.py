"""Every change to a world is an event; a run log records them and every metric is derived from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    time: float
    agent: str | None
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object. `data` is the event's own dict, not a deep copy (`dataclasses.asdict`
        cost ~1 s of a simulated run): the run log serialises it at once, and its values are plain JSON
        values (numbers, strings, lists, dicts) that nothing changes after the event is emitted."""
        return {"time": self.time, "agent": self.agent, "kind": self.kind, "data": self.data}


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
