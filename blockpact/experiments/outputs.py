"""Everything derived from events.jsonl (metrics.json, plots as SVG and PDF, tables as CSV and LaTeX, a replay
page per episode, report.html), written the same way by `blockpact run` at the end of a run and by
`blockpact report` afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blockpact.experiments.metrics_file import run_metrics, write_metrics
from blockpact.experiments.plot_files import write_plots
from blockpact.experiments.records import RunRecord, read_run
from blockpact.experiments.replay import write_replays
from blockpact.experiments.report import write_report
from blockpact.experiments.rundir import RunDir
from blockpact.experiments.tables import SUMMARY_COLUMNS, summary_table_rows, write_table


@dataclass
class Outputs:
    run: RunRecord
    metrics: dict[str, Any]


def build_outputs(run_dir: RunDir) -> Outputs:
    run = read_run(run_dir.events)
    metrics = run_metrics(run)
    write_metrics(metrics, run_dir.metrics)
    plots = write_plots(run, run_dir.plots, metrics)
    write_table(run_dir.root / "tables", "summary", summary_table_rows(metrics), SUMMARY_COLUMNS,
                f"{run.config.world}: welfare and Gini per condition (mean, sample std, 95% CI over completed seeds)")
    replays = write_replays(run, run_dir.root)
    write_report(run, metrics, plots, run_dir.report, replays)
    return Outputs(run, metrics)
