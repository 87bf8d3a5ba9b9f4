"""`blockpact org run`: seeds of one organization on one task, a run directory, and S-Agents metrics.

metrics.json: {"task", "structure", "organization", "mode", "agents", "workers", "success" (every
seed succeeded), "success_rate", "time_cost_min" (mean over seeds, null when any seed's is NaN),
"mean_prompt_times", "messages", "llm_tokens", "runs": [per seed]}.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.agents.org.structures import Organization
from blockpact.agents.org.tasks import Task
from blockpact.experiments.org.runner import EpisodeResult, run_episode
from blockpact.experiments.run_events import Coords, EventWriter
from blockpact.experiments.rundir import RunDir

if TYPE_CHECKING:
    from blockpact.agents.llm.settings import LLMSettings


@dataclass(frozen=True)
class OrgRunPlan:
    task: Task
    org: Organization
    structure: str
    mode: str
    agents: str  # scripted | llm
    seeds: int
    out: Path
    llm: LLMSettings | None = None


def summarize(plan: OrgRunPlan, results: list[EpisodeResult], tokens: dict[str, Any]) -> dict[str, Any]:
    costs = [r.time_cost_min for r in results]
    return {
        "task": plan.task.name,
        "structure": plan.structure,
        "organization": plan.org.to_json(),
        "mode": plan.mode,
        "agents": plan.agents,
        "workers": len(plan.org.agents) - (0 if plan.org.kind == "solo" else 1),
        "success": all(r.success for r in results),
        "success_rate": sum(r.success for r in results) / len(results),
        "time_cost_min": None if any(c is None for c in costs) else round(statistics.fmean(costs), 4),  # type: ignore[arg-type]
        "mean_prompt_times": round(statistics.fmean(r.mean_prompt_times for r in results), 3),
        "messages": round(statistics.fmean(r.messages for r in results), 3),
        "llm_tokens": tokens,
        "runs": [r.to_json() for r in results],
    }


async def _run(plan: OrgRunPlan, run_dir: RunDir, writer: EventWriter) -> dict[str, Any]:
    results: list[EpisodeResult] = []
    tokens: dict[str, Any] = {"prompt": 0, "completion": 0}
    client = None
    if plan.llm is not None:
        from blockpact.agents.llm.client import LLMClient

        client = LLMClient(plan.llm, transcript=run_dir.transcripts / "llm.jsonl")
    try:
        for seed in range(plan.seeds):
            coords = Coords(condition=f"{plan.structure}-{plan.mode}", seed=seed)
            before = client.accounting.total() if client is not None else None
            result = await run_episode(plan.task, plan.org, plan.mode, seed, llm=client, writer=writer, coords=coords)
            if client is not None and before is not None:
                after = client.accounting.total()
                result.llm = {"calls": after.calls - before.calls, "prompt_tokens": after.prompt_tokens - before.prompt_tokens,
                              "completion_tokens": after.completion_tokens - before.completion_tokens}
            results.append(result)
        if client is not None:
            total = client.accounting.total()
            tokens = {"prompt": total.prompt_tokens, "completion": total.completion_tokens, "calls": total.calls}
    finally:
        if client is not None:
            await client.aclose()
    return summarize(plan, results, tokens)


def run_org(plan: OrgRunPlan) -> dict[str, Any]:
    run_dir = RunDir.create(plan.out)
    with EventWriter(run_dir.events) as writer:
        writer.emit("run_start", {"kind": "org", "task": plan.task.name, "structure": plan.structure, "mode": plan.mode,
                                  "agents": plan.agents, "seeds": plan.seeds, "organization": plan.org.to_json()})
        metrics = asyncio.run(_run(plan, run_dir, writer))
        writer.emit("run_end", {"success": metrics["success"], "time_cost_min": metrics["time_cost_min"]})
    run_dir.metrics.write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def metrics_table(metrics: dict[str, Any]) -> str:
    """What `blockpact org run` prints."""
    label = "scripted agents (no LLM)" if metrics["agents"] == "scripted" else "LLM agents"
    cost = metrics["time_cost_min"]
    lines = [
        f"{metrics['task']}: {metrics['structure']} ({metrics['organization']['kind']}, {metrics['workers']} worker(s)), "
        f"{metrics['mode']} collaboration, {label}",
        f"  success            {metrics['success']} ({metrics['success_rate']:.0%} of {len(metrics['runs'])} seed(s))",
        f"  time cost          {'NaN' if cost is None else f'{cost:.2f} simulated min'}",
        f"  mean prompt times  {metrics['mean_prompt_times']:.2f} per agent",
        f"  messages           {metrics['messages']:.1f}",
        f"  LLM tokens         {metrics['llm_tokens'].get('prompt', 0)} prompt + {metrics['llm_tokens'].get('completion', 0)} completion",
    ]
    for run in metrics["runs"]:
        cost = "NaN" if run["time_cost_min"] is None else f"{run['time_cost_min']:.2f} min"
        lines.append(f"  seed {run['seed']}: {'done' if run['success'] else 'not done'} "
                     f"({run['progress'][0]}/{run['progress'][1]}), time cost {cost}, prompts {run['prompt_times']}")
        lines += [f"    violation: {v}" for v in run["violations"]]
    return "\n".join(lines)
