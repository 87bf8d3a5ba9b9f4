"""`blockpact report DIR`: rebuild metrics.json, plots and report.html of a run from its events.jsonl
(a `blockpact org run` directory gets the org outputs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blockpact.cli.summary import print_summary, summary_console
from blockpact.experiments import RunDir, build_outputs


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("report", help="rebuild metrics.json, plots and report.html of a run from its events.jsonl")
    r.add_argument("dir", type=Path, help="the run directory")
    r.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    from blockpact.experiments import is_org_run

    if is_org_run(run_dir):  # `blockpact org run` directories have their own outputs
        from blockpact.experiments import build_org_outputs, org_summary_table

        print(org_summary_table(build_org_outputs(run_dir)))
        print(f"report: {run_dir.report}")
        return 0
    outputs = build_outputs(run_dir)
    print_summary(summary_console(), outputs, run_dir)
    return 0
