"""Where an interrupted run stands, read from its events.jsonl alone, and the repairs a resume makes
before appending to it.

A (condition, seed) unit is finished when it completed (its seed_end says so); every other unit (failed,
interrupted or never started) is redone
from its start (contract, then every episode), so a finished unit's negotiated contract is kept and
a half-done unit's partial events are superseded (listed in the run_resumed event, which the records
honour). Nothing is changed until `ResumePoint` has found the log usable.
"""

from __future__ import annotations

import dataclasses

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.experiments.plan.run_plan import RunPlan, Unit
from blockpact.experiments.log.records import RunRecord, build_run
from blockpact.experiments.log.run_events import read_events
from blockpact.experiments.log.rundir import RunDir
from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class DroppedLine:
    """A torn last line cut off the log: the run stopped while writing it."""

    line: int
    text: str
    size: int  # bytes

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "bytes": self.size, "text": self.text}


@dataclass(frozen=True)
class ResumePoint:
    run_dir: RunDir
    run: RunRecord
    last_seq: int
    torn: bool  # the last line is incomplete (read_events skipped it)

    @classmethod
    def of(cls, run_dir: RunDir) -> ResumePoint:
        """Raises UserError (RunLogError) when the log is damaged before its last line or has no run_start."""
        read = read_events(run_dir.events)
        run = build_run(read.events, read.warnings)
        return cls(run_dir, run, read.events[-1].seq, bool(read.warnings))

    @property
    def planned(self) -> list[Unit]:
        c = self.run.config
        return [(condition, seed) for condition in c.conditions for seed in c.seeds]

    @property
    def pending(self) -> list[Unit]:
        """The units that did not complete (no seed_end, or a failed one: an outage is no result), in the
        order the run plays them."""
        finished = {(s.condition, s.seed) for s in self.run.seeds if s.completed}
        return [(c, seed) for c, seed in self.planned if (c.name, seed) not in finished]

    @property
    def superseded(self) -> list[Unit]:
        """Pending units that had started: their events so far are replaced by the redo."""
        started = {(s.condition, s.seed) for s in self.run.seeds}
        return [(c, seed) for c, seed in self.pending if (c.name, seed) in started]

    @property
    def complete(self) -> bool:
        return self.run.status == "complete" and not self.pending

    def plan(self) -> RunPlan:
        c = self.run.config
        return RunPlan(recorded_world(self.run), c.backend, c.agents, c.conditions, c.seeds, c.episodes, c.llm, c.live,
                       c.population, c.judge, c.scenario)


def recorded_world(run: RunRecord) -> WorldSpec:
    """The world as the run loaded it: from the source text in run_start, not the file as it is now."""
    from blockpact.worlds.world_files import load_world

    c = run.config
    if not c.world_source:
        raise UserError("run_start holds no world source text: this run cannot be resumed")
    with tempfile.TemporaryDirectory(prefix="blockpact-resume-") as tmp:
        path = Path(tmp) / f"{Path(c.world).name}.toml"
        path.write_text(c.world_source, encoding="utf-8")
        spec = load_world(path, c.versions.get("minecraft"))
    if c.scenario and c.scenario.get("groups") is not None:  # a scenario's [[groups]] in effect in the run
        from blockpact.experiments.plan.scenario_groups import groups_from_record

        spec = dataclasses.replace(spec, groups=groups_from_record(c.scenario["groups"]))
    return spec


def repair_tail(path: Path, torn: bool) -> DroppedLine | None:
    """Make the log end with a whole line, so appended events start on their own line: cut a torn last
    line off (returned, for the run_resumed event), or add the newline a whole last line lacks."""
    data = path.read_bytes()
    body = data[:-1] if data.endswith(b"\n") else data
    start = body.rfind(b"\n") + 1
    if torn:
        dropped = DroppedLine(data[:start].count(b"\n") + 1, data[start:].decode("utf-8", errors="replace"),
                              len(data) - start)
        with open(path, "r+b") as f:
            f.truncate(start)
            os.fsync(f.fileno())
        return dropped
    if data and not data.endswith(b"\n"):
        with open(path, "ab") as f:
            f.write(b"\n")
            os.fsync(f.fileno())
    return None


def set_aside_skills(run_dir: RunDir, units: list[Unit], after_seq: int) -> list[str]:
    """Move the skill libraries of redone units under superseded/, so each redo starts with the empty
    libraries its first attempt had (and its LLM requests match the cached ones)."""
    moved = []
    for condition, seed in units:
        source = run_dir.unit_skills(condition.name, seed)
        if not source.exists():
            continue
        target = run_dir.superseded / f"after-seq-{after_seq}" / source.relative_to(run_dir.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)
        moved.append(str(target.relative_to(run_dir.root)))
    return moved


def unit_json(units: list[Unit]) -> list[dict[str, Any]]:
    return [{"condition": c.name, "seed": seed} for c, seed in units]
