"""The S-Agents comparison (Fig. 7 style): every structure in every collaboration mode on a task,
with scripted hourglass agents and the default latency model, over seeds.

    .venv/bin/python bench/organizations.py --task collect-logs --seeds 5
    .venv/bin/python bench/organizations.py --task shelter --seeds 5 --json

It plays what `blockpact org run TASK --structure toa,coa,goa,solo --mode async,rounds,relay --seeds N`
plays, through the same OrgRunner (experiments/play/org/run.py), into a run directory (kept, with its
report.html) and prints, per condition: success rate, time to
completion in simulated minutes (mean and Student-t 95% interval over successful seeds), LLM calls
per agent and messages, as a Markdown table or as JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import load_task
from blockpact.experiments import OrgPlan, OrgRunner, conditions_of


def _ci(stat: dict[str, Any], digits: int = 2) -> str:
    if stat["mean"] is None:
        return "NaN"
    if stat["ci95"] is None:
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} [{stat['ci95'][0]:.{digits}f}, {stat['ci95'][1]:.{digits}f}]"


def _listed(text: str) -> list[str]:
    """A comma-separated option, as `blockpact org run` reads --structure and --mode."""
    return [t.strip() for t in text.split(",") if t.strip()]


def rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, c in metrics["conditions"].items():
        out.append({"condition": name, "structure": c["structure"], "mode": c["mode"], "success_rate": c["success_rate"],
                    "time_cost_min": c["time_cost_min"], "mean_prompt_times": c["mean_prompt_times"],
                    "llm_calls": c["llm_calls"], "messages": c["messages"], "seeds_completed": c["seeds_completed"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="collect-logs")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--structures", default="toa,coa,goa,solo")
    parser.add_argument("--modes", default="async,rounds,relay")
    parser.add_argument("--latency-scale", type=float, default=1.0, help="every LLM call K times as long")
    parser.add_argument("--out", type=Path, help="run directory (default: a new temporary directory)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-org-")) / args.task
    structures = [(s, organization(s, args.workers)) for s in _listed(args.structures)]
    plan = OrgPlan(load_task(args.task), conditions_of(structures, _listed(args.modes)), args.seeds,
                   latency=hourglass_settings().latency.scaled(args.latency_scale))
    started = time.monotonic()
    outcome = OrgRunner.create(plan, out).run()
    wall = time.monotonic() - started
    code = outcome.exit_status
    table = rows(outcome.metrics)
    if args.json:
        print(json.dumps({"task": args.task, "seeds": args.seeds, "latency_scale": args.latency_scale, "exit_code": code, "wall_s": round(wall, 1),
                          "run_dir": str(out), "conditions": table}, indent=2))
        return
    print(f"{args.task}, {args.seeds} seeds, latency x{args.latency_scale:g}, exit code {code}, {wall:.0f} s wall, run directory {out}")
    print("| condition | success | time to completion, sim. min (mean [95% CI]) | LLM calls per agent | messages |")
    print("|---|---|---|---|---|")
    for r in table:
        success = "–" if r["success_rate"] is None else f"{r['success_rate']:.0%}"
        print(f"| {r['condition']} | {success} | {_ci(r['time_cost_min'])} | {_ci(r['mean_prompt_times'], 1)} | {_ci(r['messages'], 1)} |")


if __name__ == "__main__":
    main()
