"""The experiments, behind one face: what the command line, the benches and a user's script import.

Inside, five wings, each importing only the wings listed before it (tests/test_experiment_wings.py):

- `plan/`: what a run is (`RunPlan` and its conditions), scenario files, the checks a plan passes, run.toml;
- `log/`: the run's event log (events.jsonl, its schema EVENTS.md), the typed records read back from it, the
  run directory, and where an interrupted run stands;
- `outputs/`: everything derived from the log: metrics.json, figures, tables, replays, report.html;
- `play/`: the Runner and who plays (scripted and LLM players, episodes, judging, meetings of an
  institution), the prompts of the task, and organization runs (`play/org/`);
- `studies/`: many runs: study files and sweeps, comparisons, the built-in dilemma suite.

A name is imported from its wing when it is first used (PEP 562), so a command pays only for what it uses:
`blockpact sweep` starts its workers without loading the plotting or the agents.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> "wing.module" it comes from, or "wing.module:its name there" where the face names it apart
_HOME: dict[str, str] = {
    # plan
    "ConditionSpec": "plan.run_plan",
    "RunPlan": "plan.run_plan",
    "LiveOptions": "plan.live_options",
    "check_backend": "plan.live_options",
    "lockstep_choice": "plan.live_options",
    "CONTRACT_MODES": "plan.contract_arg",
    "check_contract_value": "plan.contract_arg",
    "contract_text": "plan.contract_arg",
    "budget_for": "plan.plan_checks",
    "conditions_for": "plan.plan_checks",
    "require_llm": "plan.plan_checks",
    "require_something_of_value": "plan.plan_checks",
    "track_explicit": "plan.explicit_flags",
    "settings_from_record": "plan.llm_record",
    "settings_record": "plan.llm_record",
    "check_endpoint": "plan.preflight",
    "is_scenario_file": "plan.scenario",
    "llm_settings_for": "plan.scenario_run",
    "scenario_run_plan": "plan.scenario_run",
    "run_settings": "plan.settings",
    # log
    "read_run": "log.records",
    "ResumePoint": "log.resume",
    "RunDir": "log.rundir",
    "default_run_root": "log.rundir",
    "outside_sweeps": "log.rundir",
    # outputs
    "print_table": "outputs.console_tables",
    "llm_table": "outputs.llm_accounting",
    "agent_errors_text": "outputs.report",
    "agents_label": "outputs.report",
    "failures_text": "outputs.report",
    "mean_std_text": "outputs.report",
    "Outputs": "outputs.run_outputs",
    "build_outputs": "outputs.run_outputs",
    # play
    "SIGINT": "play.exit_codes",
    "SIGTERM": "play.exit_codes",
    "RunOptions": "play.runner",
    "RunOutcome": "play.runner",
    "Runner": "play.runner",
    "ScriptedNegotiation": "play.scripted",
    "play_scripted_episode": "play.scripted",
    "SigtermAsInterrupt": "play.stopping",
    "Terminated": "play.stopping",
    "build_org_outputs": "play.org.outputs",
    "is_org_run": "play.org.outputs",
    "org_summary_table": "play.org.outputs:summary_table",
    "run_remote_agent": "play.org.remote",
    "OrgOptions": "play.org.run",
    "OrgPlan": "play.org.run",
    "OrgRunner": "play.org.run",
    "conditions_of": "play.org.run",
    # studies
    "Comparison": "studies.compare",
    "compare": "studies.compare",
    "write_comparison": "studies.compare_output",
    "Study": "studies.study",
    "StudyUnit": "studies.study:Unit",
    "load_study": "studies.study",
    "Index": "studies.sweep",
    "UnitResult": "studies.sweep",
    "plan_sweep": "studies.sweep",
    "unit_status": "studies.sweep",
    "endpoint_bounds": "studies.sweep_backends",
    "local_results": "studies.sweep_backends",
    "ray_results": "studies.sweep_backends",
    "console_rows": "studies.suite.leaderboard",
    "read_leaderboard": "studies.suite.leaderboard",
    "write_leaderboard": "studies.suite.leaderboard",
    "load_suite": "studies.suite.manifest",
    "as_study": "studies.suite.plan",
    "record_asked": "studies.suite.plan",
    "suite_units": "studies.suite.plan",
    "suite_populations": "studies.suite.populations:populations",
}

__all__ = sorted(_HOME)


def home(name: str) -> tuple[str, str]:
    """(module, attribute) of a name of the face."""
    module, _, attribute = _HOME[name].partition(":")
    return f"{__name__}.{module}", attribute or name


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = home(name)
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
