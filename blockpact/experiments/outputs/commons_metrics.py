"""GovSim's measures for every run in a world with dynamics, from events.jsonl alone.

Per resource (a valued block some dynamics rule renews, in its region): survival time (when the
stock first fell below its collapse threshold; the episode's end if never), whether it collapsed,
over-usage (the fraction of harvests that left the stock below the level from which it regrows to
capacity in one period) and the final stock. Per condition, over seeds: survival rate (seeds in
which no resource collapsed), mean survival time, efficiency (welfare / the reference optimum)
and equality (1 - Gini). Blocks that rules keep low (pollution) are no resource and are left out.

Readings:
- collapse threshold: a rule's `when = "B in R >= k"` on its own block and region (k; `> k` gives
  k + 1); a grow rule without one collapses at 0 (nothing left to multiply); a regrow or spawn rule
  without one cannot collapse;
- sustainable level: for a grow rule with a cap and a factor f > 1, cap / f; otherwise none, and
  over-usage is not defined;
- a resource whose every renewing rule is guarded by a condition on another resource that collapsed and
  can never hold again (`when = "pumpkin in pumpkins >= 2"` once the pumpkins collapsed and fewer than 2
  are left: after a collapse a stock only falls) can no longer regrow: it does not survive from then on,
  even with blocks left (`regrowth_lost` says when and why); chains of such guards are followed;
- the reference optimum is the world's own (`[episode] reference_welfare` with `reference_method`),
  else none, and efficiency is not reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from blockpact.experiments.log.records import EpisodeRecord, RunRecord
from blockpact.experiments.outputs.stats import mean_std
from blockpact.judge.metrics import Curve, gini, resource_curves
from blockpact.worlds.spec.schema import GrowRule, WorldSpec

MEASURED_ON = "last finished episode of each seed"
# Why a resource has no over-usage: GovSim's sustainable level (the stock that regrows to capacity in one period)
# exists for a stock growing by a factor up to a cap (a `grow` rule), not for blocks coming back one by one.
NO_SUSTAINABLE_LEVEL = ("not defined: the resource is renewed by a rule other than growth by a factor up to a cap, so it "
                        "has no sustainable level (the stock from which it regrows to capacity in one period)")


@dataclass(frozen=True)
class Resource:
    key: str  # "block@region", as in resource_curves
    threshold: float | None  # collapse when the stock falls below this; None: it cannot collapse
    sustainable_level: float | None  # harvests leaving less are over-use; None: not defined



@dataclass
class Sustainability:
    """GovSim's figures for a commons: how long the resource lasted and how far use exceeded its regrowth."""

    survival_time: float  # when the resource first fell below its collapse threshold (episode end if never)
    collapsed: bool
    over_usage: float  # fraction of harvests taken while the stock was below the sustainable level
    final_stock: float


def sustainability(curve: Curve, threshold: float, sustainable_level: float, episode_end: float) -> Sustainability:
    """From a resource curve: collapse = stock below `threshold`; over-usage = harvests below `sustainable_level`.

    A harvest is a step down in the curve; it counts as over-use when it leaves the stock below the
    level from which it can still regrow to capacity in one period (for doubling: half the capacity).
    """
    survival, collapsed = episode_end, False
    harvests = over = 0
    previous = curve.values[0] if curve.values else 0.0
    for t, v in zip(curve.times, curve.values):
        if v < previous:
            harvests += int(previous - v)
            if v < sustainable_level:
                over += int(previous - v)
        if v < threshold and not collapsed and t <= episode_end:  # live: the clock runs on while programs stop
            survival, collapsed = t, True
        previous = v
    return Sustainability(survival, collapsed, over / harvests if harvests else 0.0, curve.values[-1] if curve.values else 0.0)


def _threshold(rule: Any) -> float | None:
    for c in rule.when:
        if (c.block, c.region) == (rule.block, rule.region) and c.op in (">=", ">"):
            return float(c.count + (c.op == ">"))
    return 1.0 if isinstance(rule, GrowRule) else None


def commons_resources(spec: WorldSpec) -> list[Resource]:
    """The renewable resources of a world: blocks renewed by a rule and worth something to a player."""
    from blockpact.agents.scripted.world_facts import WorldFacts

    facts = WorldFacts(spec)
    valued = {b for p in spec.players for b in facts.block_values(p)}
    out: dict[str, Resource] = {}
    for rule in spec.rules:
        if rule.block not in valued:
            continue
        level = rule.cap / rule.factor if isinstance(rule, GrowRule) and rule.cap and rule.factor > 1 else None
        key = f"{rule.block}@{rule.region}"
        out.setdefault(key, Resource(key, _threshold(rule), level))
    return list(out.values())


