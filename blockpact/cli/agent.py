"""`blockpact agent`: one hourglass agent as its own process, talking to its organization through a broker."""

from __future__ import annotations

import argparse

from blockpact.agents.hourglass.mind import MODES
from blockpact.agents.org.tasks import load_task
from blockpact.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
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
    agent.add_argument("--latency-scale", type=float, default=1.0, metavar="K",
                       help="every LLM call takes K times the latency model's time (default 1)")
    agent.add_argument("--server", metavar="HOST:PORT",
                       help="play with a mineflayer bot on this server (its world built, e.g. by `blockpact server --world forest`) "
                            "instead of a simulated copy of the task world")
    agent.set_defaults(handler=run_agent_command)


def run_agent_command(args: argparse.Namespace) -> int:
    from blockpact.experiments import run_remote_agent

    task = load_task(args.world, args.amount)
    workers = [w for w in args.workers.split(",") if w]
    if args.role == "leader" and not workers:
        raise UserError("a leader needs --workers NAME,NAME,...")
    summary = run_remote_agent(task, args.role, args.name, args.broker, leader=args.leader, workers=workers,
                               mode=args.mode, seed=args.seed, idle_timeout=args.idle_timeout, server=args.server,
                               latency_scale=args.latency_scale)
    print(summary)
    return 0
