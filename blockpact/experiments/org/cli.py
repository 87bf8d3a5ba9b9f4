"""`blockpact org run` (an organization on a task, on the simulator) and `blockpact agent` (one
hourglass agent as its own process, talking through a broker)."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from blockpact.agents.hourglass.mind import MODES
from blockpact.agents.llm.cli import add_llm_arguments, settings_from_args
from blockpact.agents.org.roles import organization
from blockpact.agents.org.structures import KINDS, Organization, structure_from_spec
from blockpact.agents.org.tasks import load_task, task_names
from blockpact.errors import UserError
from blockpact.experiments.rundir import default_run_root


def register(subparsers: argparse._SubParsersAction) -> None:
    org = subparsers.add_parser("org", help="organizations of hourglass agents (S-Agents)",
                                description="Organizations of hourglass agents on the simulator.")
    org_sub = org.add_subparsers(dest="org_command", metavar="COMMAND", required=True)
    run = org_sub.add_parser("run", help="run an organization on a task and print S-Agents metrics",
                             description="Run an organization on a task (built-in: " + ", ".join(task_names()) + ").")
    run.add_argument("task", help="built-in task name or a task .toml file")
    run.add_argument("--structure", default="toa", choices=sorted(KINDS), help="toa (tree), coa (chain), goa (graph) or solo (default toa)")
    run.add_argument("--org", type=Path, metavar="FILE", help="organization TOML (structure, agents, [commands]) instead of --structure/--workers")
    run.add_argument("--workers", type=int, default=3, help="workers under the leader (default 3)")
    run.add_argument("--mode", choices=MODES, default="async", help="collaboration mode (default async)")
    run.add_argument("--agents", choices=("scripted", "llm"), default="scripted", help="(default scripted)")
    run.add_argument("--amount", type=int, help="items to collect (collect tasks)")
    run.add_argument("--seeds", type=int, default=1, help="number of seeds (default 1)")
    run.add_argument("--out", type=Path, help="run directory (default runs/org-<task>-<time>/)")
    add_llm_arguments(run)
    run.set_defaults(handler=run_org_command)

    agent = subparsers.add_parser("agent", help="run one hourglass agent as its own process, through a broker",
                                  description="One hourglass agent in its own process. It simulates its own copy of the "
                                              "task world for its own body; only the message pool (the broker) is shared.")
    agent.add_argument("--role", choices=("worker", "leader"), required=True)
    agent.add_argument("--name", required=True, help="agent name (a Minecraft user name)")
    agent.add_argument("--world", required=True, metavar="TASK", help="the task whose world the agent works in")
    agent.add_argument("--broker", required=True, metavar="URL", help="mqtt://[user:password@]host:port/POOL")
    agent.add_argument("--leader", default="Leader", help="the worker's commander (default Leader)")
    agent.add_argument("--workers", default="", help="leader: comma-separated worker names it commands")
    agent.add_argument("--amount", type=int, help="items to collect (collect tasks)")
    agent.add_argument("--mode", choices=MODES, default="async")
    agent.add_argument("--seed", type=int, default=0)
    agent.add_argument("--idle-timeout", type=float, default=60.0, help="wall seconds without a message before giving up (default 60)")
    agent.set_defaults(handler=run_agent_command)


def _organization(args: argparse.Namespace) -> tuple[Organization, str]:
    if args.org is None:
        return organization(args.structure, args.workers), args.structure
    try:
        spec = tomllib.loads(args.org.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{args.org}: {exc}") from None
    return structure_from_spec(spec, str(args.org)), args.org.stem


def run_org_command(args: argparse.Namespace) -> int:
    from blockpact.experiments.org.run import OrgRunPlan, metrics_table, run_org

    if args.seeds < 1:
        raise UserError("--seeds must be at least 1")
    task = load_task(args.task, args.amount)
    org, structure = _organization(args)
    print(f"organization: {org.describe()}")
    llm = None
    if args.agents == "llm":
        llm = settings_from_args(args)
        if (problem := llm.problem()) is not None:
            raise UserError(f"--agents llm needs an LLM endpoint: {problem} (see `blockpact llm check`), "
                            "or run the scripted agents (--agents scripted)")
    out = args.out or default_run_root(f"org-{task.name}")
    plan = OrgRunPlan(task, org, structure, args.mode, args.agents, args.seeds, out, llm)
    metrics = run_org(plan)
    print(metrics_table(metrics))
    print(f"run directory: {out}")
    return 0 if metrics["success"] else 3


def run_agent_command(args: argparse.Namespace) -> int:
    from blockpact.experiments.org.remote import run_remote_agent

    task = load_task(args.world, args.amount)
    workers = [w for w in args.workers.split(",") if w]
    if args.role == "leader" and not workers:
        raise UserError("a leader needs --workers NAME,NAME,...")
    summary = run_remote_agent(task, args.role, args.name, args.broker, leader=args.leader, workers=workers,
                               mode=args.mode, seed=args.seed, idle_timeout=args.idle_timeout)
    print(summary)
    return 0
