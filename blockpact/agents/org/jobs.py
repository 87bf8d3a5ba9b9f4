"""A job: a unit of work one agent can be given ("collect 17 oak_log", "place stone at ...").

Jobs travel in pool commands as JSON next to their text, and LLM leaders write them as text, so
both directions are defined here: `Job.text()` and `Job.parse(text)`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from blockpact.worlds.spec.schema import Vec

COLLECT = "collect"
PLACE = "place"
_COLLECT_TEXT = re.compile(r"\b(?:collect|mine|gather|get)\s+(\d+)\s+([a-z_]+)", re.IGNORECASE)
_PLACE_TEXT = re.compile(r"\bplace\s+([a-z_]+)\s+at\s+(.+)", re.IGNORECASE)
_POSITION = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


@dataclass(frozen=True)
class Job:
    id: str
    verb: str  # collect | place
    item: str
    count: int
    positions: tuple[Vec, ...] = ()

    def text(self) -> str:
        if self.verb == PLACE:
            return f"place {self.item} at " + ", ".join(f"({x}, {y}, {z})" for x, y, z in self.positions)
        return f"collect {self.count} {self.item}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "verb": self.verb, "item": self.item, "count": self.count,
                "positions": [list(p) for p in self.positions]}

    @classmethod
    def from_json(cls, data: Any) -> Job:
        if not isinstance(data, dict):
            raise ValueError(f"a job must be a JSON object, not {type(data).__name__}")
        try:
            positions = tuple(tuple(int(v) for v in p) for p in data.get("positions", []))
            job = cls(str(data["id"]), str(data["verb"]), str(data["item"]), int(data["count"]), positions)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed job {data!r}: {exc}") from None
        if job.verb not in (COLLECT, PLACE) or job.count < 1:
            raise ValueError(f"malformed job {data!r}: verb must be collect or place and count positive")
        return job

    @classmethod
    def parse(cls, text: str, job_id: str) -> Job | None:
        """The job a sentence asks for ("collect 17 oak_log", "place stone at (1, 2, 3), ..."), if any."""
        placed = _PLACE_TEXT.search(text)
        if placed:
            positions = tuple((int(x), int(y), int(z)) for x, y, z in _POSITION.findall(placed.group(2)))
            if positions:
                return cls(job_id, PLACE, placed.group(1).lower(), len(positions), positions)
        collected = _COLLECT_TEXT.search(text)
        if collected and int(collected.group(1)) > 0:
            return cls(job_id, COLLECT, collected.group(2).lower(), int(collected.group(1)))
        return None

    def rest(self, done: int, job_id: str) -> Job | None:
        """What is left after `done` units (collect) or the first `done` placements were made."""
        if done >= self.count:
            return None
        if self.verb == PLACE:
            return replace(self, id=job_id, count=self.count - done, positions=self.positions[done:])
        return replace(self, id=job_id, count=self.count - done)


def split(job: Job, weights: Sequence[int], ids: Sequence[str]) -> list[Job | None]:
    """`job` shared in proportion to `weights` (largest remainders; a zero share is None)."""
    total = sum(weights)
    if total <= 0:
        raise ValueError("split needs a positive weight")
    exact = [job.count * w / total for w in weights]
    shares = [int(e) for e in exact]
    for i in sorted(range(len(weights)), key=lambda i: (shares[i] - exact[i], i))[: job.count - sum(shares)]:
        shares[i] += 1
    parts: list[Job | None] = []
    start = 0
    for share, job_id in zip(shares, ids, strict=True):
        if share == 0:
            parts.append(None)
        elif job.verb == PLACE:
            parts.append(replace(job, id=job_id, count=share, positions=job.positions[start:start + share]))
        else:
            parts.append(replace(job, id=job_id, count=share))
        start += share
    return parts
