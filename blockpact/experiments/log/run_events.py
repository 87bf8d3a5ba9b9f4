"""The run's event log: one JSON object per line, appended and flushed as things happen.

Every line carries `seq`, `wall` (Unix seconds), `kind`, the run coordinates that apply
(`condition`, `seed`, `episode`) and `data`. The schema is in EVENTS.md. A line is written with one
`write` call and flushed at once, and the file is fsync'd at the end of every episode, seed and run,
so an interrupted run loses at most its last line, which the reader then skips with a warning.
"""

from __future__ import annotations

import contextvars
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from blockpact.errors import UserError

# Kinds after which the log is forced to disk: the points a rebuilt report can rely on.
DURABLE_KINDS = frozenset({"contract", "meeting_end", "episode_end", "seed_end", "seed_error", "run_resumed", "run_end"})


@dataclass(frozen=True)
class Coords:
    """Where in the run an event belongs; None where it does not apply (e.g. run_start)."""

    condition: str | None = None
    seed: int | None = None
    episode: int | None = None

    def at(self, **changes: Any) -> Coords:
        return Coords(**{**self.__dict__, **changes})


# The unit (and episode) the running task works on: set by the protocol, read by what logs from deep
# inside agents without being handed the coordinates (the LLM client's per-call accounting).
CURRENT_COORDS: contextvars.ContextVar[Coords] = contextvars.ContextVar("blockpact_coords", default=Coords())


@dataclass(frozen=True)
class RunEvent:
    seq: int
    wall: float
    kind: str
    coords: Coords = Coords()
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"seq": self.seq, "wall": self.wall, "kind": self.kind}
        for name in ("condition", "seed", "episode"):
            value = getattr(self.coords, name)
            if value is not None:
                line[name] = value
        line["data"] = self.data
        return line


Listener = Callable[[RunEvent], None]


def _plain(value: Any) -> Any:
    """JSON fallback for values that agents' and the simulator's data may hold (numpy scalars, tuples, sets)."""
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "to_json"):
        return value.to_json()
    return str(value)


class EventWriter:
    """Appends run events to events.jsonl and hands each one to listeners (progress display).
    `last_seq`: the seq of the log's last event when appending to a resumed run's log. The log is
    locked while open, so a resume cannot write into a run that another process is still writing."""

    def __init__(self, path: Path, last_seq: int = 0) -> None:
        self.path = Path(path)
        self._file: IO[str] = open(self.path, "a", encoding="utf-8")
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise UserError(f"{self.path} is being written by another blockpact process (a run still going)") from None
        self._seq = last_seq
        self.listeners: list[Listener] = []

    def emit(self, kind: str, data: Mapping[str, Any] | None = None, coords: Coords = Coords()) -> RunEvent:
        self._seq += 1
        event = RunEvent(self._seq, round(time.time(), 3), kind, coords, dict(data or {}))
        self._file.write(json.dumps(event.to_json(), ensure_ascii=False, default=_plain) + "\n")
        self._file.flush()
        if kind in DURABLE_KINDS:
            os.fsync(self._file.fileno())
        for listener in self.listeners:
            listener(event)
        return event

    def close(self) -> None:
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunLogError(UserError):
    """events.jsonl is damaged somewhere other than its last line."""


@dataclass
class EventsFile:
    events: list[RunEvent]
    warnings: list[str]


def _parse(line: str) -> RunEvent:
    obj = json.loads(line)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    missing = [k for k in ("seq", "wall", "kind") if k not in obj]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    if not isinstance(obj["seq"], int) or not isinstance(obj["kind"], str):
        raise ValueError("seq must be an integer and kind a string")
    data = obj.get("data", {})
    if not isinstance(data, dict):
        raise ValueError("data must be an object")
    coords = Coords(obj.get("condition"), obj.get("seed"), obj.get("episode"))
    return RunEvent(obj["seq"], float(obj["wall"]), obj["kind"], coords, data)


def _lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, whether it ended with a newline)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, start=1):
            yield number, raw.rstrip("\n"), raw.endswith("\n")


def read_events(path: Path) -> EventsFile:
    """All events of a log. A damaged last line (a run stopped mid-write) is skipped with a warning;
    damage anywhere else is an error naming the line, since later lines could not be trusted."""
    path = Path(path)
    rows = list(_lines(path))
    events: list[RunEvent] = []
    warnings: list[str] = []
    for index, (number, text, _) in enumerate(rows):
        if not text.strip():
            continue
        try:
            event = _parse(text)
        except (ValueError, TypeError) as exc:
            if index == len(rows) - 1:
                warnings.append(f"{path}:{number}: last line is incomplete ({exc}); the run was interrupted "
                                "while writing it, so it is ignored")
                break
            raise RunLogError(f"{path}:{number}: damaged event line ({exc})") from None
        if events and event.seq <= events[-1].seq:
            raise RunLogError(f"{path}:{number}: seq {event.seq} does not follow {events[-1].seq}")
        events.append(event)
    if not events:
        raise RunLogError(f"{path}: no events")
    return EventsFile(events, warnings)
