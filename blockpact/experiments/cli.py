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

from blockpact.agents.llm.budget import Budget
from blockpact.agents.llm.cli import add_llm_arguments, settings_from_args
from blockpact.errors import UserError
from blockpact.experiments.outputs import Outputs, build_outputs
from blockpact.experiments.llm_record import settings_from_record, settings_record
from blockpact.experiments.participants import LiveOptions, check_backend, live_worlds, participants_for, require_llm
from blockpact.experiments.progress import RunProgress
from blockpact.experiments.protocol import RunPlan, RunProtocol
from blockpact.experiments.records import ConditionSpec
from blockpact.experiments.contract_arg import CONTRACT_MODES, EXPECTED, check_contract_value, contract_text
from blockpact.experiments.contract_reading import free_text_warning
from blockpact.experiments.exit_codes import OK, UNITS_FAILED
from blockpact.experiments.preflight import check_endpoint
from blockpact.experiments.report import agent_errors_text, agents_label, failures_text, mean_std_text
from blockpact.experiments.stopping import SigtermAsInterrupt, Stop
from blockpact.experiments.llm_accounting import budget_for, llm_table
from blockpact.experiments.resume import ResumePoint, repair_tail, set_aside_skills, unit_json
from blockpact.experiments.run_events import EventWriter
from blockpact.experiments.rundir import RunDir, default_run_root
from blockpact.experiments.scenario import is_scenario_file
from blockpact.experiments.explicit_flags import track_explicit
from blockpact.experiments.settings import run_settings
from blockpact.worlds.spec import WorldSpec



def register(sub: argparse._SubParsersAction) -> None:
    d = run_settings()["run"]
    p = sub.add_parser("run", help="run the contract experiment on a world and write a run directory with a report")
    p.add_argument("world", nargs="?", default="double_vein", help="built-in name or path (default: double_vein), "
                   "or a scenario file (SCENARIO.toml; the options below override its values)")
    p.add_argument("--backend", choices=("sim", "minecraft"), default=d["backend"], help=f"(default {d['backend']})")
    p.add_argument("--agents", choices=("scripted", "llm"), default=d["agents"], help=f"(default {d['agents']})")
    p.add_argument("--contract", metavar="none|negotiate|TEXT|@FILE", default=None,
                   help="one condition: no contract, a negotiated one, or this contract text (or the text in FILE) "
                        f"(default: both {' and '.join(d['conditions'])}); check a text with `blockpact contract check`")
    p.add_argument("--seeds", type=int, default=d["seeds"], help=f"number of seeds (default {d['seeds']})")
    p.add_argument("--episodes", type=int, default=d["episodes"], help=f"episodes per seed (default {d['episodes']})")
    p.add_argument("--out", type=Path, default=None, help=f"run directory (default {d['out_base']}/<world>-<time>/)")
    p.add_argument("--parallel", type=int, default=1, metavar="N", help="play up to N (condition, seed) units at once: "
                   "with LLM agents the wall time is the LLM's latency, not CPU; same results as one at a time "
                   "(default 1)")
    live = p.add_argument_group("live Minecraft (--backend minecraft)")
    live.add_argument("--server", metavar="HOST:PORT", help="an external server (vanilla, Paper, Fabric) where the operator "
                      "bot (live.toml [external] operator) is an operator; default: the embedded server, started for the run")
    live.add_argument("--mc-version", metavar="V", help="Minecraft version (default from defaults.toml)")
    live.add_argument("--auth", choices=("offline", "microsoft"), default="offline", help="bots' login (default offline)")
    live.add_argument("--viewer", action="store_true", help="serve a prismarine-viewer page of each bot on 127.0.0.1 "
                      "and print its URL")
    add_llm_arguments(p)
    p.add_argument("--llm-budget", metavar="AMOUNT", help="stop the run cleanly when its LLM calls have used this "
                   "many tokens (200000, 200k) or dollars ($1.50, 1.5usd; needs prices in llm.toml); cached replies "
                   "are free; units not started are reported as not run")
    track_explicit(p)  # a scenario file's values give way only to flags the user typed
    p.set_defaults(handler=cmd_run)

    u = sub.add_parser("resume", help="finish an interrupted run: redo its unfinished (condition, seed) units with "
                       "the settings in its events.jsonl, then write metrics.json, plots and report.html")
    u.add_argument("dir", type=Path, help="the run directory")
    u.add_argument("--parallel", type=int, default=1, metavar="N", help="units at once, as for run (default 1)")
    u.set_defaults(handler=cmd_resume)

    r = sub.add_parser("report", help="rebuild metrics.json, plots and report.html of a run from its events.jsonl")
    r.add_argument("dir", type=Path, help="the run directory")
    r.set_defaults(handler=cmd_report)


