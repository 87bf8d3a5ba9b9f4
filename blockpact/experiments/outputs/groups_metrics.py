"""The `groups` section of metrics.json: welfare and Gini per group, for the groups a world declares,
those formed during play (formGroup) and those a contract forms ("X and Y share their rewards equally"),
on each seed's last finished episode (rewards after transfers and sharing), with the mean over seeds.
Per seed, each group's `membership` (its spells of fixed members, worlds/membership.py) and the seed's
`membership_changes` (every joinGroup, leaveGroup and formGroup, in time order) show membership over time."""

from __future__ import annotations

import math
from typing import Any

from blockpact.experiments.log.records import RunRecord
from blockpact.judge.clauses import Pool
from blockpact.judge.contract import parse_contract
from blockpact.judge.groups import group_outcomes
from blockpact.judge.metrics import gini
from blockpact.experiments.outputs.stats import mean_std
from blockpact.worlds.membership import GROUP_EVENTS
from blockpact.worlds.spec.schema import WorldSpec


def _contract_groups(spec: WorldSpec, contract: str | None, rewards: dict[str, float]) -> dict[str, dict[str, Any]]:
    players = sorted(spec.players)
    parsed = parse_contract(contract, players, spec=spec)
    out = {}
    for n, clause in enumerate(parsed.clauses, 1):
        if isinstance(clause, Pool):
            values = [rewards.get(p, 0.0) for p in clause.players]
            out[f"contract clause {n}"] = {"members": list(clause.players), "share": 1.0, "from": 0.0, "until": None,
                                           "welfare": math.fsum(values), "gini": None if any(v < 0 for v in values) else gini(values)}
    return out


def groups_metrics(run: RunRecord, spec: WorldSpec) -> dict[str, Any] | None:
    conditions: dict[str, Any] = {}
    for condition in run.config.conditions:
        seeds = []
        for s in run.of_condition(condition.name):
            final = s.final
            if final is None or final.rewards is None:
                continue
            events = final.events or []
            groups = {**group_outcomes(spec, final.rewards, events), **_contract_groups(spec, s.contract, final.rewards)}
            if groups:
                changes = [{"time": e.time, "player": e.agent, "change": e.kind.removeprefix("group_"),
                            "group": e.data.get("group"), "members": list(e.data.get("members", []))}
                           for e in events if e.kind in GROUP_EVENTS]
                seeds.append({"seed": s.seed, "groups": groups, "membership_changes": changes})
        if not seeds:
            continue
        names = sorted({g for s in seeds for g in s["groups"]})
        summary = {}
        for name in names:
            outcomes = [s["groups"][name] for s in seeds if name in s["groups"]]
            ginis = [o["gini"] for o in outcomes if o["gini"] is not None]
            summary[name] = {
                "members": outcomes[0]["members"],
                "welfare": mean_std([o["welfare"] for o in outcomes])["mean"],
                "gini": mean_std(ginis)["mean"] if ginis else None,
                "seeds": len(outcomes),
                "changes": sum(1 for s in seeds for c in s["membership_changes"] if c["group"] == name),
            }
        conditions[condition.name] = {"groups": summary, "seeds": seeds}
    return {"conditions": conditions} if conditions else None


def groups_section(run: RunRecord) -> dict[str, Any] | None:
    """`groups_metrics` for the world the run recorded; a failure to rebuild it is reported."""
    from blockpact.experiments.log.resume import recorded_world

    try:
        spec = recorded_world(run)
    except Exception as exc:  # an old log without the world's text, or a world that no longer validates
        return {"error": f"cannot rebuild the run's world for group measures: {exc}"}
    return groups_metrics(run, spec)
