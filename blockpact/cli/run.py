"""`blockpact run WORLD|SCENARIO.toml`: negotiate → play → judge per condition and seed, into a run
directory with metrics.json, plots and report.html. Parses the flags into a RunPlan, hands it to the
Runner (experiments/play/runner.py) and prints the summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blockpact.cli.llm import add_llm_arguments, settings_from_args
from blockpact.cli.summary import finish, summary_console
from blockpact.errors import UserError
from blockpact.experiments import (
    CONTRACT_MODES, LiveOptions, Runner, RunOptions, RunPlan, budget_for, check_backend, check_contract_value,
    check_endpoint, conditions_for, default_run_root, is_scenario_file, lockstep_choice, outside_sweeps, require_llm,
    require_something_of_value, run_settings, settings_record, track_explicit,
)
from blockpact.judge.contract_reading import free_text_warning


def register(sub: argparse._SubParsersAction) -> None:
    d = run_settings().run
    p = sub.add_parser("run", help="run the contract experiment on a world and write a run directory with a report")
    p.add_argument("world", nargs="?", default="double_vein", help="built-in name or path (default: double_vein), "
                   "or a scenario file (SCENARIO.toml; the options below override its values)")
    p.add_argument("--backend", choices=("sim", "minecraft"), default=d.backend, help=f"(default {d.backend})")
    p.add_argument("--agents", choices=("scripted", "llm"), default=d.agents, help=f"(default {d.agents})")
    p.add_argument("--contract", metavar="none|negotiate|TEXT|@FILE", default=None,
                   help="one condition: no contract, a negotiated one, or this contract text (or the text in FILE) "
                        f"(default: both {' and '.join(d.conditions)}); check a text with `blockpact contract check`")
    p.add_argument("--seeds", type=int, default=d.seeds, help=f"number of seeds (default {d.seeds})")
    p.add_argument("--episodes", type=int, default=d.episodes, help=f"episodes per seed (default {d.episodes})")
    p.add_argument("--out", type=Path, default=None, help=f"run directory (default {d.out_base}/<world>-<time>/)")
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
    live.add_argument("--lockstep", action=argparse.BooleanOptionalAction, default=None, help="bots take their shared "
                      "actions (block searches, digs, chests) in the order the simulator plays the same programs: races "
                      "end as on the simulator (default: live.toml [episode] lockstep; embedded server only)")
    add_llm_arguments(p)
    p.add_argument("--llm-budget", metavar="AMOUNT", help="stop the run cleanly when its LLM calls have used this "
                   "many tokens (200000, 200k) or dollars ($1.50, 1.5usd; needs prices in llm.toml); cached replies "
                   "are free; units not started are reported as not run")
    track_explicit(p)  # a scenario file's values give way only to flags the user typed
    p.set_defaults(handler=cmd_run)


def plan_from_flags(args: argparse.Namespace) -> RunPlan:
    """The RunPlan the flags describe, after every check that can fail before anything is written."""
    from blockpact.worlds.world_files import load_world

    live_options = LiveOptions(args.server, args.mc_version, args.auth, args.viewer,
                               lockstep_choice(args.lockstep, args.backend))
    live_options.check(args.backend)
    llm = settings_from_args(args) if args.agents == "llm" else None
    if llm is not None:
        require_llm(llm)  # before anything is written
    budget = budget_for(args.llm_budget, llm)
    spec = load_world(args.world, args.mc_version)
    warnings = require_something_of_value(spec)
    conditions = conditions_for(args.contract)
    if args.contract not in (None, *CONTRACT_MODES):
        check_contract_value(args.contract, sorted(spec.players), spec)
    for c in conditions:
        if c.contract_text and (warning := free_text_warning(c.contract_text, sorted(spec.players), spec,
                                                             "--contract")):
            print(f"blockpact: warning: {warning}", file=sys.stderr)
    if llm is not None:
        check_endpoint(llm)  # once, before any unit starts and before anything is written
    live = ({"server": args.server, "auth": args.auth, "viewer": args.viewer, "lockstep": live_options.lockstep}
            if args.backend == "minecraft" else None)
    llm_record = {**settings_record(llm), "budget": budget.to_json() if budget else None} if llm is not None else None
    return RunPlan(spec, args.backend, args.agents, conditions, list(range(args.seeds)), args.episodes, llm_record, live,
                   world_warnings=warnings)


def cmd_run(args: argparse.Namespace) -> int:
    if args.seeds < 1 or args.episodes < 1 or args.parallel < 1:
        raise UserError("--seeds, --episodes and --parallel must be at least 1")
    if is_scenario_file(args.world):
        from blockpact.experiments import scenario_run_plan

        plan, name = scenario_run_plan(args)
    else:
        check_backend(args.backend)
        plan = plan_from_flags(args)
        name = plan.spec.name
    out = outside_sweeps(args.out) if args.out else default_run_root(name, Path(run_settings().run.out_base))
    console = summary_console()
    lockstep = bool((plan.live or {}).get("lockstep"))  # as the plan records it
    options = RunOptions(parallel=args.parallel, live=LiveOptions(args.server, args.mc_version, args.auth, args.viewer,
                                                                  lockstep),
                         progress=console)
    return finish(console, Runner.create(plan, out, options).run())
