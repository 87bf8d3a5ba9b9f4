"""`blockpact sweep`: a study's units run as independent pieces, each into its own run directory,
with one index on the driver.

A unit is played where a worker is (a local process, or a Ray worker on any machine) by
`play_unit`, which needs only the unit itself. The driver skips units whose run directory says they
finished, redoes from scratch those cut short, and records every outcome in `index.json` as it
arrives, so an interrupted sweep re-run picks up where it stopped.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.experiments.log.rundir import SWEEP_INDEX as INDEX
from blockpact.experiments.studies.study import Study, Unit
from blockpact.numbers import tidy

# A unit's outcome: "complete" (every seed finished), "error" (the run ended, a seed failed: recorded in
# its events), "failed" (no run: the unit could not start or crashed), "interrupted".
FINISHED = ("complete", "error")


@dataclass
class UnitResult:
    id: str
    dir: str  # relative to the sweep directory
    status: str
    seconds: float
    error: str | None = None
    welfare: dict[str, float | None] | None = None  # per condition, the seed's welfare (None: the seed failed)
    worker: str | None = None  # host:pid that played it
    cpu_s: float | None = None  # CPU seconds the unit took: its worker's Python and the worker's Node runtime

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


UNIT_ERROR = "unit_error.txt"  # in a unit's directory: its worker failed (the error and traceback)


def unit_status(run_root: Path) -> str | None:
    """What a unit's run directory says: its outcome if it finished, None if absent or cut short; "error" when its
    worker failed (UNIT_ERROR), even after metrics.json was written (e.g. by the report)."""
    if (run_root / UNIT_ERROR).is_file():
        return "error"
    metrics = run_root / "metrics.json"
    if not metrics.is_file():
        return None
    try:
        data = json.loads(metrics.read_text(encoding="utf-8"))
    except ValueError:
        return None
    if data.get("status") not in ("complete", "stopped"):  # stopped: its LLM budget was spent (a failure)
        return None
    if data.get("status") == "stopped" or data.get("all_completed") is False:
        return "error"
    return "error" if any(c.get("failures") or c.get("errors") for c in data.get("conditions", {}).values()) else "complete"


def _welfare(run_root: Path) -> dict[str, float | None]:
    data = json.loads((run_root / "metrics.json").read_text(encoding="utf-8"))
    return {name: (c["runs"][0]["welfare"] if c.get("runs") else None) for name, c in data["conditions"].items()}


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and by its Node runtime (a child that lives on between units,
    so its time is read from /proc; 0 where there is none or no /proc)."""
    used = time.process_time()
    bridge = sys.modules.get("blockpact.bridge.runtime")
    node = getattr(bridge, "_runtime", None) if bridge is not None else None
    if node is not None and not node._closed:
        try:
            fields = Path(f"/proc/{node._proc.pid}/stat").read_text().rpartition(")")[2].split()
            used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        except (OSError, ValueError, IndexError):
            pass
    return used


def play_unit(unit: Unit, run_root: Path) -> UnitResult:
    """Play one unit into `run_root` (a fresh directory) and report how it ended. Runs in a worker."""
    from blockpact.experiments.plan.llm_record import settings_from_record
    from blockpact.experiments.play.runner import RunOptions, Runner
    from blockpact.experiments.plan.scenario_run import scenario_plan
    from blockpact.worlds.world_files import load_world

    started, cpu = time.monotonic(), cpu_seconds()
    worker = f"{os.uname().nodename}:{os.getpid()}"
    rel = str(unit.dir)
    try:
        with tempfile.TemporaryDirectory(prefix="blockpact-unit-") as tmp:
            world_file = Path(tmp) / f"{unit.world_name}.toml"
            world_file.write_text(unit.world_text, encoding="utf-8")
            scenario = dataclasses.replace(unit.scenario, world=str(world_file))
            spec = load_world(world_file)
            llm = settings_from_record(unit.llm) if unit.llm is not None else None
            plan = scenario_plan(scenario, spec, llm)
            # SVG plots only when the study asks
            outcome = Runner.create(plan, run_root, RunOptions(plots=unit.plots, signals=False)).run()
        if outcome.stop is not None:
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        return UnitResult(unit.id, rel, "interrupted", time.monotonic() - started, "interrupted", worker=worker)
    except Exception as exc:  # the unit is a failure to report; the sweep goes on
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        if run_root.is_dir():  # its directory may hold a metrics.json that reads complete: it is not
            (run_root / UNIT_ERROR).write_text(error, encoding="utf-8")
        return UnitResult(unit.id, rel, "failed", time.monotonic() - started, error, worker=worker)
    status = unit_status(run_root) or "interrupted"
    return UnitResult(unit.id, rel, status, time.monotonic() - started, _problem(run_root) if status == "error" else None,
                      welfare=_welfare(run_root), worker=worker, cpu_s=round(cpu_seconds() - cpu, 3))


def _problem(run_root: Path) -> str:
    """Why a finished unit is an error, from its metrics.json: each failed seed's cause and first message."""
    data = json.loads((run_root / "metrics.json").read_text(encoding="utf-8"))
    lines = [f"{name}: {cause} (seeds {', '.join(map(str, f.get('seeds', [])))}): {f.get('first_message', '')}"
             for name, c in data.get("conditions", {}).items() for cause, f in (c.get("failures") or {}).items()]
    if not lines:
        lines = [f"{name} seed {e.get('seed')}: {e.get('cause')}: {e.get('error')}"
                 for name, c in data.get("conditions", {}).items() for e in c.get("errors") or []]
    return "; ".join(lines) or f"status {data.get('status')}, not every unit completed"


class Index:
    """index.json of a sweep: the study, and every unit's latest outcome (written after each one)."""

    def __init__(self, root: Path, study: Study) -> None:
        self.root = root
        self.path = root / INDEX
        self.study = study
        self.units: dict[str, dict[str, Any]] = {}
        if self.path.is_file():
            self.units = json.loads(self.path.read_text(encoding="utf-8")).get("units", {})

    def record(self, result: UnitResult) -> None:
        self.units[result.id] = result.to_json()
        self.write()

    def note_finished(self, unit: Unit, run_root: Path) -> None:
        """A unit found finished in its directory (e.g. one that ended while a sweep was being interrupted)."""
        status = unit_status(run_root)
        if status is not None and self.units.get(unit.id, {}).get("status") != status:
            self.units[unit.id] = UnitResult(unit.id, str(unit.dir), status, 0.0, welfare=_welfare(run_root)).to_json()

    def write(self) -> None:
        doc = {"study": self.study.name, "study_file": str(self.study.path), "study_text": self.study.text,
               "units": self.units}
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(tidy(doc), indent=2, allow_nan=False) + "\n", encoding="utf-8")
        tmp.replace(self.path)


def plan_sweep(root: Path, units: Iterable[Unit], retry_errors: bool = False) -> tuple[list[Unit], list[Unit]]:
    """(to run, skipped). A unit whose run finished is skipped (one whose seed failed too, unless
    `retry_errors`); a directory cut short is removed: its unit runs again from the start."""
    todo, skipped = [], []
    for unit in units:
        run_root = root / unit.dir
        status = unit_status(run_root)
        if status == "complete" or (status == "error" and not retry_errors):
            skipped.append(unit)
            continue
        if run_root.exists():
            shutil.rmtree(run_root)
        todo.append(unit)
    return todo, skipped
