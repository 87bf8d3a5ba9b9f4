"""metrics.json: the run's outcome per condition, computed from the typed records (so from events.jsonl alone).

A seed's outcome is its last finished episode (with several episodes, agents have learnt from the
earlier ones' critiques by then); every episode is listed under `episodes` as well. Only completed
units are measured: failed ones are counted per cause (`failures`), interrupted ones in `units`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from blockpact.experiments.outputs.commons_metrics import commons_section
from blockpact.experiments.outputs.groups_metrics import groups_section
from blockpact.experiments.outputs.institution_metrics import institution_section
from blockpact.experiments.outputs.lateness import condition_lateness, episode_lateness, seed_lateness
from blockpact.experiments.outputs.live_notes import episode_notes, live_warnings
from blockpact.errors import UserError
from blockpact.experiments.outputs.llm_accounting import llm_accounting
from blockpact.experiments.outputs.promises import promises_of
from blockpact.experiments.log.records import EpisodeRecord, RunRecord, SeedRecord
from blockpact.experiments.outputs.settlement_gains import add_gains
from blockpact.judge.contract_reading import free_text_warning
from blockpact.experiments.outputs.stats import summary_stats
from blockpact.judge.metrics import gini_measure, social_welfare
from blockpact.numbers import tidy
from blockpact.worlds.spec.schema import WorldSpec

MEASURED_ON = "last finished episode of each completed seed; rewards after transfers (inventory welfare: before)"
DISAGREEMENT_TOLERANCE = 1e-6  # emeralds


def _finite(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _gini(rewards: dict[str, float]) -> dict[str, Any]:
    return gini_measure(rewards.values()).to_json()


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


def _episode(ep: EpisodeRecord, spec: WorldSpec | None = None, live: bool = False) -> dict[str, Any]:
    rewards = ep.rewards or {}
    return {
        "episode": ep.episode,
        "contract": ep.contract,  # in force in this episode (an institution's meetings may have amended it)
        "rewards": rewards,
        "inventory_rewards": ep.inventory_rewards,
        "transfers": ep.transfers,
        "welfare": social_welfare(rewards),
        "inventory_welfare": social_welfare(ep.inventory_rewards or rewards),
        "gini": _gini(rewards)["value"],
        "gini_measure": _gini(rewards),
        "sim_seconds": ep.sim_seconds,
        "program_errors": sum(p.failed for p in ep.programs),
        "judgments": {j.source: j.transfers for j in ep.judgments},
        "judge_disagreement": judge_disagreement(ep),
        **episode_notes(ep),  # live: a stalled runtime, what the server did not reproduce
        "lateness": episode_lateness(ep, spec, live),  # live: firings late or missed; None on the simulator
    }


def _seed_run(seed: SeedRecord, spec: WorldSpec | None = None, live: bool = False) -> dict[str, Any] | None:
    """A completed unit's outcome (its last episode); None for failed and interrupted units. With the world's `spec`,
    the promises the players made in negotiation and chat, judged on what they did (experiments/outputs/promises.py)."""
    final = seed.final
    if not seed.completed or final is None or final.rewards is None:
        return None
    measure = _gini(final.rewards)
    return {
        "seed": seed.seed,
        "rewards": final.rewards,
        "transfers": final.transfers,
        "contract": seed.contract,
        "contract_source": seed.contract_source,
        "welfare": social_welfare(final.rewards),
        "inventory_welfare": social_welfare(final.inventory_rewards or final.rewards),
        "gini": measure["value"],
        "gini_measure": measure,
        "episodes": [_episode(ep, spec, live) for ep in seed.episodes if ep.finished],
        "lateness": seed_lateness(seed, spec, live),
        "promises": tally.to_json() if spec is not None and (tally := promises_of(spec, seed)) is not None else None,
    }


def _stats(values: list[float], bounds: tuple[float | None, float | None] = (None, None)) -> dict[str, Any]:
    return {k: ([_finite(x) for x in v] if isinstance(v, list) else _finite(v) if isinstance(v, float) else v)
            for k, v in summary_stats(values, bounds).items()}


def gini_stats(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean, std and 95% CI over the seeds where Gini is defined; how many were undefined or shifted, and why."""
    defined = [r["gini"] for r in runs if r["gini"] is not None]
    undefined = [r for r in runs if r["gini"] is None]
    shifted = [r for r in runs if r["gini_measure"]["basis"] == "shifted"]
    notes = []
    if undefined:
        notes.append(f"{len(undefined)} of {len(runs)} seed(s) undefined ({undefined[0]['gini_measure']['reason']})")
    if shifted:
        notes.append(f"{len(shifted)} of {len(runs)} seed(s) measured on shifted rewards "
                     f"({shifted[0]['gini_measure']['reason']})")
    return {**_stats(defined, (0.0, 1.0)), "undefined": len(undefined), "shifted": len(shifted), "note": "; ".join(notes) or None}


