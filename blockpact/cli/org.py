"""`blockpact org run`: an organization of hourglass agents on a task, on the simulator or a live server.
Parses the flags into an OrgPlan, hands it to the OrgRunner (experiments/play/org/run.py) and prints the summary."""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from blockpact.agents.hourglass.mind import MODES
from blockpact.cli.llm import add_llm_arguments, settings_from_args
from blockpact.agents.org.roles import organization
from blockpact.agents.org.structures import KINDS, Organization, structure_from_spec
from blockpact.agents.org.tasks import load_task, task_names
from blockpact.errors import UserError
from blockpact.experiments import default_run_root


def register(subparsers: argparse._SubParsersAction) -> None:
    org = subparsers.add_parser("org", help="organizations of hourglass agents (S-Agents)",
                                description="Organizations of hourglass agents on the simulator or a live server.")
    org_sub = org.add_subparsers(dest="org_command", metavar="COMMAND", required=True)
    run = org_sub.add_parser("run", help="run an organization on a task and print S-Agents metrics",
                             description="Run an organization on a task (built-in: " + ", ".join(task_names()) + ").")
    run.add_argument("task", help="built-in task name or a task .toml file")
    run.add_argument("--structure", default="toa", type=_structures,
                     help="toa (tree), coa (chain), goa (graph), solo, or a comma-separated list of them (default toa)")
    run.add_argument("--org", type=Path, metavar="FILE", help="organization TOML (structure, agents, [commands]) instead of --structure/--workers")
    run.add_argument("--workers", type=int, default=3, help="workers under the leader (default 3)")
    run.add_argument("--mode", default="async", type=_modes,
                     help=f"collaboration mode: {', '.join(MODES)}, or a comma-separated list (default async)")
    run.add_argument("--agents", choices=("scripted", "llm"), default="scripted", help="(default scripted)")
    run.add_argument("--backend", choices=("sim", "minecraft"), default="sim",
                     help="the simulator, or bots on the embedded Minecraft server started for the run (default sim)")
    run.add_argument("--amount", type=int, help="items to collect (collect tasks)")
    run.add_argument("--seeds", type=int, default=1, help="number of seeds (default 1)")
    run.add_argument("--latency-scale", type=float, default=1.0, metavar="K",
                     help="every LLM call takes K times the latency model's time (hourglass.toml [latency]; default 1)")
    run.add_argument("--out", type=Path, help="run directory (default runs/org-<task>-<time>/)")
    add_llm_arguments(run)
    run.set_defaults(handler=run_org_command)


def _listed(text: str, allowed: list[str], what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in allowed]
    if not items or bad:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad) or repr(text)}: use {', '.join(allowed)} (comma-separated)")
    if len(set(items)) != len(items):
        raise argparse.ArgumentTypeError(f"{what} listed twice in {text!r}")
    return items


def _structures(text: str) -> list[str]:
    return _listed(text, sorted(KINDS), "structure")


def _modes(text: str) -> list[str]:
    return _listed(text, list(MODES), "mode")


def _organizations(args: argparse.Namespace) -> list[tuple[str, Organization]]:
    if args.org is None:
        return [(s, organization(s, args.workers)) for s in args.structure]
    try:
        spec = tomllib.loads(args.org.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{args.org}: {exc}") from None
    return [(args.org.stem, structure_from_spec(spec, str(args.org)))]


def run_org_command(args: argparse.Namespace) -> int:
    from blockpact.agents.hourglass.settings import hourglass_settings
    from blockpact.experiments import OrgPlan, OrgRunner, conditions_of, org_summary_table

    if args.seeds < 1:
        raise UserError("--seeds must be at least 1")
    task = load_task(args.task, args.amount)
    structures = _organizations(args)
    for name, org in structures:
        print(f"organization {name}: {org.describe()}")
    llm = None
    if args.agents == "llm":
        llm = settings_from_args(args)
        if (problem := llm.problem()) is not None:
            raise UserError(f"--agents llm needs an LLM endpoint: {problem} (see `blockpact llm check`), "
                            "or run the scripted agents (--agents scripted)")
        from blockpact.experiments import check_endpoint

        check_endpoint(llm)  # once, before any seed starts and before anything is written
    out = args.out or default_run_root(f"org-{task.name}")
    latency = hourglass_settings().latency.scaled(args.latency_scale)
    plan = OrgPlan(task, conditions_of(structures, args.mode), args.seeds, llm, latency, args.backend)
    outcome = OrgRunner.create(plan, out).run()
    print(org_summary_table(outcome.metrics))
    print(f"report: {out / 'report.html'}")
    if outcome.signal is not None:
        print(f"blockpact: interrupted ({outcome.signal}); the report covers what finished", file=sys.stderr)
    elif outcome.failure_causes:
        print(f"blockpact: some seeds failed ({', '.join(outcome.failure_causes)}); see the report", file=sys.stderr)
    return outcome.exit_status
