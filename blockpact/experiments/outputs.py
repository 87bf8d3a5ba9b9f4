"""Everything derived from events.jsonl (metrics.json, plots, report.html), written the same way by
`blockpact run` at the end of a run and by `blockpact report` afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blockpact.experiments.metrics_file import run_metrics, write_metrics
from blockpact.experiments.plot_files import write_plots
from blockpact.experiments.records import RunRecord, read_run
from blockpact.experiments.report import write_report
from blockpact.experiments.rundir import RunDir


@dataclass
class Outputs:
    run: RunRecord
    metrics: dict[str, Any]


def build_outputs(run_dir: RunDir) -> Outputs:
    run = read_run(run_dir.events)
    metrics = run_metrics(run)
    write_metrics(metrics, run_dir.metrics)
    plots = write_plots(run, run_dir.plots)
    write_report(run, metrics, plots, run_dir.report)
    return Outputs(run, metrics)
