"""metrics.json: the run's outcome per condition, computed from the typed records (so from events.jsonl alone).

A seed's outcome is its last finished episode (with several episodes, agents have learnt from the
earlier ones' critiques by then); every episode is listed under `episodes` as well.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from blockpact.experiments.llm_accounting import llm_accounting
from blockpact.experiments.records import EpisodeRecord, RunRecord, SeedRecord
from blockpact.judge.metrics import gini, mean_std, social_welfare

MEASURED_ON = "last finished episode of each seed; rewards after transfers"
DISAGREEMENT_TOLERANCE = 1e-6  # emeralds


def _finite(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _gini(rewards: dict[str, float]) -> float | None:
    """None when a reward is negative (a transfer larger than the payer's holdings): Gini is undefined then."""
    return None if any(v < 0 for v in rewards.values()) else gini(rewards.values())


def judge_disagreement(episode: EpisodeRecord) -> dict[str, Any] | None:
    """Formal vs LLM judge on one episode: each one's transfers and the largest per-player difference."""
    by_source = {j.source: j for j in episode.judgments if j.valid}
    if not {"formal", "llm"} <= by_source.keys():
        return None
    formal, llm = by_source["formal"].transfers, by_source["llm"].transfers
    players = sorted(set(formal) | set(llm))
    diff = {p: llm.get(p, 0.0) - formal.get(p, 0.0) for p in players}
    return {"formal": formal, "llm": llm, "difference": diff, "max_abs_difference": max(map(abs, diff.values()), default=0.0)}


def judge_summary(seeds: list[SeedRecord]) -> dict[str, int]:
    """Over a condition's finished episodes: how often both judges ruled, how often they disagreed
    (some player's transfer differs), and how many LLM judgments were invalid."""
    episodes = [ep for s in seeds for ep in s.episodes if ep.finished]
    compared = [d for d in map(judge_disagreement, episodes) if d is not None]
    return {
        "compared": len(compared),
        "disagreed": sum(d["max_abs_difference"] > DISAGREEMENT_TOLERANCE for d in compared),
        "llm_invalid": sum(j.source == "llm" and not j.valid for ep in episodes for j in ep.judgments),
    }


def _episode(ep: EpisodeRecord) -> dict[str, Any]:
    rewards = ep.rewards or {}
    return {
        "episode": ep.episode,
        "rewards": rewards,
        "inventory_rewards": ep.inventory_rewards,
        "transfers": ep.transfers,
        "welfare": social_welfare(rewards),
        "gini": _gini(rewards),
        "sim_seconds": ep.sim_seconds,
        "program_errors": sum(p.failed for p in ep.programs),
        "judgments": {j.source: j.transfers for j in ep.judgments},
        "judge_disagreement": judge_disagreement(ep),
    }


def _seed_run(seed: SeedRecord) -> dict[str, Any] | None:
    final = seed.final
    if final is None or final.rewards is None:
        return None
    return {
        "seed": seed.seed,
        "rewards": final.rewards,
        "transfers": final.transfers,
        "contract": seed.contract,
        "contract_source": seed.contract_source,
        "welfare": social_welfare(final.rewards),
        "gini": _gini(final.rewards),
        "episodes": [_episode(ep) for ep in seed.episodes if ep.finished],
    }


def run_metrics(run: RunRecord) -> dict[str, Any]:
    conditions: dict[str, Any] = {}
    for condition in run.config.conditions:
        seeds = run.of_condition(condition.name)
        runs = [r for r in map(_seed_run, seeds) if r is not None]
        ginis = [r["gini"] for r in runs if r["gini"] is not None]
        conditions[condition.name] = {
            "contract_mode": condition.contract_mode,
            "gini": {k: _finite(v) for k, v in mean_std(ginis).items()},
            "welfare": {k: _finite(v) for k, v in mean_std([r["welfare"] for r in runs]).items()},
            "seeds_finished": len(runs),
            "seeds_planned": len(run.config.seeds),
            "runs": runs,
            "errors": [{"seed": s.seed, "error": e} for s in seeds for e in s.errors],
            "judges": judge_summary(seeds),
        }
    return {
        "world": run.config.world,
        "agents": run.config.agents,
        "backend": run.config.backend,
        "status": run.status,
        "episodes_per_seed": run.config.episodes,
        "measured_on": MEASURED_ON,
        "conditions": conditions,
        "warnings": run.warnings,
        "llm": llm_accounting(run),  # who played and what it cost (None for scripted runs)
        "resumes": [{"after_seq": r.after_seq, "units": _unit_list(r.units), "superseded": _unit_list(r.superseded),
                     "dropped_torn_line": r.dropped_line is not None} for r in run.resumes],
    }


def _unit_list(units: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"condition": c, "seed": s} for c, s in units]


def write_metrics(metrics: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(metrics, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
