"""An organization run read back from events.jsonl alone: its plan (run_start) and, per condition
and seed, the episode's start, pool messages, LLM-call latencies and its end, error or absence.

Status of a seed: `completed` (org_end), `failed` (org_error, with its cause) or `interrupted`
(started or planned, never ended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.experiments.log.run_events import RunEvent, RunLogError, read_events


@dataclass
class OrgEpisode:
    condition: str
    seed: int
    start: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    latencies: list[dict[str, Any]] = field(default_factory=list)
    progress: list[tuple[float, int]] = field(default_factory=list)  # (simulated s, units done), from world events

    @property
    def status(self) -> str:
        if self.end is not None:
            return "completed"
        return "failed" if self.error is not None else "interrupted"


@dataclass
class OrgRun:
    config: dict[str, Any]
    episodes: dict[tuple[str, int], OrgEpisode]
    status: str  # complete | interrupted | unfinished
    warnings: list[str]

    @property
    def conditions(self) -> list[dict[str, Any]]:
        return list(self.config.get("conditions", []))

    def of_condition(self, name: str) -> list[OrgEpisode]:
        return [self.episodes[(name, s)] for s in range(int(self.config.get("seeds", 0)))]

    @property
    def scripted(self) -> bool:
        return self.config.get("agents") != "llm"


def is_org_log(events: list[RunEvent]) -> bool:
    return bool(events) and events[0].kind == "run_start" and events[0].data.get("kind") == "org"


def _legacy_conditions(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Logs written before org runs had several conditions named one structure and mode."""
    if "conditions" in data:
        return list(data["conditions"])
    return [{"name": f"{data.get('structure')}-{data.get('mode')}", "structure": data.get("structure"),
             "mode": data.get("mode"), "organization": data.get("organization", {})}]


class _Progress:
    """Task units done over simulated time, replayed from world events (collect: the task item
    held by anyone; build: task cells holding their block)."""

    def __init__(self, start: dict[str, Any]) -> None:
        items = start.get("items") or ({start["item"]: start.get("total", 0)} if start.get("item") else {})
        self.items: dict[str, int] = {str(k): int(v) for k, v in items.items()}
        self.targets = {tuple(c): b for c, b in start.get("cells", [])}
        self.held: dict[tuple[str, str], int] = {}  # (agent, item) -> count
        self.built: set[tuple[int, ...]] = set()

    def see(self, event: dict[str, Any]) -> int | None:
        kind, data = event.get("kind"), event.get("data", {})
        if kind == "inventory" and data.get("item") in self.items:
            self.held[(str(event.get("agent")), str(data["item"]))] = int(data.get("count", 0))
            return sum(min(n, sum(c for (_, i), c in self.held.items() if i == item)) for item, n in self.items.items())
        if kind == "block" and self.targets:
            cell = tuple(data.get("pos", ()))
            if cell in self.targets:
                (self.built.add if data.get("new") == self.targets[cell] else self.built.discard)(cell)
                return len(self.built)
        return None


def read_org_run(path: Path) -> OrgRun:
    log = read_events(path)
    events = log.events
    if not is_org_log(events):
        raise RunLogError(f"{path}: not an organization run (its first event is not an org run_start)")
    config = dict(events[0].data)
    config["conditions"] = _legacy_conditions(config)
    episodes = {(c["name"], s): OrgEpisode(c["name"], s) for c in config["conditions"] for s in range(int(config.get("seeds", 0)))}
    trackers: dict[tuple[str, int], _Progress] = {}
    status = "unfinished"
    for event in events[1:]:
        c = event.coords
        if event.kind == "run_end":
            status = str(event.data.get("status", "complete"))
        if c.condition is None or c.seed is None:
            continue
        episode = episodes.setdefault((c.condition, c.seed), OrgEpisode(c.condition, c.seed))
        if event.kind == "org_start":
            episode.start = event.data
            trackers[(c.condition, c.seed)] = _Progress(event.data)
            episode.progress = [(0.0, 0)]
        elif event.kind == "org_end":
            episode.end = event.data
        elif event.kind == "org_error":
            episode.error = event.data
        elif event.kind == "message":
            episode.messages.append(event.data)
        elif event.kind == "latency":
            episode.latencies.append(event.data)
        elif event.kind == "world" and (c.condition, c.seed) in trackers:
            done = trackers[(c.condition, c.seed)].see(event.data)
            if done is not None and done != episode.progress[-1][1]:
                episode.progress.append((float(event.data.get("time", 0.0)), done))
    return OrgRun(config, episodes, status, list(log.warnings))
