"""Organization structures as command graphs: an edge u -> v means u may command v.

Everyone may talk to everyone through the pool; only edges allow commands. Compared structures
(S-Agents): tree of agents (one root leader, every agent has at most one commander), chain of
agents (each agent commands the next), graph of agents (any commands, by default everyone commands
everyone, so command cycles exist and are reported), and solo (one agent, no commands).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from blockpact.agents.pool.message import check_name
from blockpact.errors import UserError

KINDS = {"tree": "tree", "toa": "tree", "chain": "chain", "coa": "chain", "graph": "graph", "goa": "graph", "solo": "solo"}
CYCLES_REPORTED = 10


class StructureError(UserError):
    """An organization spec that breaks its structure's rules; the message names the agents at fault."""


@dataclass(frozen=True)
class Organization:
    kind: str  # tree | chain | graph | solo
    graph: nx.DiGraph

    @property
    def agents(self) -> list[str]:
        return list(self.graph.nodes)

    @property
    def roots(self) -> list[str]:
        """Agents nobody commands (the leader of a tree or the head of a chain)."""
        return [a for a in self.graph.nodes if self.graph.in_degree(a) == 0]

    def commanders_of(self, agent: str) -> list[str]:
        return list(self.graph.predecessors(agent))

    def subordinates(self, agent: str) -> list[str]:
        return list(self.graph.successors(agent))

    def can_command(self, commander: str, agent: str) -> bool:
        return self.graph.has_edge(commander, agent)

    def is_worker(self, agent: str) -> bool:
        """A leaf: it may talk and report, but commands nobody."""
        return self.graph.out_degree(agent) == 0

    def command_cycles(self, limit: int = CYCLES_REPORTED) -> list[list[str]]:
        """Up to `limit` command cycles, shortest first (agents that can end up commanding themselves)."""
        cycles: list[list[str]] = []
        for bound in range(2, self.graph.number_of_nodes() + 1):
            for cycle in nx.simple_cycles(self.graph, length_bound=bound):
                if len(cycle) == bound:
                    cycles.append(cycle)
                    if len(cycles) >= limit:
                        return cycles
        return cycles

    def describe(self) -> str:
        """One paragraph for logs and reports: the edges, and the command cycles if any."""
        edges = ", ".join(f"{u} -> {v}" for u, v in self.graph.edges) or "no commands"
        text = f"{self.kind} of {len(self.graph)} agent(s): {edges}"
        cycles = self.command_cycles()
        if cycles:
            shown = "; ".join(" -> ".join([*c, c[0]]) for c in cycles)
            text += f". Command cycles: {shown}" + (" (and more)" if len(cycles) == CYCLES_REPORTED else "")
        return text

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "agents": self.agents, "commands": [[u, v] for u, v in self.graph.edges]}


def tree_of_agents(leader: str, workers: Sequence[str]) -> Organization:
    """One leader commanding every worker directly (the S-Agents default)."""
    return build("tree", [leader, *workers], {leader: list(workers)})


def chain_of_agents(agents: Sequence[str]) -> Organization:
    return build("chain", agents)


def graph_of_agents(agents: Sequence[str], commands: Mapping[str, Sequence[str]] | None = None) -> Organization:
    return build("graph", agents, commands)


def solo(agent: str) -> Organization:
    return build("solo", [agent])


