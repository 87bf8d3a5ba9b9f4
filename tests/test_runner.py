"""The Runner API (experiments/play/runner.py) without the command line: a plan in, a run directory and a
typed outcome out; a resume through the same API; what the options change."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.errors import UserError
from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
from blockpact.experiments.play.runner import RunOptions, Runner, run_plan
from blockpact.worlds.world_files import load_world


def _plan(seeds: list[int]) -> RunPlan:
    return RunPlan(load_world("double_vein"), "sim", "scripted", [ConditionSpec("none", "none")], seeds, 1)


def test_a_plan_runs_into_a_directory_with_a_typed_outcome(tmp_path: Path) -> None:
    outcome = run_plan(_plan([0, 1]), tmp_path / "r", plots=False)
    assert outcome.exit_status == 0 and outcome.stop is None and outcome.problem is None
    assert [(u.condition, u.seed, u.status) for u in outcome.units] == [("none", 0, "completed"), ("none", 1, "completed")]
    assert outcome.metrics["conditions"]["none"]["welfare"]["n"] == 2
    assert outcome.run_dir.metrics.is_file() and outcome.run_dir.report.is_file()
    assert not outcome.run_dir.plots.exists()  # plots=False: no figures drawn
    with pytest.raises(UserError, match="already exists"):  # never appends to another run's log
        Runner.create(_plan([0]), tmp_path / "r")


def test_resume_through_the_api_finishes_the_units_not_run(tmp_path: Path) -> None:
    """A log cut after its first unit: Runner.resume plays the second, and the metrics are those of an
    uninterrupted run; a complete run resumes to None (nothing to do)."""
    whole = run_plan(_plan([0, 1]), tmp_path / "whole", plots=False)
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = whole.run_dir.events.read_text().splitlines(keepends=True)
    end_of_first = next(i for i, line in enumerate(lines) if '"kind": "seed_end"' in line)
    (cut / "events.jsonl").write_text("".join(lines[: end_of_first + 1]))
    announced: list[str] = []
    outcome = Runner.resume(cut, RunOptions(plots=False, announce=announced.append))
    assert outcome is not None and outcome.exit_status == 0
    assert [u.status for u in outcome.units] == ["completed", "completed"]
    assert "1 of 2 condition-seed units completed, 1 to run" in announced[0]
    runs = lambda o: [(r["seed"], r["welfare"]) for r in o.metrics["conditions"]["none"]["runs"]]  # noqa: E731
    assert runs(outcome) == runs(whole)
    assert Runner.resume(cut) is None
