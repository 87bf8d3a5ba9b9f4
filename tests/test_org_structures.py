"""Organization structures: trees keep one commander per agent, chains stay chains, graph cycles are reported."""

from __future__ import annotations

import tomllib

import pytest

from blockpact.agents.org.structures import (
    StructureError,
    build,
    chain_of_agents,
    graph_of_agents,
    solo,
    structure_from_spec,
    tree_of_agents,
)


def test_tree_of_agents_has_one_root_and_workers_that_command_nobody() -> None:
    org = tree_of_agents("Lead", ["A", "B", "C"])
    assert org.roots == ["Lead"]
    assert org.subordinates("Lead") == ["A", "B", "C"]
    assert all(org.commanders_of(w) == ["Lead"] and org.is_worker(w) for w in "ABC")
    assert org.can_command("Lead", "A") and not org.can_command("A", "B") and not org.can_command("A", "Lead")
    assert org.command_cycles() == []
    assert org.to_json() == {"kind": "tree", "agents": ["Lead", "A", "B", "C"], "commands": [["Lead", "A"], ["Lead", "B"], ["Lead", "C"]]}


def test_deeper_tree_from_a_toml_spec() -> None:
    spec = tomllib.loads(
        """
        structure = "toa"
        agents = ["Lead", "Mid", "A", "B"]
        [commands]
        Lead = ["Mid", "A"]
        Mid = ["B"]
        """
    )
    org = structure_from_spec(spec)
    assert org.kind == "tree" and org.roots == ["Lead"] and org.commanders_of("B") == ["Mid"]
    assert not org.is_worker("Mid") and org.is_worker("B")


def test_a_second_commander_in_a_tree_is_rejected_with_names() -> None:
    spec = {"structure": "tree", "agents": ["Lead", "Mid", "A"], "commands": {"Lead": ["Mid", "A"], "Mid": ["A"]}}
    with pytest.raises(
        StructureError,
        match=r"^org\.toml: in a tree of agents every agent has at most one commander \(in-degree <= 1\): 'A' is commanded by 'Lead', 'Mid'$",
    ):
        structure_from_spec(spec, "org.toml")


@pytest.mark.parametrize(
    ("commands", "error"),
    [
        ({"Lead": ["A"], "A": ["Lead"]}, r"cannot have a command cycle: (Lead -> A -> Lead|A -> Lead -> A)"),
        ({"Lead": ["A"]}, r"one root leader; these agents have no commander: Lead, B"),
        ({"Lead": ["A", "Zed"]}, r"commands name 'Zed', who is not among the agents"),
        ({"Lead": ["Lead"]}, r"'Lead' cannot command itself"),
    ],
)
def test_broken_trees(commands: dict, error: str) -> None:
    with pytest.raises(StructureError, match=error):
        build("tree", ["Lead", "A", "B"], commands)


def test_chain_runs_in_order_and_refuses_branches() -> None:
    org = chain_of_agents(["A", "B", "C"])
    assert list(org.graph.edges) == [("A", "B"), ("B", "C")] and org.roots == ["A"] and org.is_worker("C")
    with pytest.raises(StructureError, match=r"each agent commands at most the next one: 'A' commands B, C"):
        build("coa", ["A", "B", "C"], {"A": ["B", "C"]})


def test_graph_of_agents_reports_its_command_cycles() -> None:
    org = graph_of_agents(["A", "B", "C"])
    assert org.graph.number_of_edges() == 6
    cycles = org.command_cycles()
    assert {frozenset(c) for c in cycles if len(c) == 2} == {frozenset("AB"), frozenset("AC"), frozenset("BC")}
    assert sum(len(c) == 3 for c in cycles) == 2
    described = org.describe()
    assert "Command cycles: " in described
    assert all(" -> ".join([*cycle, cycle[0]]) in described for cycle in cycles)
    acyclic = graph_of_agents(["A", "B", "C"], {"A": ["B", "C"], "B": ["C"]})
    assert acyclic.command_cycles() == [] and "cycle" not in acyclic.describe()
    big = graph_of_agents([f"w{i}" for i in range(8)])
    assert len(big.command_cycles()) == 10 and big.describe().endswith("(and more)")


def test_solo_is_one_agent() -> None:
    org = solo("Ada")
    assert org.agents == ["Ada"] and org.roots == ["Ada"] and org.command_cycles() == []
    with pytest.raises(StructureError, match="solo means one agent, not 2: Ada, Ben"):
        build("solo", ["Ada", "Ben"])


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ({"structure": "star", "agents": ["A"]}, r"unknown structure 'star': use one of chain, coa, goa, graph, solo, toa, tree"),
        ({"structure": "tree", "agents": "A"}, r"org\.agents: expected a list of agent names"),
        ({"structure": "tree", "agents": []}, r"a tree needs at least one agent"),
        ({"structure": "tree", "agents": ["A", "A"]}, r"agent 'A' is listed twice"),
        ({"structure": "tree", "agents": ["A", "B"], "commands": {"A": "B"}}, r"org\.commands: expected a table"),
        ({"structure": "tree", "agents": ["A"], "leader": "A"}, r"org: unknown keys leader"),
        ({"agents": ["A"]}, r"org\.structure: expected one of"),
        ({"structure": "tree", "agents": ["a b"]}, r"agent 'a b' is not a valid name"),
    ],
)
def test_malformed_specs(spec: dict, error: str) -> None:
    with pytest.raises(StructureError, match=error):
        structure_from_spec(spec, "org")
