"""Who leads, who works: an organization's command graph read as hourglass roles.

Tree and chain: an agent commands its successors; an agent with a commander works itself; the root
of a tree or chain only leads. A chain's middle agents do their share first and then pass the rest
on (S-Agents' chain: work proceeds link after link, and plans and reports travel hop by hop). Graph:
everyone may command everyone, but only the designated leader (the first agent) delegates; the
others are workers, who never delegate; every member reads every message in the pool. Solo: the
one agent does everything.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from blockpact.agents.org.structures import Organization, build
from blockpact.errors import UserError


@dataclass(frozen=True)
class Role:
    """Where an agent stands: who commands it, whom it commands, whether it works itself, and for
    each member of its team (itself included when it works) the working agents under that member."""

    name: str
    commander: str | None
    subordinates: tuple[str, ...]
    works: bool
    team: dict[str, tuple[str, ...]]
    sequential: bool = False  # a chain link: its own share first, then the rest goes down the chain
    overhears: bool = False  # a graph member: reads every message in the pool, not only its own


def organization(structure: str, workers: int) -> Organization:
    """The organization `blockpact org run --structure S --workers N` means: Leader + W1..WN."""
    if structure == "solo":
        return build("solo", ["Solo"])
    if workers < 1:
        raise UserError(f"--workers must be at least 1 for a {structure}, got {workers}")
    return build(structure, ["Leader", *(f"W{i}" for i in range(1, workers + 1))])


def leader_of(org: Organization) -> str:
    return org.roots[0] if org.roots else org.agents[0]


def delegation(org: Organization) -> nx.DiGraph:
    """The edges along which jobs are actually handed out."""
    if org.kind != "graph":
        return org.graph
    leader = leader_of(org)
    graph = nx.DiGraph()
    graph.add_nodes_from(org.agents)
    graph.add_edges_from((leader, a) for a in org.agents if a != leader and org.can_command(leader, a))
    return graph


def roles(org: Organization) -> dict[str, Role]:
    graph = delegation(org)
    works = {a: graph.out_degree(a) == 0 or graph.in_degree(a) > 0 for a in graph.nodes}
    result = {}
    for agent in org.agents:
        subordinates = tuple(graph.successors(agent))
        commanders = list(graph.predecessors(agent))
        members = ([agent] if works[agent] else []) + list(subordinates)
        team = {m: tuple(a for a in [m, *sorted(nx.descendants(graph, m) if m != agent else ())] if works[a]) for m in members}
        result[agent] = Role(agent, commanders[0] if commanders else None, subordinates, works[agent], team,
                             sequential=org.kind == "chain", overhears=org.kind == "graph")
    return result
