"""What `blockpact run`, `resume` and `report` print at the end: warnings, the Table-1 view of each
condition (Gini and welfare over seeds), intervals, identical seeds, LLM calls, and where the report is."""

from __future__ import annotations

import sys

from rich.console import Console

from blockpact.experiments import (
    Outputs, RunDir, RunOutcome, agent_errors_text, agents_label, failures_text, llm_table, mean_std_text, print_table,
)


def finish(console: Console, outcome: RunOutcome) -> int:
    """The summary of a played run, then on stderr how it stopped or which units did not complete."""
    print_summary(console, outcome.outputs, outcome.run_dir)
    if outcome.stop is not None:
        print(f"blockpact: {outcome.stop.word}; the report covers what finished (`blockpact resume "
              f"{outcome.run_dir.root}` finishes the run)", file=sys.stderr)
    elif outcome.problem is not None:
        print(f"blockpact: {outcome.problem}", file=sys.stderr)
    return outcome.exit_status


def _interval(bounds: list[float], digits: int) -> str:
    return f"[{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"


def summary_console() -> Console:
    """The terminal's console; into a file or pipe, a wide one, so the summary table is not wrapped at 80."""
    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 140))


def print_summary(console: Console, outputs: Outputs, run_dir: RunDir) -> None:
    """The Table-1 view: Gini, settled and inventory welfare (mean ± std over seeds) per condition, then where the
    report is. The warnings above it flag a condition whose welfare gain is the settlement's alone."""
    run, metrics = outputs.run, outputs.metrics
    for warning in run.warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    for warning in metrics["warnings"][len(run.warnings):]:  # the contracts' free-text clauses
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    rows = [[name, mean_std_text(c["gini"], 3, ci=False), mean_std_text(c["welfare"], 2, ci=False),
             mean_std_text(c["inventory_welfare"], 2, ci=False),
             f"{c['seeds_finished']}/{c['seeds_planned']}", failures_text(c), agent_errors_text(c)]
            for name, c in metrics["conditions"].items()]
    print_table(console, ["condition", "Gini (mean ± std)", "welfare (mean ± std)", "inventory welfare (mean ± std)",
                          "seeds", "failed", "errors"], rows,
                f"{run.config.world} on {run.config.backend}: {agents_label(run)}")
    for name, c in metrics["conditions"].items():
        if c["welfare"]["ci95"]:
            console.print(f"{name}: 95% CI over {c['welfare']['n']} completed seeds: welfare "
                          f"{_interval(c['welfare']['ci95'], 2)}"
                          + (f", Gini {_interval(c['gini']['ci95'], 3)}" if c["gini"]["ci95"] else ""),
                          markup=False, highlight=False, soft_wrap=True)
        if c["gini"]["note"]:
            console.print(f"{name}: Gini {c['gini']['note']}", markup=False, highlight=False, soft_wrap=True)
        same = [o for o in c["outcomes"] if len(o["seeds"]) > 1]
        for o in same:
            console.print(f"{name}: seeds {', '.join(map(str, o['seeds']))} ({len(o['seeds'])} seeds, same outcome)",
                          markup=False, highlight=False, soft_wrap=True)
    if (calls := llm_table(metrics)) is not None:
        print_table(console, *calls)
    console.print(f"report: {run_dir.report}", markup=False, highlight=False, soft_wrap=True)

