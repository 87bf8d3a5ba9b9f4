"""`blockpact suite list|run|show`: the built-in dilemma suite played by populations of agents, and its leaderboard."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console

from blockpact.cli.llm import add_llm_arguments
from blockpact.errors import UserError

UNITS_FAILED = 3  # some unit did not complete (as `blockpact sweep`)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suite", help="the built-in dilemma suite: play it with populations of agents, show its "
                       "leaderboard")
    verbs = p.add_subparsers(dest="suite_command", metavar="SUBCOMMAND", required=True)
    ls = verbs.add_parser("list", help="the suite's worlds, their shapes and reference points")
    ls.set_defaults(handler=cmd_list)
    run = verbs.add_parser("run", help="play every suite world × population × seed as a unit of its own (resumable: "
                           "the same command again skips what finished), then write the leaderboard")
    run.add_argument("--agents", default="greedy,cooperative", metavar="POPULATIONS",
                     help="comma-separated populations: greedy, cooperative, llm, llm:MODEL (default: %(default)s)")
    run.add_argument("--worlds", default=None, metavar="NAMES", help="comma-separated suite worlds (default: all)")
    run.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default: the suite's)")
    run.add_argument("--out", type=Path, default=None, help="suite directory (default runs/suite-<name>/); running "
                     "again into it skips the units that finished and adds any new world, population or seed")
    run.add_argument("--workers", type=int, default=None, help="units played at once (default: the number of CPUs)")
    run.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                     help="run on Ray: a cluster's address, or a local instance when none is given")
    run.add_argument("--retry-errors", action="store_true", help="also redo units whose run recorded a failed seed")
    add_llm_arguments(run)
    run.set_defaults(handler=cmd_run)
    show = verbs.add_parser("show", help="print the leaderboard of a suite directory (and write its files again)")
    show.add_argument("dir", type=Path, help="a suite directory written by `blockpact suite run`")
    show.set_defaults(handler=cmd_show)


def cmd_list(args: argparse.Namespace) -> int:
    from blockpact.experiments import load_suite, print_table

    from blockpact.worlds.world_files import load_world

    suite = load_suite()
    rows = [[w.name, load_world(w.scenario.world).title, w.shape, f"{w.greedy_welfare:g}", f"{w.optimum_welfare:g}",
             w.optimum_from, str(len(w.contract.splitlines()))] for w in suite.worlds.values()]
    print_table(Console(), ["world", "title", "shape", "greedy welfare", "optimum welfare", "optimum from",
                            "contract clauses"],
                rows, title=f"suite {suite.name}: {len(rows)} worlds, seeds 0..{len(suite.seeds) - 1}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from blockpact.cli.sweep import _llm_record, record_units
    from blockpact.experiments import (
        SIGTERM, Index, SigtermAsInterrupt, as_study, endpoint_bounds, load_suite, local_results, plan_sweep,
        ray_results, record_asked, suite_populations, suite_units, unit_status,
    )

    suite = load_suite()
    workers = args.workers or os.cpu_count() or 1
    if workers < 1:
        raise UserError("--workers must be at least 1")
    if args.seeds is not None and args.seeds < 1:
        raise UserError("--seeds must be at least 1")
    root = args.out or Path("runs") / f"suite-{suite.name}"
    worlds = suite.select(_names(args.worlds))
    pops = suite_populations(args.agents.split(","))
    seeds = list(range(args.seeds)) if args.seeds is not None else suite.seeds
    units = suite_units(worlds, pops, seeds, _llm_record(args))
    root.mkdir(parents=True, exist_ok=True)
    # what the directory held before stays on its leaderboard, beside what is asked now
    record_asked(root, suite.name, [w.name for w in worlds], [p.label for p in pops], seeds)
    index = Index(root, as_study(suite, worlds))
    todo, skipped = plan_sweep(root, units, args.retry_errors)
    for unit in skipped:
        index.note_finished(unit, root / unit.dir)
    index.write()
    where = f"Ray ({args.ray or 'local instance'})" if args.ray is not None else f"{workers} local worker(s)"
    print(f"blockpact: suite {suite.name}: {len(units)} units ({len(worlds)} worlds × {len(pops)} populations × "
          f"{len(seeds)} seeds), {len(skipped)} already finished, {len(todo)} to run on {where}; {root}",
          file=sys.stderr)
    bounds = endpoint_bounds(todo, index.study.max_concurrent_per_endpoint)
    console = Console(stderr=True)
    with SigtermAsInterrupt():  # SIGTERM stops the workers and records what finished, as Ctrl-C does
        results = (ray_results(root, todo, args.ray or None, workers, bounds) if args.ray is not None
                   else local_results(root, todo, workers, bounds))
        stopped = record_units(console, results, len(todo), index)
        _show(root)  # a late SIGTERM: exit 143 (cli)
    if stopped is not None:
        word = "terminated (SIGTERM)" if stopped == SIGTERM else "interrupted"
        print(f"blockpact: {word}; run the same command again to finish the suite", file=sys.stderr)
        return stopped
    return 0 if all(unit_status(root / u.dir) == "complete" for u in units) else UNITS_FAILED


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def cmd_show(args: argparse.Namespace) -> int:
    _show(args.dir)
    return 0


def _show(root: Path) -> None:
    from blockpact.experiments import console_rows, load_suite, print_table, read_leaderboard, write_leaderboard

    board = read_leaderboard(root, load_suite())
    files = write_leaderboard(board, root)
    headers, rows, rules = console_rows(board)
    print_table(Console(), headers, rows, title=f"suite {board.suite}: score 0 = all-greedy welfare, 1 = the optimum; "
                "mean [95% CI] over seeds", sections=rules)
    print(f"leaderboard: {files['html']} ({files['csv'].name}, {files['latex'].name})")
