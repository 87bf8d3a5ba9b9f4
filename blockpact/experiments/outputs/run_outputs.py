"""Everything derived from events.jsonl (metrics.json, plots as SVG and PDF, tables as CSV and LaTeX, a replay
page per episode, report.html), written the same way by `blockpact run` at the end of a run and by
`blockpact report` afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blockpact.experiments.outputs.metrics_file import run_metrics, write_metrics
from blockpact.experiments.outputs.plot_files import write_plots
from blockpact.experiments.log.records import RunRecord, read_run
from blockpact.experiments.outputs.replay import write_replays
from blockpact.experiments.outputs.report import write_report
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.outputs.tables import SUMMARY_COLUMNS, summary_table_rows, write_table


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
