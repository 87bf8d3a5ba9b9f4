"""metrics.json of an organization run, a pure function of its events (S-Agents' measures).

Per condition (structure x mode): seeds planned / completed / failed (per cause) / interrupted;
over completed seeds: success rate (Wilson 95% interval), time to completion in simulated minutes
(over successful seeds: a run without success has no time cost, S-Agents' NaN), LLM calls (prompt
times) in all and per agent, messages, simulated seconds spent in LLM calls; each as mean, std and
a Student-t 95% confidence interval. Items and messages per agent are means over completed seeds.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from blockpact.experiments.play.org.records import OrgEpisode, OrgRun
from blockpact.experiments.outputs.stats import estimate
from blockpact.numbers import tidy

def stat(values: list[float]) -> dict[str, Any]:
    """n, mean, std (sample) and a Student-t 95% interval of the mean (null when undefined): the one estimate of
    blockpact's run metrics (experiments/outputs/stats.py), to 4 decimals."""
    e = estimate(values)

    def r(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return {"n": e.n, "mean": r(e.mean), "std": r(e.std), "ci95": None if e.low is None else [r(e.low), r(e.high)]}


def wilson(successes: int, n: int) -> list[float] | None:
    """Wilson 95% interval of a proportion (null without trials)."""
    if n == 0:
        return None
    z = 1.96
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _per_agent_mean(rows: list[dict[str, int]]) -> dict[str, float]:
    agents = sorted({a for r in rows for a in r})
    return {a: round(statistics.fmean(r.get(a, 0) for r in rows), 3) for a in agents} if rows else {}


def condition_metrics(spec: dict[str, Any], episodes: list[OrgEpisode], seeds_planned: int) -> dict[str, Any]:
    done = [e.end for e in episodes if e.end is not None]
    failed = [e for e in episodes if e.status == "failed"]
    successes = [r for r in done if r["success"]]
    causes = Counter(str(e.error.get("cause")) for e in failed if e.error)
    first_error = {c: next(str(e.error.get("error")) for e in failed if e.error and e.error.get("cause") == c) for c in causes}
    org = spec.get("organization", {})
    agents = list(org.get("agents", []))
    return {
        "structure": spec.get("structure"),
        "mode": spec.get("mode"),
        "organization": org,
        "workers": len(agents) - (0 if org.get("kind") == "solo" else 1),
        "seeds_planned": seeds_planned,
        "seeds_completed": len(done),
        "seeds_failed": len(failed),
        "seeds_interrupted": sum(1 for e in episodes if e.status == "interrupted"),
        "failures": {c: {"count": n, "first": first_error[c]} for c, n in causes.items()},
        "success_rate": round(len(successes) / len(done), 4) if done else None,
        "success_ci95": wilson(len(successes), len(done)),
        "time_cost_min": stat([r["time_cost_min"] for r in successes]),
        "llm_calls": stat([float(sum(r["prompt_times"].values())) for r in done]),
        "mean_prompt_times": stat([r["mean_prompt_times"] for r in done]),
        "messages": stat([float(r["messages"]) for r in done]),
        "think_seconds": stat([float(sum(r.get("think_seconds", {}).values())) for r in done]),
        "items_per_agent": _per_agent_mean([r.get("items_per_agent", {}) for r in done]),
        "messages_per_agent": _per_agent_mean([r.get("messages_per_agent", {}) for r in done]),
        "prompt_times_per_agent": _per_agent_mean([r["prompt_times"] for r in done]),
        "llm_tokens": {k: sum(int(r.get("llm", {}).get(k, 0)) for r in done) for k in ("calls", "prompt_tokens", "completion_tokens")},
        "runs": [{"condition": e.condition, "seed": e.seed, "status": e.status, **(e.end or {}),
                  **({"error": e.error} if e.error else {})} for e in episodes],
    }


def org_metrics(run: OrgRun) -> dict[str, Any]:
    seeds = int(run.config.get("seeds", 0))
    conditions = {c["name"]: condition_metrics(c, run.of_condition(c["name"]), seeds) for c in run.conditions}
    completed = sum(c["seeds_completed"] for c in conditions.values())
    planned = sum(c["seeds_planned"] for c in conditions.values())
    return {
        "kind": "org",
        "task": run.config.get("task"),
        "agents": run.config.get("agents"),
        "backend": run.config.get("backend", "sim"),
        "clock": "wall" if run.config.get("backend") == "minecraft" else "simulated",
        "llm": run.config.get("llm"),
        "seeds": seeds,
        "status": run.status,
        "all_completed": completed == planned,
        "success": completed == planned and all(c["success_rate"] == 1 for c in conditions.values()),
        "conditions": conditions,
        "warnings": run.warnings,
    }


def write_org_metrics(metrics: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(tidy(metrics), indent=2) + "\n", encoding="utf-8")
