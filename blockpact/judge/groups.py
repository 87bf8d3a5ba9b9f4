"""Social structures (AdaSociety): groups that share rewards, as a weighted graph over the players.

A world declares `[[groups]]` (members, a share, and the time the group stands); a contract can
form one too ("Gizmo and Glitch share their rewards equally", settled by the judge). Here, from the
events alone:
- `social_graph(spec, t, events)`: the players and, for every group standing at time t, an edge
  between each two of its members at t weighted by the group's share (networkx; parallel groups add their weights);
- `group_sharing(spec, events)`: what each player receives (negative: gives) because of the
  world's groups: over each spell of a group's membership (worlds/membership.py: the members
  change when a player joins or leaves), every member of that spell hands over `share` of what
  it earned during it and gets an equal part of the pooled total (zero-sum within each spell);
- `group_outcomes(spec, rewards, events)`: welfare and Gini of every group (its members at the end),
  and its membership over time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from blockpact.judge.metrics import gini, reward_curves
from blockpact.worlds.events import Event
from blockpact.worlds.membership import membership_at, spells
from blockpact.worlds.spec.schema import GroupSpec, WorldSpec

if TYPE_CHECKING:
    import networkx as nx


def standing(group: GroupSpec, time: float) -> bool:
    return group.start <= time and (group.end is None or time < group.end)


def social_graph(spec: WorldSpec, time: float, events: Sequence[Event] = ()) -> nx.Graph:
    import networkx as nx  # 0.3 s to import: only where a graph is asked for (not in every run's metrics)

    graph = nx.Graph()
    graph.add_nodes_from(sorted(spec.players))
    for group in membership_at(spec.groups, events, spec.players, time).groups.values():
        if not standing(group, time):
            continue
        for i, a in enumerate(group.members):
            for b in group.members[i + 1 :]:
                weight = graph.get_edge_data(a, b, {"weight": 0.0})["weight"] + group.share
                graph.add_edge(a, b, weight=weight, groups=[*graph.get_edge_data(a, b, {"groups": []})["groups"], group.name])
    return graph


def group_sharing(spec: WorldSpec, events: Sequence[Event]) -> dict[str, float]:
    """Per player, the emeralds the world's groups move (0 for all without groups)."""
    out = {p: 0.0 for p in sorted(spec.players)}
    if not spec.groups and not any(e.kind == "group_form" for e in events):
        return out
    curves = reward_curves(events, {p: dict(s.values) for p, s in spec.players.items()})
    shares = {g.name: g.share for g in membership_at(spec.groups, events, spec.players).groups.values()}
    for spell in spells(spec.groups, events, spec.episode_seconds):
        earned = {p: curves[p].at(spell.end) - curves[p].at(spell.start) for p in spell.members if p in curves}
        if len(earned) < 2:
            continue
        share = shares[spell.group]
        pooled = share * sum(earned.values()) / len(earned)
        for p, e in earned.items():
            out[p] += pooled - share * e
    return out


def group_outcomes(spec: WorldSpec, rewards: Mapping[str, float], events: Sequence[Event] = ()) -> dict[str, dict[str, Any]]:
    """Welfare and Gini (None when a reward is negative) of every group of the world and every group formed
    during play, over its members at the end; with `events`, `membership`: its spells of fixed members."""
    out = {}
    by_group: dict[str, list[dict[str, Any]]] = {}
    for spell in spells(spec.groups, events, spec.episode_seconds):
        by_group.setdefault(spell.group, []).append({"from": spell.start, "until": spell.end, "members": list(spell.members)})
    for group in membership_at(spec.groups, events, spec.players).groups.values():
        values = [rewards.get(p, 0.0) for p in group.members]
        out[group.name] = {
            "members": list(group.members), "share": group.share, "from": group.start, "until": group.end,
            "welfare": math.fsum(values), "gini": None if any(v < 0 for v in values) else gini(values),
            "membership": by_group.get(group.name, []),
        }
    return out