def _finite(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def episode_measures(episode: EpisodeRecord, resources: list[Resource], end: float,
                     spec: WorldSpec | None = None) -> dict[str, dict[str, Any]]:
    curves = resource_curves(episode.events)
    out = {}
    for r in resources:
        if r.key not in curves:
            continue
        s = sustainability(curves[r.key], r.threshold if r.threshold is not None else -math.inf,
                           r.sustainable_level if r.sustainable_level is not None else -math.inf, end)
        out[r.key] = {
            "survival_time": s.survival_time, "collapsed": s.collapsed, "final_stock": s.final_stock,
            "over_usage": s.over_usage if r.sustainable_level is not None else None,
        }
    if spec is not None:
        for key, (at, why) in regrowth_lost(spec, curves, out).items():
            out[key].update(survival_time=at, collapsed=True, regrowth_lost={"at": at, "because": why})
    return out


def regrowth_lost(spec: WorldSpec, curves: dict[str, Any], measured: dict[str, dict[str, Any]]) -> dict[str, tuple[float, str]]:
    """Per resource that can no longer regrow before it collapsed of itself: when, and why."""
    collapsed = {k: m["survival_time"] for k, m in measured.items() if m["collapsed"]}
    lost: dict[str, tuple[float, str]] = {}
    changed = True
    while changed:  # a resource starved by another may starve a third
        changed = False
        for key in measured:
            deaths = [_rule_dies(rule, key, collapsed, curves) for rule in spec.rules if f"{rule.block}@{rule.region}" == key]
            if not deaths or any(d is None for d in deaths):
                continue
            at, why = max(deaths, key=lambda d: d[0])  # type: ignore[arg-type, return-value]
            if key not in collapsed or at < collapsed[key] - 1e-9:
                collapsed[key], lost[key] = at, (at, why)
                changed = True
    return lost


def _rule_dies(rule: Any, key: str, collapsed: dict[str, float], curves: dict[str, Any]) -> tuple[float, str] | None:
    """When a renewing rule stops for good: the first moment one of its conditions on another, collapsed resource
    can never hold again (every condition must hold for the rule to fire); None if that never happens."""
    found: tuple[float, str] | None = None
    for c in rule.when:
        other = f"{c.block}@{c.region}"
        if other == key or other not in collapsed or other not in curves or c.op not in (">=", ">"):
            continue
        need = c.count + (c.op == ">")
        curve, since = curves[other], collapsed[other]
        points = [(since, curve.at(since))] + [(t, v) for t, v in zip(curve.times, curve.values) if t > since]
        at = next((t for t, v in points if v < need), None)
        if at is not None and (found is None or at < found[0]):
            found = (at, f"{other} collapsed at {since:g} s, and from {at:g} s its regrowth's condition {c.block} in "
                         f"{c.region} {c.op} {c.count:g} can no longer hold")
    return found


def _mean(values: list[float]) -> float | None:
    return _finite(mean_std(values)["mean"]) if values else None


def commons_metrics(run: RunRecord, spec: WorldSpec) -> dict[str, Any] | None:
    """The `commons` section of metrics.json; None for a world without renewable resources."""
    resources = commons_resources(spec)
    if not resources:
        return None
    reference = spec.extra.get("reference")
    conditions: dict[str, Any] = {}
    for condition in run.config.conditions:
        finals = [(s.seed, s.final) for s in run.of_condition(condition.name) if s.final is not None and s.final.finished]
        seeds = []
        for seed, ep in finals:
            rewards = ep.rewards or {}
            welfare = sum(rewards.values())
            seeds.append({
                "seed": seed,
                # a live episode's clock runs on while its programs are stopped (303 s of a 300 s one): a resource
                # that never collapsed survived the episode's length, on either backend
                "resources": episode_measures(ep, resources, min(ep.sim_seconds or spec.episode_seconds,
                                                                 spec.episode_seconds), spec),
                "welfare": welfare,
                "efficiency": welfare / reference["welfare"] if reference else None,
                "equality": None if any(v < 0 for v in rewards.values()) else 1.0 - gini(rewards.values()),
            })
        per_resource = {}
        for r in resources:
            measured = [s["resources"][r.key] for s in seeds if r.key in s["resources"]]
            per_resource[r.key] = {
                "survival_rate": _mean([0.0 if m["collapsed"] else 1.0 for m in measured]),
                "survival_time": _mean([m["survival_time"] for m in measured]),
                "collapsed_seeds": [s["seed"] for s in seeds if s["resources"].get(r.key, {}).get("collapsed")],
                "over_usage": _mean([m["over_usage"] for m in measured if m["over_usage"] is not None]),
            }
        conditions[condition.name] = {
            "seeds": seeds,
            "survival_rate": _mean([0.0 if any(m["collapsed"] for m in s["resources"].values()) else 1.0 for s in seeds]),
            "resources": per_resource,
            "efficiency": _mean([s["efficiency"] for s in seeds if s["efficiency"] is not None]),
            "equality": _mean([s["equality"] for s in seeds if s["equality"] is not None]),
        }
    return {
        "measured_on": MEASURED_ON,
        "resources": [{"key": r.key, "collapse_below": r.threshold, "sustainable_level": r.sustainable_level,
                       "over_usage_undefined": None if r.sustainable_level is not None else NO_SUSTAINABLE_LEVEL}
                      for r in resources],
        "reference": reference or {"welfare": None, "how": "the world declares no reference optimum, so efficiency is not reported"},
        "conditions": conditions,
    }


def commons_section(run: RunRecord) -> dict[str, Any] | None:
    """`commons_metrics` for the world the run recorded; a failure to rebuild that world is reported, not hidden."""
    from blockpact.experiments.log.resume import recorded_world

    try:
        spec = recorded_world(run)
    except Exception as exc:  # an old log without the world's text, or a world that no longer validates
        return {"error": f"cannot rebuild the run's world for GovSim's measures: {exc}"}
    return commons_metrics(run, spec)
