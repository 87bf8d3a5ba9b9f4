"""The organization Runner API (experiments/play/org/run.py) without the command line: an OrgPlan in, a run
directory and a typed outcome out, as the benches use it; what the exit status says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import load_task
from blockpact.errors import UserError
from blockpact.experiments.play import exit_codes
from blockpact.experiments.play.org.run import OrgOutcome, OrgPlan, OrgRunner, conditions_of, run_org_plan
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.play.stopping import Stop


def _plan(modes: list[str], seeds: int = 1) -> OrgPlan:
    return OrgPlan(load_task("collect-logs", 4), conditions_of([("toa", organization("toa", 1))], modes), seeds)


def test_a_plan_runs_into_a_directory_with_a_typed_outcome(tmp_path: Path) -> None:
    outcome = run_org_plan(_plan(["async", "relay"]), tmp_path / "r", plots=False)
    assert outcome.exit_status == exit_codes.OK and outcome.stop is None and outcome.signal is None
    assert outcome.failure_causes == [] and list(outcome.metrics["conditions"]) == ["toa-async", "toa-relay"]
    assert json.loads(outcome.run_dir.metrics.read_text()) == outcome.metrics and outcome.run_dir.report.is_file()
    assert not outcome.run_dir.plots.exists()  # plots=False: no figures drawn
    start = json.loads(outcome.run_dir.events.read_text().splitlines()[0])
    assert start["data"]["agents"] == "scripted" and start["data"]["seeds"] == 1
    with pytest.raises(UserError, match="already exists"):  # never appends to another run's log
        OrgRunner.create(_plan(["async"]), tmp_path / "r")


def test_a_plan_that_could_only_fail_is_refused_before_anything_is_written() -> None:
    with pytest.raises(ValueError, match="unknown collaboration mode 'sideways'"):
        _plan(["async", "sideways"])
    with pytest.raises(ValueError, match="at least one seed"):
        _plan(["async"], seeds=0)


def _outcome(success: bool, causes: list[str], stop: Stop | None = None) -> OrgOutcome:
    failures = {cause: {"count": 1, "first": "boom"} for cause in causes}
    return OrgOutcome(RunDir(Path(".")), {"success": success, "conditions": {"toa-async": {"failures": failures}}}, stop)


def test_the_exit_status_says_how_the_run_ended() -> None:
    assert _outcome(True, []).exit_status == exit_codes.OK
    assert _outcome(False, []).exit_status == exit_codes.TASK_NOT_DONE  # every seed ran, the task was not done
    assert _outcome(False, ["world", "endpoint"]).exit_status == exit_codes.UNITS_FAILED
    assert _outcome(False, ["world", "endpoint"]).failure_causes == ["endpoint", "world"]
    stopped = _outcome(False, ["endpoint"], Stop("terminated (SIGTERM)", exit_codes.SIGTERM))
    assert stopped.exit_status == exit_codes.SIGTERM and stopped.signal == "SIGTERM"
    assert _outcome(True, [], Stop("interrupted", exit_codes.SIGINT)).signal == "SIGINT"
