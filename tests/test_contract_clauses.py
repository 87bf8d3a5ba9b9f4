"""Every clause form, end to end: parsed from text, kept by the scripted cooperative players in a
simulated episode, and scored from that episode's events by the formal judge; greedy players
playing against the same contract break the breakable clauses, and the judge says so and settles
the penalties."""

from __future__ import annotations

import asyncio
import re
from functools import cache
from pathlib import Path

import pytest

from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import (
    Craft,
    Deposit,
    ForEach,
    FreeText,
    Give,
    Penalty,
    PerUnitTransfer,
    Pool,
    Quota,
    Signal,
    TotalQuota,
    WaitFor,
    parse_contract,
    render_contract,
)
from blockpact.judge.judgment import judge_formal, rewards_after
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "clauses.toml"
DOCS = Path(__file__).parent.parent / "docs" / "contracts.md"
DOC_PLAYERS = ["Ada", "Ben", "Cy"]


def doc_blocks(kind: str) -> list[str]:
    """The fenced blocks of docs/contracts.md marked `kind` ("contract" or "free-text")."""
    return re.findall(rf"```{kind}\n(.*?)```", DOCS.read_text(), flags=re.S)


CONTRACT = doc_blocks("contract")[-1]  # the whole contract the docs show
KINDS = [Quota, TotalQuota, Quota, Deposit, Craft, WaitFor, Signal, Give, PerUnitTransfer, Penalty, Pool]


@cache
def spec():
    return load_world(WORLD)


def contract():
    return parse_contract(CONTRACT, sorted(spec().players))


@cache
def play(cooperative: bool):
    """(events, rewards after the formal judgment, judgment) of one episode."""
    s = spec()

    async def run():
        world = SimWorld(s, seed=0)
        try:
            agents = {
                p: ScriptedCooperativeAgent(p, s, contract()) if cooperative else ScriptedGreedyAgent(p, s)
                for p in sorted(s.players)
            }
            await world.run_programs({p: a.proposal().code for p, a in agents.items()}, budget=s.episode_seconds)
            world.finish()
            return list(world.events)
        finally:
            await world.close()

    events = asyncio.run(run())
    obs = observables_from_events(s, events)
    judgment = judge_formal(contract(), obs)
    return obs, judgment, rewards_after(obs, judgment)


def test_every_clause_form_parses_and_renders_back() -> None:
    parsed = contract()
    assert [type(c.parts[0]) if isinstance(c, ForEach) else type(c) for c in parsed.clauses] == KINDS
    assert all(c.formal and "controlled form" in c.why for c in parsed.clauses)
    assert parsed.parties() == {"Ada", "Ben", "Cy"}
    again = parse_contract(render_contract(parsed.clauses), sorted(spec().players))
    assert again.clauses == parsed.clauses


def test_cooperative_players_keep_every_clause_they_are_party_to() -> None:
    obs, judgment, rewards = play(cooperative=True)
    statuses = {s["clause"]: s["status"] for s in judgment.clauses}
    assert statuses == {1: "kept", 2: "kept", 3: "kept", 4: "kept", 5: "kept", 6: "kept", 7: "kept",
                        8: "settled", 9: "settled", 10: "settled", 11: "settled"}, judgment.clauses
    assert not any(judgment.critiques.values())
    assert obs.crafted["Ada"] == {"crafting_table": 1}
    assert obs.inventories["Ben"].get("pumpkin", 0) == 0 and obs.chests["9,64,6"]["pumpkin"] >= 2
    assert sum(n for t, p, n in ((t, p, 1) for t, p, b in obs.digs if p == "Cy")) >= 2
    assert "penalty" not in judgment.reasoning
    values = list(rewards.values())
    assert max(values) - min(values) < 1e-9 and values[0] > 0  # clause 11 shares equally


