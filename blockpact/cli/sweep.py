"""`blockpact sweep STUDY.toml`: every unit of a study (scenario × model × seed) into its own run
directory under the sweep directory, one index.json, a comparison of all of them at the end."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from blockpact.cli.llm import add_llm_arguments
from blockpact.errors import UserError
from blockpact.experiments import (
    SIGINT, SIGTERM, Index, SigtermAsInterrupt, Study, StudyUnit, Terminated, UnitResult, load_study, plan_sweep,
    unit_status,
)

UNITS_FAILED = 3  # some unit did not complete (as `blockpact run` when a seed failed)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a study (scenarios × models × seeds) as independent units, each its own "
                       "run directory plus one index; resumable; a local process pool or Ray")
    p.add_argument("study", type=Path, help="the study file (STUDY.toml)")
    p.add_argument("--out", type=Path, default=None, help="sweep directory (default runs/sweep-<study name>/); "
                   "running again into the same directory skips the units that finished")
    p.add_argument("--workers", type=int, default=None, help="units played at once (default: the number of CPUs)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on Ray: a cluster's address, or a local Ray instance when none is given "
                        "(pip install 'blockpact[ray]')")
    p.add_argument("--retry-errors", action="store_true", help="also redo units whose run recorded a failed seed")
    p.add_argument("--plots", action="store_true", help="also draw each unit's SVG plots (default: metrics.json and "
                   "report.html only; `blockpact report UNIT_DIR` draws them later)")
    add_llm_arguments(p)
    p.set_defaults(handler=cmd_sweep)


def _llm_record(args: argparse.Namespace):  # noqa: ANN202
    from blockpact.experiments import llm_settings_for, settings_record

    def record(scenario):  # noqa: ANN001, ANN202
        settings = llm_settings_for(scenario, args)
        return settings_record(settings) if settings is not None else None

    return record


def cmd_sweep(args: argparse.Namespace) -> int:
    from blockpact.experiments import endpoint_bounds, local_results, ray_results

    study = load_study(args.study)
    workers = args.workers or os.cpu_count() or 1
    if workers < 1:
        raise UserError("--workers must be at least 1")
    units = study.units(_llm_record(args))  # checks every scenario, world and endpoint before anything runs
    units = [dataclasses.replace(u, plots=args.plots) for u in units]
    root = args.out or Path("runs") / f"sweep-{study.name}"
    root.mkdir(parents=True, exist_ok=True)
    index = Index(root, study)
    todo, skipped = plan_sweep(root, units, args.retry_errors)
    for unit in skipped:
        index.note_finished(unit, root / unit.dir)
    index.write()
    where = f"Ray ({args.ray or 'local instance'})" if args.ray is not None else f"{workers} local worker(s)"
    print(f"blockpact: sweep {study.name}: {len(units)} units, {len(skipped)} already finished, {len(todo)} to run "
          f"on {where}; {root}", file=sys.stderr)
    bounds = endpoint_bounds(todo, study.max_concurrent_per_endpoint)
    console = Console(stderr=True)
    outcome: list[UnitResult] = []
    with SigtermAsInterrupt():  # SIGTERM stops the workers and records what finished, as Ctrl-C does
        results = (ray_results(root, todo, args.ray or None, workers, bounds) if args.ray is not None
                   else local_results(root, todo, workers, bounds))
        stopped = record_units(console, results, len(todo), index, outcome)
        return _finish(console, root, study, units, skipped, outcome, stopped)  # a late SIGTERM: exit 143 (cli)


def record_units(console: Console, results: Any, total: int, index: Any, outcome: list | None = None) -> int | None:
    """Each unit's result into the index as it comes (and into `outcome`), with a progress bar and a line for every
    unit that did not complete. When SIGINT or SIGTERM stopped it, the exit status that says which (what finished
    is kept, and the results' generator is closed, which stops the workers at once); else None."""
    try:
        with _progress(console, total) as progress:
            for result in results:
                index.record(result)
                if outcome is not None:
                    outcome.append(result)
                progress.advance(progress.task_ids[0])
                if result.status != "complete":
                    console.print(f"unit {result.id}: {result.status}: {next(iter((result.error or '').splitlines()), '')}",
                                  markup=False, highlight=False, soft_wrap=True)
    except KeyboardInterrupt as exc:
        try:
            results.close()  # a signal between two results left the generator open, its workers running
        except KeyboardInterrupt as again:
            exc = again
        return SIGTERM if isinstance(exc, Terminated) else SIGINT
    return None


def _progress(console: Console, total: int) -> Progress:
    progress = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("units"),
                        TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal)
    progress.add_task("units", total=total)
    return progress


def _finish(console: Console, root: Path, study: Study, units: list[StudyUnit], skipped: list[StudyUnit],
            outcome: list[UnitResult], stopped: int | None) -> int:
    from blockpact.experiments import compare, write_comparison

    counts: dict[str, int] = {}
    for r in outcome:
        counts[r.status] = counts.get(r.status, 0) + 1
    ran = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none run"
    print(f"blockpact: sweep {study.name}: {ran}; {len(skipped)} skipped (finished before); index: {root / 'index.json'}",
          file=sys.stderr)
    finished = [u for u in units if (root / u.dir / "metrics.json").is_file()]
    if finished:
        from blockpact.cli.compare import print_comparison

        comparison = compare([root / u.dir for u in finished])
        files = write_comparison(comparison, root / "comparison")
        print_comparison(Console(), comparison)
        print(f"comparison: {files['html']}")
    if stopped is not None:
        word = "terminated (SIGTERM)" if stopped == SIGTERM else "interrupted"
        print(f"blockpact: {word}; run the same command again to finish the sweep", file=sys.stderr)
        return stopped
    not_complete = [u for u in units if unit_status(root / u.dir) != "complete"]
    return 0 if not not_complete else UNITS_FAILED
