"""`blockpact resume DIR`: finish an interrupted run.

Resuming is its own command rather than `run --resume`: everything `run`'s options choose (world,
agents, backend, conditions, seeds, episodes, LLM settings) is read back from the run's log, so the
command takes nothing that could disagree with it. One exception, `--llm-timeout`: how long a call may take
is the endpoint's matter, not the treatment's, and a unit that failed on a slow endpoint could not be
finished on it otherwise; the run_resumed event records the new bound."""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

from blockpact.cli.summary import finish, summary_console
from blockpact.errors import UserError
from blockpact.experiments import (
    LiveOptions, ResumePoint, RunDir, Runner, RunOptions, check_backend, check_endpoint, require_llm,
    settings_from_record,
)


def register(sub: argparse._SubParsersAction) -> None:
    u = sub.add_parser("resume", help="finish an interrupted run: redo its unfinished (condition, seed) units with "
                       "the settings in its events.jsonl, then write metrics.json, plots and report.html")
    u.add_argument("dir", type=Path, help="the run directory")
    u.add_argument("--parallel", type=int, default=1, metavar="N", help="units at once, as for run (default 1)")
    u.add_argument("--llm-timeout", type=float, metavar="SECONDS", help="LLM runs: the seconds each call may take "
                   "in the resumed units, every role (default: the last resume's --llm-timeout, else as recorded; e.g. a "
                   "slow local model's units failed with cause endpoint)")
    u.set_defaults(handler=cmd_resume)


def _announce(line: str) -> None:
    print(f"blockpact: {line}", file=sys.stderr)


def _with_timeout(record: dict | None, seconds: float) -> dict:
    if record is None:
        raise UserError("--llm-timeout: this run's agents are scripted; it makes no LLM calls")
    if not (seconds > 0 and math.isfinite(seconds)):
        raise UserError(f"--llm-timeout: expected a number of seconds > 0 (got {seconds:g})")
    roles = {name: {**role, "timeout_s": seconds} for name, role in (record.get("roles") or {}).items()}
    return {**record, "timeout_s": seconds, "roles": roles}


def cmd_resume(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    point = ResumePoint.of(run_dir)
    planned = len(point.planned)
    if point.complete:
        print(f"{run_dir.root}: the run is complete ({planned} of {planned} condition-seed units completed); "
              "nothing to resume, nothing changed")
        return 0
    plan = point.plan()
    timeout = args.llm_timeout
    if timeout is None and (earlier := [r.llm_timeout_s for r in point.run.resumes if r.llm_timeout_s is not None]):
        timeout = earlier[-1]  # an earlier resume's bound holds until another is given
        _announce(f"LLM calls may take {timeout:g} s each, as the last resume with --llm-timeout set")
    if timeout is not None:
        plan = dataclasses.replace(plan, llm=_with_timeout(plan.llm, timeout))
    check_backend(plan.backend)
    live_options = LiveOptions(**(plan.live or {}), version=plan.spec.mc_version)
    live_options.check(plan.backend)
    if plan.agents == "llm":
        if plan.llm is None:
            raise UserError("run_start records no LLM settings (a log of an older blockpact): "
                            "this run cannot be resumed")
        require_llm(settings_from_record(plan.llm))
        check_endpoint(settings_from_record(plan.llm))
    console = summary_console()
    options = RunOptions(parallel=args.parallel, live=live_options, progress=console, announce=_announce)
    return finish(console, Runner(plan, run_dir, options).resume_from(point))