def conditions_for(contract: str | None) -> list[ConditionSpec]:
    if contract is None:
        return [ConditionSpec(mode, mode) for mode in run_settings()["run"]["conditions"]]
    if contract in CONTRACT_MODES:
        return [ConditionSpec(contract, contract)]
    text = contract_text(contract)
    if not text.strip():
        raise UserError(f"--contract: empty contract text (expected {EXPECTED})")
    return [ConditionSpec("contract", "given", text)]


def require_something_of_value(spec: WorldSpec) -> None:
    """Welfare and Gini of a world where no player values any item are 0 whatever anyone does."""
    if any(v > 0 for player in spec.players.values() for v in player.values.values()):
        return
    raise UserError(f"world {spec.name}: no player values any item, so every reward would be 0 and welfare and Gini "
                    "would say nothing. `blockpact run` is for dilemmas (worlds whose players value items, see "
                    "`blockpact world list`); for task worlds use `blockpact org run`")


def cmd_run(args: argparse.Namespace) -> int:
    from blockpact.worlds.loader import load_world

    if is_scenario_file(args.world):
        from blockpact.experiments.scenario_run import run_scenario

        return run_scenario(args)
    if args.seeds < 1 or args.episodes < 1 or args.parallel < 1:
        raise UserError("--seeds, --episodes and --parallel must be at least 1")
    check_backend(args.backend)
    live_options = LiveOptions(args.server, args.mc_version, args.auth, args.viewer)
    live_options.check(args.backend)
    llm = settings_from_args(args) if args.agents == "llm" else None
    if llm is not None:
        require_llm(llm)  # before anything is written
    budget = budget_for(args.llm_budget, llm)
    spec = load_world(args.world, args.mc_version)
    require_something_of_value(spec)
    conditions = conditions_for(args.contract)
    if args.contract not in (None, *CONTRACT_MODES):
        check_contract_value(args.contract, sorted(spec.players), spec.name)
    for c in conditions:
        if c.contract_text and (warning := free_text_warning(c.contract_text, sorted(spec.players), spec.name,
                                                             "--contract")):
            print(f"blockpact: warning: {warning}", file=sys.stderr)
    if llm is not None:
        check_endpoint(llm)  # once, before any unit starts and before anything is written
    live = {"server": args.server, "auth": args.auth, "viewer": args.viewer} if args.backend == "minecraft" else None
    llm_record = {**settings_record(llm), "budget": budget.to_json() if budget else None} if llm is not None else None
    plan = RunPlan(spec, args.backend, args.agents, conditions, list(range(args.seeds)),
                   args.episodes, llm_record, live)
    run_dir = create_run_dir(args.out or default_run_root(spec.name, Path(run_settings()["run"]["out_base"])))
    return execute(plan, run_dir, live_options, EventWriter(run_dir.events), plan.total_episodes,
                   lambda protocol: protocol.run(), args.parallel)


def create_run_dir(path: Path) -> RunDir:
    try:
        return RunDir.create(path)
    except OSError as exc:
        raise UserError(f"--out {path}: cannot create the run directory: {exc.strerror or exc}") from None