def _outcome_key(run: dict[str, Any]) -> str:
    return json.dumps([run["rewards"], run["transfers"], run["contract"]], sort_keys=True)


def outcome_groups(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seeds with identical outcomes (rewards, transfers, contract) as one entry: a deterministic
    baseline's five seeds are one outcome, not five."""
    groups: dict[str, dict[str, Any]] = {}
    for r in runs:
        key = _outcome_key(r)
        if key not in groups:
            groups[key] = {"seeds": [], "rewards": r["rewards"], "transfers": r["transfers"], "welfare": r["welfare"],
                           "inventory_welfare": r["inventory_welfare"],
                           "gini": r["gini"], "gini_measure": r["gini_measure"], "contract_source": r["contract_source"]}
        groups[key]["seeds"].append(r["seed"])
    return list(groups.values())


def unit_counts(seeds: list[SeedRecord], planned: int) -> dict[str, int]:
    counts = {status: sum(s.status == status for s in seeds) for status in ("completed", "failed", "interrupted")}
    return {**counts, "not_started": max(planned - len(seeds), 0)}


def failures(seeds: list[SeedRecord]) -> dict[str, dict[str, Any]]:
    """Failed units per cause: how many, which seeds, and the first message."""
    out: dict[str, dict[str, Any]] = {}
    for s in seeds:
        if s.status != "failed":
            continue
        cause = s.cause or "internal"
        entry = out.setdefault(cause, {"count": 0, "seeds": [], "first_message": s.errors[0] if s.errors else ""})
        entry["count"] += 1
        entry["seeds"].append(s.seed)
    return out


def agent_errors(seeds: list[SeedRecord]) -> dict[str, Any]:
    """What the agents did wrong in completed units (outcomes, not failures), per player and kind, with
    the first message of each kind."""
    by_player: dict[str, dict[str, int]] = {}
    first: dict[str, str] = {}

    def add(player: str, kind: str, message: str | None) -> None:
        kinds = by_player.setdefault(player, {})
        kinds[kind] = kinds.get(kind, 0) + 1
        first.setdefault(kind, f"{player}: {message or kind}")

    for s in seeds:
        if not s.completed:
            continue
        for turn in s.turns:
            if turn.error:
                add(turn.player, "negotiation_format", turn.error)
        for kind, d in s.meetings:
            if kind == "meeting_turn" and d.get("error"):
                add(d["player"], "meeting_format", d["error"])
        for ep in s.episodes:
            for p in ep.programs:
                if (kind := p.error_kind) is not None:
                    add(p.player, kind, p.error)
                if p.critic_source == "error":
                    add(p.player, "critic_unusable", "the critic gave no usable verdict")
            for j in ep.judgments:
                if not j.valid:
                    add(f"{j.source} judge", "judgment_invalid", j.error)
    total = sum(n for kinds in by_player.values() for n in kinds.values())
    return {"total": total, "by_player": by_player, "first": first}


def contract_warnings(run: RunRecord) -> list[str]:
    """A warning per distinct contract played under with clauses nothing formal reads."""
    seen: dict[str, list[str]] = {}
    for s in run.seeds:
        if s.contract:
            seen.setdefault(s.contract, []).append(f"{s.condition} seed {s.seed}")
    out = []
    world: object = run.config.world
    if seen and run.config.world_source:  # the world as the run loaded it names its chests and regions
        from blockpact.experiments.log.resume import recorded_world

        try:
            world = recorded_world(run)
        except Exception:  # noqa: BLE001 - a world that no longer loads is read by name alone
            world = run.config.world
    for text, where in seen.items():
        more = f" (and {len(where) - 1} more unit(s) with the same text)" if len(where) > 1 else ""
        warning = free_text_warning(text, run.config.players, world,
                                    f"the contract of condition {where[0]}{more}")
        if warning:
            out.append(warning)
    return out


def by_episode(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Welfare and Gini of each episode index over the completed seeds: what agents learnt across episodes."""
    count = max((len(r["episodes"]) for r in runs), default=0)
    out = []
    for i in range(count):
        episodes = [r["episodes"][i] for r in runs if len(r["episodes"]) > i]
        ginis = [e["gini"] for e in episodes if e["gini"] is not None]
        out.append({"episode": i, "seeds": len(episodes), "welfare": _stats([e["welfare"] for e in episodes]),
                    "gini": _stats(ginis, (0.0, 1.0))})
    return out


def world_reference(run: RunRecord) -> dict[str, Any] | None:
    """The world's declared reference optimum (`[episode] reference_welfare`, `reference_method`), if any."""
    from blockpact.experiments.log.resume import recorded_world

    try:
        return recorded_world(run).extra.get("reference")
    except Exception:  # noqa: BLE001 - a world that no longer loads: no reference to measure against
        return None


def efficiency(runs: list[dict[str, Any]], reference: dict[str, Any] | None) -> dict[str, Any] | None:
    """Settled and inventory welfare as shares of the world's reference optimum; None without one."""
    if reference is None:
        return None
    best = float(reference["welfare"])
    return {"reference_welfare": best, "how": reference["how"],
            "settled": _stats([r["welfare"] / best for r in runs], (0.0, None)),
            "inventory": _stats([r["inventory_welfare"] / best for r in runs], (0.0, None))}


def run_metrics(run: RunRecord) -> dict[str, Any]:
    conditions: dict[str, Any] = {}
    reference = world_reference(run)
    spec = _recorded_spec(run)
    live = run.config.backend != "sim"
    for condition in run.config.conditions:
        seeds = run.of_condition(condition.name)
        runs = [r for r in (_seed_run(s, spec, live) for s in seeds) if r is not None]
        conditions[condition.name] = {
            "contract_mode": condition.contract_mode,
            "gini": gini_stats(runs),
            "welfare": _stats([r["welfare"] for r in runs]),  # settled: after the judge's transfers
            "inventory_welfare": _stats([r["inventory_welfare"] for r in runs]),  # what the players hold
            "efficiency": efficiency(runs, reference),  # against the world's reference_welfare; None without one
            "seeds_finished": len(runs),  # completed units: the only ones measured
            "seeds_planned": len(run.config.seeds),
            "units": unit_counts(seeds, len(run.config.seeds)),
            "failures": failures(seeds),
            "runs": runs,
            "lateness": condition_lateness(runs, live),  # live firings late or missed; zero on the simulator
            "by_episode": by_episode(runs),  # the learning curve: each episode index over the seeds
            "outcomes": outcome_groups(runs),
            "errors": [{"seed": s.seed, "error": e, "cause": c} for s in seeds for e, c in zip(s.errors, s.causes)],
            "agent_errors": agent_errors(seeds),
            "judges": judge_summary([s for s in seeds if s.completed]),
        }
    gain_warnings = add_gains(conditions)
    return {
        "world": run.config.world,
        "agents": run.config.agents,
        "population": dict(run.config.population) if run.config.population else None,  # who filled each slot
        "backend": run.config.backend,
        "lockstep": bool((run.config.live or {}).get("lockstep")),  # live races ordered as on the simulator
        "status": run.status,
        "all_completed": all_completed(run),
        "episodes_per_seed": run.config.episodes,
        "measured_on": MEASURED_ON,
        "conditions": conditions,
        "commons": commons_section(run),  # GovSim's measures; None without renewable resources
        "groups": groups_section(run),  # welfare and Gini per group; None without groups
        "institution": institution_section(run),  # rules in force per episode, proposals, votes; None without one
        "warnings": [*run.warnings, *(f"world {run.config.world}: {w}" for w in run.config.world_warnings),
                     *contract_warnings(run), *gain_warnings, *live_warnings(run)],
        "llm": llm_accounting(run),  # who played and what it cost (None for scripted runs)
        "resumes": [{"after_seq": r.after_seq, "units": _unit_list(r.units), "superseded": _unit_list(r.superseded),
                     "dropped_torn_line": r.dropped_line is not None} for r in run.resumes],
    }


def _recorded_spec(run: RunRecord) -> WorldSpec | None:
    """The world as the run played it (run_start's source text), for measures that read it; None for older logs."""
    from blockpact.experiments.log.resume import recorded_world

    try:
        return recorded_world(run) if run.config.world_source else None
    except UserError:
        return None  # a world file this version cannot load: the measures that need it are left out


def all_completed(run: RunRecord) -> bool:
    """Every planned unit completed: what exit status 0 means."""
    done = {(s.condition, s.seed) for s in run.seeds if s.completed}
    return all((c.name, seed) in done for c in run.config.conditions for seed in run.config.seeds)


def _unit_list(units: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"condition": c, "seed": s} for c, s in units]


def write_metrics(metrics: dict[str, Any], path: Path) -> None:
    """Numbers to twelve significant digits (blockpact.numbers): 188.0, not 187.99999999999997."""
    path.write_text(json.dumps(tidy(metrics), indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