def test_greedy_players_break_the_breakable_clauses_and_pay_the_penalty() -> None:
    obs, judgment, rewards = play(cooperative=False)
    scores = {s["clause"]: s for s in judgment.clauses}
    for n in (1, 2, 4, 5, 6, 7):
        assert scores[n]["status"] == "broken", scores[n]
    assert scores[1]["broken_by"] == ["Ada", "Ben", "Cy"]
    assert "more than the 2 clause 1 allows" in judgment.critiques["Ben"]
    assert "kept" in judgment.critiques["Ben"] and "bank chest" in judgment.critiques["Ben"]
    assert "crafted 0 crafting_table" in judgment.critiques["Ada"]
    assert "before any signal from Ada" in judgment.critiques["Cy"]
    assert "never sent the signal of clause 7" in judgment.critiques["Ada"]
    assert "penalty for breaking clause 1" in judgment.reasoning
    assert abs(sum(judgment.transfers.values()) - (obs.value("Ben", "pumpkin") - obs.value("Cy", "pumpkin"))) < 1e-9


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Each player mines at most 1.5 pumpkins every 30 seconds.", "a count of items must be a whole number, got 1.5"),
        ("Ben deposits 2.5 pumpkins into the bank chest.", "a count of items must be a whole number, got 2.5"),
        ("If Ada breaks clause 7, she pays 5 emeralds to Ben.", "the contract has 1 clauses"),
        ("Ada gives 1 pumpkin to Ada.", "Ada cannot give to himself"),
        ("Ada waits for Ada's signal.", "cannot wait for his own signal"),
        ("Dan crafts a crafting_table.", "unknown player 'Dan' (players: Ada, Ben, Cy)"),
    ],
)
def test_clauses_that_cannot_hold_stay_free_text_with_the_reason(text: str, reason: str) -> None:
    [clause] = parse_contract(f"1. {text}", ["Ada", "Ben", "Cy"]).clauses
    assert isinstance(clause, FreeText) and not clause.formal and reason in clause.why


def test_a_penalty_on_a_transfer_is_refused() -> None:
    parsed = parse_contract("1. Ada pays 2 emeralds to Ben.\n2. If Ada breaks clause 1, she pays 5 emeralds to Ben.", ["Ada", "Ben"])
    assert isinstance(parsed.clauses[1], FreeText) and "settled by the judge" in parsed.clauses[1].reason


def test_every_example_of_the_docs_is_in_the_controlled_form() -> None:
    blocks = doc_blocks("contract")
    assert len(blocks) >= 7
    for block in blocks:
        parsed = parse_contract(block, DOC_PLAYERS)
        assert len(parsed.clauses) == len(block.strip().splitlines())
        assert not parsed.free_text(), [(n, c.reason) for n, c in parsed.free_text()]
        assert parse_contract(render_contract(parsed.clauses), DOC_PLAYERS).clauses == parsed.clauses


def test_every_world_example_of_the_docs_is_read_formally_in_its_world() -> None:
    """`contract-world` blocks name a world's chests, regions or periods: read with that world (the one
    whose players they name: commons, or tests/worlds/contract_language.toml)."""
    worlds = [load_world("commons"), load_world(Path(__file__).parent / "worlds" / "contract_language.toml")]
    blocks = doc_blocks("contract-world")
    assert len(blocks) >= 3
    for block in blocks:
        [world] = [w for w in worlds if any(p in block for p in w.players)]
        parsed = parse_contract(block, sorted(world.players), spec=world)
        assert len(parsed.clauses) == len(block.strip().splitlines())
        assert not parsed.free_text(), [(n, c.reason) for n, c in parsed.free_text()]
        again = parse_contract(render_contract(parsed.clauses, world=world.name), sorted(world.players), spec=world)
        assert again.clauses == parsed.clauses


def test_the_free_text_examples_of_the_docs_stay_free_text() -> None:
    [block] = doc_blocks("free-text")
    parsed = parse_contract(block, DOC_PLAYERS)
    assert parsed.clauses and all(isinstance(c, FreeText) and c.reason for c in parsed.clauses)