def cmd_resume(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    point = ResumePoint.of(run_dir)
    planned = len(point.planned)
    if point.complete:
        print(f"{run_dir.root}: the run is complete ({planned} of {planned} condition-seed units completed); "
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
        check_endpoint(settings_from_record(plan.llm))
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
    print(f"blockpact: resuming {run_dir.root}: {planned - len(pending)} of {planned} condition-seed units completed, "
          f"{len(pending)} to run ({len(superseded)} of them, failed or cut short, redone from the start)"
          + (f"; cut off the torn line {dropped.line} ({dropped.size} bytes)" if dropped else ""), file=sys.stderr)
    return execute(plan, run_dir, live_options, writer, len(pending) * plan.episodes,
                   lambda protocol: protocol.resume(pending, note), args.parallel)


def execute(plan: RunPlan, run_dir: RunDir, live_options: LiveOptions, writer: EventWriter, episodes: int,
            body: Callable[[RunProtocol], Awaitable[None]], parallel: int = 1) -> int:
    """Play what `body` asks of the run's protocol, then write the outputs of the whole log."""
    live = live_worlds(live_options) if plan.backend == "minecraft" else None
    llm = settings_from_record(plan.llm) if plan.agents == "llm" and plan.llm is not None else None
    budget = Budget.from_json(plan.llm.get("budget")) if llm is not None and plan.llm is not None else None
    console = summary_console()
    stop: Stop | None = None
    with SigtermAsInterrupt() as sigterm:
        try:
            if plan.population is not None:  # a scenario's population (experiments/population.py)
                from blockpact.experiments.population import plan_participants

                participants = plan_participants(plan, run_dir, llm, live, budget)
            else:
                participants = participants_for(plan.agents, plan.backend, run_dir, llm, live, budget)
            with writer, RunProgress(console, episodes) as progress:
                writer.listeners.append(progress)
                try:
                    asyncio.run(sigterm.guard(body(RunProtocol(plan, participants, writer, parallel))))
                except (KeyboardInterrupt, asyncio.CancelledError) as exc:
                    stop = sigterm.stop_of(exc)
        except KeyboardInterrupt as exc:  # before or after the units: the log is valid, write what finished
            stop = sigterm.stop_of(exc)
        finally:
            writer.close()
            if live is not None:
                live.stop()  # the embedded server, whatever ended the run
        outputs = build_outputs(run_dir)
        print_summary(console, outputs, run_dir)
    if stop is not None:
        print(f"blockpact: {stop.word}; the report covers what finished (`blockpact resume {run_dir.root}` "
              "finishes the run)", file=sys.stderr)
        return stop.code
    return exit_status(outputs.metrics)


def cmd_report(args: argparse.Namespace) -> int:
    run_dir = RunDir.existing(args.dir)
    from blockpact.experiments.org.outputs import is_org_run

    if is_org_run(run_dir):  # `blockpact org run` directories have their own outputs
        from blockpact.experiments.org.outputs import build_org_outputs, summary_table

        print(summary_table(build_org_outputs(run_dir)))
        print(f"report: {run_dir.report}")
        return 0
    outputs = build_outputs(run_dir)
    print_summary(summary_console(), outputs, run_dir)
    return 0


def _interval(bounds: list[float], digits: int) -> str:
    return f"[{bounds[0]:.{digits}f}, {bounds[1]:.{digits}f}]"


def exit_status(metrics: dict) -> int:
    """0 when every unit completed; UNITS_FAILED with one line on stderr naming the causes otherwise."""
    if metrics["all_completed"]:
        return OK
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for c in metrics["conditions"].values():
        for cause, f in c["failures"].items():
            counts[cause] = counts.get(cause, 0) + f["count"]
            first.setdefault(cause, f["first_message"])
        for status in ("interrupted", "not_started"):
            if c["units"][status]:
                key = status.replace("_", " ")
                counts[key] = counts.get(key, 0) + c["units"][status]
    planned = sum(c["seeds_planned"] for c in metrics["conditions"].values())
    failed = sum(counts.values())
    causes = ", ".join(f"{n} {cause}" + (f" ({first[cause][:160]})" if cause in first else "") for cause, n in counts.items())
    print(f"blockpact: {failed} of {planned} condition-seed units did not complete: {causes}; "
          "their numbers are not in the results", file=sys.stderr)
    return UNITS_FAILED


def summary_console() -> Console:
    """The terminal's console; into a file or pipe, a wide one, so the summary table is not wrapped at 80."""
    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 140))


def print_summary(console: Console, outputs: Outputs, run_dir: RunDir) -> None:
    """The Table-1 view: Gini and welfare (mean ± std over seeds) per condition, then where the report is."""
    run, metrics = outputs.run, outputs.metrics
    for warning in run.warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    for warning in metrics["warnings"][len(run.warnings):]:  # the contracts' free-text clauses
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)
    table = Table("condition", "Gini (mean ± std)", "welfare (mean ± std)", "seeds", "failed", "errors",
                  title=f"{run.config.world} on {run.config.backend}: {agents_label(run)}")
    for name, c in metrics["conditions"].items():
        table.add_row(name, mean_std_text(c["gini"], 3, ci=False), mean_std_text(c["welfare"], 2, ci=False),
                      f"{c['seeds_finished']}/{c['seeds_planned']}", failures_text(c), agent_errors_text(c))
    console.print(table)
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
        console.print(calls)
    console.print(f"report: {run_dir.report}", markup=False, highlight=False, soft_wrap=True)

