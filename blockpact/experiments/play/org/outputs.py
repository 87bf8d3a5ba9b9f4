"""Everything an organization run derives from its events.jsonl (metrics.json, plots, report.html),
written the same way by `blockpact org run` at its end and by `blockpact report DIR` afterwards."""

from __future__ import annotations

import json
from typing import Any

from blockpact.experiments.play.org.metrics import org_metrics, write_org_metrics
from blockpact.experiments.play.org.plots import write_org_plots
from blockpact.experiments.play.org.records import read_org_run
from blockpact.experiments.play.org.report import calls_text, stat_text, success_text, write_org_report
from blockpact.experiments.log.rundir import RunDir


def is_org_run(run_dir: RunDir) -> bool:
    """Whether the directory holds an organization run (its first event says so)."""
    with open(run_dir.events, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    try:
        event = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(event, dict) and event.get("kind") == "run_start" and (event.get("data") or {}).get("kind") == "org"


def build_org_outputs(run_dir: RunDir, plots: bool = True) -> dict[str, Any]:
    """metrics.json and report.html from the log; the SVG plots only when asked."""
    run = read_org_run(run_dir.events)
    metrics = org_metrics(run)
    write_org_metrics(metrics, run_dir.metrics)
    pictures = write_org_plots(run, metrics, run_dir.plots) if plots else []
    write_org_report(run, metrics, pictures, run_dir.report)
    return metrics


def summary_table(metrics: dict[str, Any]) -> str:
    """What `blockpact org run` and `blockpact report` print for an organization run."""
    label = "scripted agents (no LLM)" if metrics["agents"] == "scripted" else "LLM agents"
    backend = " on the embedded Minecraft server" if metrics.get("backend") == "minecraft" else ""
    lines = [f"{metrics['task']}{backend}: {len(metrics['conditions'])} condition(s) x {metrics['seeds']} seed(s), {label}, "
             f"run {metrics['status']}",
             f"  {'condition':<16} {'success':<16} {'time to completion (' + ('wall' if metrics.get('clock') == 'wall' else 'sim.') + ' min)':<40} "
             f"{'LLM calls':<28} {'messages':<28} seeds"]
    for name, c in metrics["conditions"].items():
        seeds = f"{c['seeds_completed']}/{c['seeds_planned']}" + (f" ({c['seeds_failed']} failed)" if c["seeds_failed"] else "")
        lines.append(f"  {name:<16} {success_text(c):<16} {stat_text(c['time_cost_min']):<40} "
                     f"{calls_text(metrics, c):<28} {stat_text(c['messages'], 1):<28} {seeds}")
        for cause, info in c["failures"].items():
            lines.append(f"    failed ({cause}) x{info['count']}: {info['first']}")
        for run in c["runs"]:
            lines += [f"    seed {run['seed']} violation: {v}" for v in run.get("violations", [])]
    return "\n".join(lines)
