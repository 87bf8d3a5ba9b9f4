"""`blockpact run WORLD`: simulate a world with the scripted baseline policies and print the outcome."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from blockpact.experiments.baseline import run_episode, summarise
from blockpact.experiments.sim_policies import POLICIES

LABEL = "agents: scripted (deterministic baseline policies, no LLM)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="simulate a world with scripted baseline agents and print welfare and Gini")
    p.add_argument("world", nargs="?", default="double_vein", help="built-in name or path (default: double_vein)")
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    p.add_argument("--conditions", default=",".join(POLICIES), help=f"comma-separated, from: {', '.join(POLICIES)}")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from blockpact.errors import UserError

    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = [c for c in conditions if c not in POLICIES]
    if unknown:
        raise UserError(f"unknown condition {', '.join(unknown)} (expected: {', '.join(POLICIES)})")
    results = [run_episode(args.world, c, seed) for c in conditions for seed in range(args.seeds)]
    summary = summarise(results)
    if args.json:
        print(json.dumps({"world": args.world, "agents": "scripted", "conditions": summary,
                          "runs": [r.__dict__ for r in results]}))
        return 0
    console = Console()
    console.print(f"[bold]{args.world}[/bold] on the simulator, {args.seeds} seeds — {LABEL}")
    table = Table("condition", "seed", "rewards (emeralds)", "welfare", "Gini", "sim time (s)")
    for r in results:
        table.add_row(r.condition, str(r.seed), ", ".join(f"{p} {v:g}" for p, v in r.rewards.items()),
                      f"{r.welfare:g}", f"{r.gini:.3f}", f"{r.sim_seconds:g}")
    console.print(table)
    totals = Table("condition", "welfare (mean ± std)", "Gini (mean ± std)", title="summary (scripted)")
    for c, s in summary.items():
        totals.add_row(c, f"{s['welfare']['mean']:.2f} ± {s['welfare']['std']:.2f}", f"{s['gini']['mean']:.3f} ± {s['gini']['std']:.3f}")
    console.print(totals)
    return 0
