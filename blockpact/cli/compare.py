"""`blockpact compare DIR...`: one table over runs and sweeps, written as CSV, JSON and HTML."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from blockpact.experiments import Comparison, compare, print_table, write_comparison


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="compare runs and sweeps: per world × condition × population n, mean and "
                       "95%% CI of welfare, Gini (and efficiency, survival where present), paired differences "
                       "on matched seeds; CSV + HTML")
    p.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="run directories, or directories holding them "
                   "(a sweep)")
    p.add_argument("--out", type=Path, default=Path("comparison"), help="where to write compare.csv, paired.csv, "
                   "compare.json and compare.html (default ./comparison)")
    p.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    comparison = compare(args.dirs)
    files = write_comparison(comparison, args.out)
    console = Console()
    print_comparison(console, comparison)
    figures = args.out / "figures"
    written = [*map(str, files.values()), *([f"{figures}/ ({len(list(figures.iterdir()))} figures, SVG and PDF)"]
                                           if figures.is_dir() else [])]
    console.print(f"written: {', '.join(written)}", markup=False, highlight=False, soft_wrap=True)
    return 0


def _ci(mean: float | None, low: float | None, high: float | None, digits: int) -> str:
    if mean is None:
        return "–"
    if low is None or high is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def print_comparison(console: Console, c: Comparison) -> None:
    for w in c.warnings:
        console.print(f"warning: {w}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    digits = {"gini": 3}
    rows = []
    for g in c.groups:
        cells = []
        for m in c.measures:
            e = g.estimate(m)
            cells.append(_ci(e.mean, e.low, e.high, digits.get(m, 2)))
        rows.append([g.world, g.condition, g.population, str(g.n), str(len(g.failed)), *cells])
    print_table(console, ["world", "condition", "population", "n", "failed", *[f"{m} mean [95% CI]" for m in c.measures]],
                rows, f"{len(c.runs)} run(s)")
    if c.paired:
        paired = []
        for p in c.paired:
            e = p.estimate
            paired.append([p.world, p.population, f"{p.condition} − {p.baseline}", p.measure, str(e.n),
                           _ci(e.mean, e.low, e.high, digits.get(p.measure, 2))])
        print_table(console, ["world", "population", "difference", "measure", "pairs", "mean [95% CI]"], paired,
                    "paired differences on matched seeds")
