"""`blockpact run WORLD` (negotiate → play → judge per condition and seed, into a run directory),
`blockpact resume DIR` (finish an interrupted run) and `blockpact report DIR` (rebuild metrics.json,
plots and report.html from a run's events.jsonl).

Resuming is its own command rather than `run --resume`: everything `run`'s options choose (world,
agents, backend, conditions, seeds, episodes, LLM settings) is read back from the run's log, so the
command takes nothing that could disagree with it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from blockpact.agents.llm.cli import add_llm_arguments, settings_from_args
from blockpact.errors import UserError
from blockpact.experiments.outputs import Outputs, build_outputs
from blockpact.experiments.llm_record import settings_from_record, settings_record
from blockpact.experiments.participants import LiveOptions, check_backend, live_worlds, participants_for, require_llm
from blockpact.experiments.progress import RunProgress
from blockpact.experiments.protocol import RunPlan, RunProtocol
from blockpact.experiments.records import ConditionSpec
from blockpact.experiments.report import agents_label
from blockpact.experiments.resume import ResumePoint, repair_tail, set_aside_skills, unit_json
from blockpact.experiments.run_events import EventWriter
from blockpact.experiments.rundir import RunDir, default_run_root
from blockpact.experiments.scenario import is_scenario_file
from blockpact.experiments.explicit_flags import track_explicit
from blockpact.experiments.settings import run_settings

CONTRACT_MODES = ("none", "negotiate")


def register(sub: argparse._SubParsersAction) -> None:
    d = run_settings()["run"]
    p = sub.add_parser("run", help="run the contract experiment on a world and write a run directory with a report")
    p.add_argument("world", nargs="?", default="double_vein", help="built-in name or path (default: double_vein), "
                   "or a scenario file (SCENARIO.toml; the options below override its values)")
    p.add_argument("--backend", choices=("sim", "minecraft"), default=d["backend"], help=f"(default {d['backend']})")
    p.add_argument("--agents", choices=("scripted", "llm"), default=d["agents"], help=f"(default {d['agents']})")
    p.add_argument("--contract", metavar="none|negotiate|TEXT", default=None,
                   help="one condition: no contract, a negotiated one, or this contract text "
                        f"(default: both {' and '.join(d['conditions'])})")
    p.add_argument("--seeds", type=int, default=d["seeds"], help=f"number of seeds (default {d['seeds']})")
    p.add_argument("--episodes", type=int, default=d["episodes"], help=f"episodes per seed (default {d['episodes']})")
    p.add_argument("--out", type=Path, default=None, help=f"run directory (default {d['out_base']}/<world>-<time>/)")
    live = p.add_argument_group("live Minecraft (--backend minecraft)")
    live.add_argument("--server", metavar="HOST:PORT", help="an external server (vanilla, Paper, Fabric) where the operator "
                      "bot (live.toml [external] operator) is an operator; default: the embedded server, started for the run")
    live.add_argument("--mc-version", metavar="V", help="Minecraft version (default from defaults.toml)")
    live.add_argument("--auth", choices=("offline", "microsoft"), default="offline", help="bots' login (default offline)")
    live.add_argument("--viewer", action="store_true", help="serve a prismarine-viewer page of each bot on 127.0.0.1 "
                      "and print its URL")
    add_llm_arguments(p)
    track_explicit(p)  # a scenario file's values give way only to flags the user typed
    p.set_defaults(handler=cmd_run)

    u = sub.add_parser("resume", help="finish an interrupted run: redo its unfinished (condition, seed) units with "
                       "the settings in its events.jsonl, then write metrics.json, plots and report.html")
    u.add_argument("dir", type=Path, help="the run directory")
    u.set_defaults(handler=cmd_resume)

    r = sub.add_parser("report", help="rebuild metrics.json, plots and report.html of a run from its events.jsonl")
    r.add_argument("dir", type=Path, help="the run directory")
    r.set_defaults(handler=cmd_report)


def conditions_for(contract: str | None) -> list[ConditionSpec]:
    if contract is None:
        return [ConditionSpec(mode, mode) for mode in run_settings()["run"]["conditions"]]
    if contract in CONTRACT_MODES:
        return [ConditionSpec(contract, contract)]
    if not contract.strip():
        raise UserError("--contract: empty contract text (expected none, negotiate or the text of a contract)")
    return [ConditionSpec("contract", "given", contract)]


def cmd_run(args: argparse.Namespace) -> int:
    from blockpact.worlds.loader import load_world

    if is_scenario_file(args.world):
        from blockpact.experiments.scenario_run import run_scenario

        return run_scenario(args)
    if args.seeds < 1 or args.episodes < 1:
        raise UserError("--seeds and --episodes must be at least 1")
    check_backend(args.backend)
    live_options = LiveOptions(args.server, args.mc_version, args.auth, args.viewer)
    live_options.check(args.backend)
    llm = settings_from_args(args) if args.agents == "llm" else None
    if llm is not None:
        require_llm(llm)  # before anything is written
    spec = load_world(args.world, args.mc_version)
    live = {"server": args.server, "auth": args.auth, "viewer": args.viewer} if args.backend == "minecraft" else None
    plan = RunPlan(spec, args.backend, args.agents, conditions_for(args.contract), list(range(args.seeds)),
                   args.episodes, settings_record(llm) if llm is not None else None, live)
    run_dir = RunDir.create(args.out or default_run_root(spec.name, Path(run_settings()["run"]["out_base"])))
    return execute(plan, run_dir, live_options, EventWriter(run_dir.events), plan.total_episodes,
                   lambda protocol: protocol.run())


def cmd_resume(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    point = ResumePoint.of(run_dir)
    planned = len(point.planned)
    if point.complete:
        print(f"{run_dir.root}: the run is complete ({planned} of {planned} condition-seed units finished); "
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
    writer = EventWriter(run_dir.events, point.last_seq)  # fails while another process writes the run
    # The log is usable and ours: from here on the directory changes.
    pending, superseded = point.pending, point.superseded
    try:
        dropped = repair_tail(run_dir.events, point.torn)
        note = {"after_seq": point.last_seq, "previous_status": point.run.status, "units": unit_json(pending),
                "superseded": unit_json(superseded), "dropped_line": dropped.to_json() if dropped else None,
                "skills_set_aside": set_aside_skills(run_dir, superseded, point.last_seq)}
    except BaseException:
        writer.close()
        raise
    print(f"blockpact: resuming {run_dir.root}: {planned - len(pending)} of {planned} condition-seed units finished, "
          f"{len(pending)} to run ({len(superseded)} of them redone from the start)"
          + (f"; cut off the torn line {dropped.line} ({dropped.size} bytes)" if dropped else ""), file=sys.stderr)
    return execute(plan, run_dir, live_options, writer, len(pending) * plan.episodes,
                   lambda protocol: protocol.resume(pending, note))


def execute(plan: RunPlan, run_dir: RunDir, live_options: LiveOptions, writer: EventWriter, episodes: int,
            body: Callable[[RunProtocol], Awaitable[None]]) -> int:
    """Play what `body` asks of the run's protocol, then write the outputs of the whole log."""
    live = live_worlds(live_options) if plan.backend == "minecraft" else None
    llm = settings_from_record(plan.llm) if plan.agents == "llm" and plan.llm is not None else None
    console = Console()
    interrupted = False
    try:
        if plan.population is not None:  # a scenario's population (experiments/population.py)
            from blockpact.experiments.population import plan_participants

            participants = plan_participants(plan, run_dir, llm, live)
        else:
            participants = participants_for(plan.agents, plan.backend, run_dir, llm, live)
        with writer, RunProgress(console, episodes) as progress:
            writer.listeners.append(progress)
            try:
                asyncio.run(body(RunProtocol(plan, participants, writer)))
            except KeyboardInterrupt:
                interrupted = True
    finally:
        writer.close()
        if live is not None:
            live.stop()  # the embedded server, whatever ended the run
    outputs = build_outputs(run_dir)
    print_summary(console, outputs, run_dir)
    if interrupted:
        print("blockpact: interrupted; the report covers what finished (`blockpact resume DIR` finishes the run)",
              file=sys.stderr)
        return 130
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    outputs = build_outputs(run_dir)
    print_summary(Console(), outputs, run_dir)
    return 0


def print_summary(console: Console, outputs: Outputs, run_dir: RunDir) -> None:
    """The Table-1 view: Gini and welfare (mean ± std over seeds) per condition, then where the report is."""
    run, metrics = outputs.run, outputs.metrics
    for warning in run.warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    table = Table("condition", "Gini (mean ± std)", "welfare (mean ± std)", "seeds", "errors",
                  title=f"{run.config.world} on {run.config.backend}: {agents_label(run)}")
    for name, c in metrics["conditions"].items():
        table.add_row(name, _mean_std(c["gini"], 3), _mean_std(c["welfare"], 2),
                      f"{c['seeds_finished']}/{c['seeds_planned']}", str(len(c["errors"])))
    console.print(table)
    console.print(f"report: {run_dir.report}", markup=False, highlight=False, soft_wrap=True)


def _mean_std(stat: dict[str, float | None], digits: int) -> str:
    if stat["mean"] is None:
        return "–"
    return f"{stat['mean']:.{digits}f} ± {stat['std']:.{digits}f}"