def build(kind: str, agents: Sequence[str], commands: Mapping[str, Sequence[str]] | None = None) -> Organization:
    """An organization of `kind`; `commands` maps a commander to the agents it commands.
    Without `commands`: a tree's first agent commands the rest, a chain runs in list order, and a
    graph lets everyone command everyone."""
    if kind not in KINDS:
        raise StructureError(f"unknown structure {kind!r}: use one of {', '.join(sorted(KINDS))}")
    kind = KINDS[kind]
    graph = nx.DiGraph()
    for agent in agents:
        check_name(agent, "agent")
        if agent in graph:
            raise StructureError(f"agent {agent!r} is listed twice")
        graph.add_node(agent)
    if not agents:
        raise StructureError(f"a {kind} needs at least one agent")
    if commands is None:
        commands = default_commands(kind, list(agents))
    for commander, subordinates in commands.items():
        for agent in [commander, *subordinates]:
            if agent not in graph:
                raise StructureError(f"commands name {agent!r}, who is not among the agents ({', '.join(agents)})")
        for agent in subordinates:
            if agent == commander:
                raise StructureError(f"agent {agent!r} cannot command itself")
            graph.add_edge(commander, agent)
    organization = Organization(kind, graph)
    CHECKS[kind](organization)
    return organization


def default_commands(kind: str, agents: list[str]) -> dict[str, list[str]]:
    if kind == "tree":
        return {agents[0]: agents[1:]}
    if kind == "chain":
        return {a: [b] for a, b in itertools.pairwise(agents)}
    if kind == "graph":
        return {a: [b for b in agents if b != a] for a in agents}
    return {}


def check_tree(org: Organization) -> None:
    g = org.graph
    crowded = [a for a in g.nodes if g.in_degree(a) > 1]
    if crowded:
        details = "; ".join(f"{a!r} is commanded by {', '.join(map(repr, org.commanders_of(a)))}" for a in crowded)
        raise StructureError(f"in a tree of agents every agent has at most one commander (in-degree <= 1): {details}")
    if not nx.is_directed_acyclic_graph(g):
        edges = nx.find_cycle(g)
        cycle = " -> ".join([*(u for u, _ in edges), edges[0][0]])
        raise StructureError(f"a tree of agents cannot have a command cycle: {cycle}")
    if len(org.roots) != 1:
        raise StructureError(
            f"a tree of agents has one root leader; these agents have no commander: {', '.join(org.roots)}"
        )


def check_chain(org: Organization) -> None:
    check_tree(org)
    branching = [a for a in org.graph.nodes if org.graph.out_degree(a) > 1]
    if branching:
        raise StructureError(
            "in a chain of agents each agent commands at most the next one: "
            + "; ".join(f"{a!r} commands {', '.join(org.subordinates(a))}" for a in branching)
        )


def check_graph(org: Organization) -> None:
    """Any command graph is allowed; its cycles are reported by `command_cycles` and `describe`."""


def check_solo(org: Organization) -> None:
    if len(org.graph) != 1:
        raise StructureError(f"solo means one agent, not {len(org.graph)}: {', '.join(org.agents)}")


CHECKS = {"tree": check_tree, "chain": check_chain, "graph": check_graph, "solo": check_solo}


def structure_from_spec(spec: Mapping[str, Any], source: str = "organization") -> Organization:
    """An organization from a spec table, e.g. TOML:
    `structure = "tree"`, `agents = ["Lead", "A", "B"]`, `[commands] Lead = ["A", "B"]`."""
    unknown = sorted(set(spec) - {"structure", "agents", "commands"})
    if unknown:
        raise StructureError(f"{source}: unknown keys {', '.join(unknown)} (expected structure, agents, commands)")
    kind = spec.get("structure")
    agents = spec.get("agents")
    commands = spec.get("commands")
    if not isinstance(kind, str):
        raise StructureError(f"{source}.structure: expected one of {', '.join(sorted(KINDS))}, got {kind!r}")
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise StructureError(f"{source}.agents: expected a list of agent names, got {agents!r}")
    if commands is not None and (
        not isinstance(commands, Mapping)
        or not all(isinstance(v, list) and all(isinstance(a, str) for a in v) for v in commands.values())
    ):
        raise StructureError(f"{source}.commands: expected a table of commander = [agents], got {commands!r}")
    try:
        return build(kind, agents, commands)
    except UserError as exc:
        raise StructureError(f"{source}: {exc}") from None
