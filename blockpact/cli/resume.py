"""`blockpact resume DIR`: finish an interrupted run.

Resuming is its own command rather than `run --resume`: everything `run`'s options choose (world,
agents, backend, conditions, seeds, episodes, LLM settings) is read back from the run's log, so the
command takes nothing that could disagree with it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blockpact.cli.summary import finish, summary_console
from blockpact.errors import UserError
from blockpact.experiments.llm_record import settings_from_record
from blockpact.experiments.participants import LiveOptions, check_backend, require_llm
from blockpact.experiments.preflight import check_endpoint
from blockpact.experiments.resume import ResumePoint
from blockpact.experiments.rundir import RunDir
from blockpact.experiments.runner import RunOptions, Runner


def register(sub: argparse._SubParsersAction) -> None:
    u = sub.add_parser("resume", help="finish an interrupted run: redo its unfinished (condition, seed) units with "
                       "the settings in its events.jsonl, then write metrics.json, plots and report.html")
    u.add_argument("dir", type=Path, help="the run directory")
    u.add_argument("--parallel", type=int, default=1, metavar="N", help="units at once, as for run (default 1)")
    u.set_defaults(handler=cmd_resume)


def _announce(line: str) -> None:
    print(f"blockpact: {line}", file=sys.stderr)


def cmd_resume(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    point = ResumePoint.of(run_dir)
    planned = len(point.planned)
    if point.complete:
        print(f"{run_dir.root}: the run is complete ({planned} of {planned} condition-seed units completed); "
              "nothing to resume, nothing changed")
        return 0
    plan = point.plan()
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