def test_the_world_template_shows_a_contract_its_players_keep(tmp_path: Path) -> None:
    from blockpact.cli import main

    out = tmp_path / "quarry.toml"
    assert main(["world", "new", "quarry", "--out", str(out)]) == 0
    lines = [line[4:] for line in out.read_text().splitlines() if re.match(r"#\s+\d+\. ", line)]
    template = load_world(out)
    parsed = parse_contract("\n".join(lines), sorted(template.players))
    assert len(parsed.clauses) == 5 and not parsed.free_text()

    async def run():
        world = SimWorld(template, seed=0)
        try:
            agents = {p: ScriptedCooperativeAgent(p, template, parsed) for p in sorted(template.players)}
            await world.run_programs({p: a.proposal().code for p, a in agents.items()}, budget=template.episode_seconds)
            world.finish()
            return list(world.events)
        finally:
            await world.close()

    obs = observables_from_events(template, asyncio.run(run()))
    judgment = judge_formal(parsed, obs)
    assert obs.mined["Ada"].get("iron_ore", 0) >= 1 and obs.mined["Ben"].get("iron_ore", 0) >= 1
    assert sum(c.get("raw_iron", 0) for c in obs.chests.values()) >= 1  # Ada's deposits
    assert [s["status"] for s in judgment.clauses] == ["kept", "kept", "kept", "settled", "settled"], judgment.clauses


@pytest.mark.parametrize(("owner", "expected"), [("Ada", {"Ada": 1.0, "Ben": 0.0, "Cy": 0.0}), ("shared", {"Ada": 1 / 3, "Ben": 1 / 3, "Cy": 1 / 3}), (None, {"Ada": 0.0, "Ben": 0.0, "Cy": 0.0})])
def test_a_chest_owner_gets_its_contents_value_at_the_end(tmp_path: Path, owner: str | None, expected: dict) -> None:
    """Ben deposits his pumpkins into the bank chest (the whole contract above, kept): an owned chest's
    contents count for its owner, a shared one's for everyone equally, an unowned one's for nobody."""
    from blockpact.judge.metrics import reward_curves

    text = WORLD.read_text()
    if owner is not None:
        text = text.replace('name = "bank"', f'name = "bank"\nowner = "{owner}"')
    world = tmp_path / "clauses.toml"
    world.write_text(text)
    s = load_world(world)
    parsed = parse_contract(CONTRACT, sorted(s.players))

    async def run():
        sim = SimWorld(s, seed=0)
        try:
            agents = {p: ScriptedCooperativeAgent(p, s, parsed) for p in sorted(s.players)}
            await sim.run_programs({p: a.proposal().code for p, a in agents.items()}, budget=s.episode_seconds)
            sim.finish()
            return list(sim.sim.state.log.events), {p: sim.sim.state.reward(p) for p in s.players}
        finally:
            await sim.close()

    events, sim_rewards = asyncio.run(run())
    obs = observables_from_events(s, events)
    banked = obs.chests["9,64,6"]["pumpkin"]
    assert banked >= 2
    held = {p: sum(obs.value(p, i) * n for i, n in obs.inventories[p].items()) for p in obs.players}
    curves = reward_curves(events, {p: dict(s.players[p].values) for p in s.players})
    for p in obs.players:
        assert obs.inventory_value(p) == pytest.approx(held[p] + expected[p] * banked)
        assert sim_rewards[p] == pytest.approx(obs.inventory_value(p))  # the simulator agrees
        assert curves[p].values[-1] == pytest.approx(obs.inventory_value(p))  # and so does the plotted curve


def test_a_chest_owner_must_be_a_player_or_shared(tmp_path: Path) -> None:
    from blockpact.worlds.world_files import validate_world

    world = tmp_path / "clauses.toml"
    world.write_text(WORLD.read_text().replace('name = "bank"', 'name = "bank"\nowner = "Dan"'))
    [problem] = validate_world(world)
    assert problem.path == "chests[0].owner" and "unknown owner 'Dan'" in problem.message and '"shared"' in problem.message


def test_a_named_penalty_binds_only_its_breaker() -> None:
    obs, _, _ = play(cooperative=False)  # every greedy player broke the quota
    contract = parse_contract("1. Each player mines at most 2 pumpkins every 30 seconds.\n"
                              "2. If Ben breaks clause 1, he pays 4 emeralds to Cy.", sorted(spec().players))
    judgment = judge_formal(contract, obs)
    assert judgment.transfers == {"Ada": 0.0, "Ben": -4.0, "Cy": 4.0}
    assert [s["status"] for s in judgment.clauses] == ["broken", "settled"]
    assert judgment.clauses[0]["broken_by"] == ["Ada", "Ben", "Cy"]
