"""The cooperative player plans: hand-written contracts with every clause kind, in worlds of the shapes baselines fail
on (tests/worlds/: a pooled diamond pickaxe, a production chain with a table to place and ore to smelt, a tool lent
down a chain out of an owner's chest, two coupled commons in clans, a fishery), are played by the scripted
cooperative players as written: every clause that can be broken is kept, in the world."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.scripted.contract_search import play, settled_rewards
from blockpact.agents.scripted.recipes import RecipePlanner
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import parse_contract
from blockpact.judge.formal import judge_formal
from blockpact.worlds.spec.mcdata import load
from blockpact.worlds.world_files import load_world

WORLDS = Path(__file__).parent / "worlds"

CONTRACTS = {
    # a stag hunt: two deposits, the waits in the other order than the signals come, a craft, an assignment, sharing
    "obsidian_pact": """
1. Ivy deposits 1 diamond into the forge chest.
2. Kai deposits 1 diamond into the forge chest.
3. Ivy signals Jun when done.
4. Kai signals Jun when done.
5. Jun waits for Ivy's signal.
6. Jun waits for Kai's signal.
7. Jun crafts a diamond_pickaxe.
8. Jun mines all obsidian.
9. Kai mines all pumpkins.
10. All players share their rewards equally.""",
    # a production chain: four recipe levels, a crafting table placed, ore smelted; collecting, shares, penalties
    "smithy_chain": """
1. Oto deposits 3 raw_iron into the depot chest.
2. Oto deposits 1 coal into the depot chest.
3. Nia crafts an iron_pickaxe.
4. Nia mines all diamond_ore.
5. Pia collects all pumpkins.
6. Nia transfers 20% of the value of her diamond to Oto.
7. Pia pays 0.5 emeralds per pumpkin collected to Oto.
8. If Nia breaks clause 4, she pays 10 emeralds to Oto.""",
    # a lending chain out of the owner's chest: a signalled turn, then a turn without a signal, back to the owner
    "locked_pick": """
1. Sam takes the iron_pickaxe first and returns it to the chest, then signals Tia.
2. Tia takes the iron_pickaxe first and returns it to the chest, then Rex takes it.
3. Sam mines all diamond_ore.
4. Tia mines all gold_ore.
5. Rex mines all pumpkins.
6. Sam pays Rex 20 emeralds.
7. Tia gives all diamond to Sam.""",
    # clan totals and a total over everyone, every period, with a penalty
    "twin_commons": """
1. Ada, Bea, Cid and Dov together mine at most 6 pumpkins every 60 seconds.
2. Eve, Fay, Gus and Hal together mine at most 6 pumpkins every 60 seconds.
3. All players together mine at most 8 melons every 60 seconds.
4. Whoever breaks a clause pays 5 emeralds to every other player.""",
    # quotas each, at least, over the episode; transfers to every other player; a pair sharing
    "kelp_fishery": """
1. Each player mines at most 5 dried_kelp_block every 60 seconds.
2. Ama mines at least 3 dried_kelp_block every 60 seconds.
3. Bex mines at most 40 dried_kelp_block.
4. Each player transfers 1 emerald to every other player.
5. Ama and Bex share their rewards equally.""",
}


def episode(world: str, text: str | None):
    spec = load_world(WORLDS / f"{world}.toml")
    contract = parse_contract(text, sorted(spec.players), world=spec.name) if text else None
    obs = asyncio.run(play(spec, contract, 0))
    return spec, contract, obs


@pytest.mark.parametrize("world", sorted(CONTRACTS))
def test_a_hand_contract_is_kept_as_written(world: str) -> None:
    spec, contract, obs = episode(world, CONTRACTS[world])
    assert not contract.free_text()
    judgment = judge_formal(contract, obs)
    statuses = {c["clause"]: c["status"] for c in judgment.clauses}
    if world == "locked_pick":  # Tia mines gold, never diamond: her gift of all diamond moves nothing
        assert judgment.clauses[6]["not_applicable"] == "Tia held no diamond to give, so the gift moved nothing"
        del statuses[7]
    assert all(s in ("kept", "settled") for s in statuses.values()), judgment.clauses
    rewards = settled_rewards(contract, obs)
    if world == "obsidian_pact":  # the pooled pickaxe mined every obsidian: 6 x 12 + 9 pumpkins, shared
        assert obs.inventories["Jun"]["obsidian"] == 6 and rewards == {"Ivy": 27, "Jun": 27, "Kai": 27}
        senders = [sender for _, sender, _ in obs.signals]
        assert senders[:2] == ["Kai", "Ivy"]  # Jun waited for Ivy first: Kai's earlier signal was not lost
    if world == "smithy_chain":  # planks, a table placed, sticks, ingots smelted, the pickaxe: every diamond
        assert obs.inventories["Nia"]["diamond"] == 5 and obs.crafted["Nia"]["iron_pickaxe"] == 1
    if world == "locked_pick":  # the tool went Sam -> Tia and is back in Rex's locker, where it counts for him
        takers = [op.player for op in obs.chest_ops if op.item == "iron_pickaxe" and op.delta < 0]
        assert takers == ["Sam", "Tia"] and not any("iron_pickaxe" in inv for inv in obs.inventories.values())
        assert rewards["Rex"] == 30 + 6 + 20
    if world == "twin_commons":  # 12 pumpkins and 8 melons every period, all 10 periods: the commons survive
        assert sum(rewards.values()) == 200
    if world == "kelp_fishery":
        assert obs.inventories["Bex"]["dried_kelp_block"] == 40 and sum(rewards.values()) == 240


def test_greedy_players_break_what_the_cooperative_ones_keep() -> None:
    """The same hand contract, played by greedy players: the judge finds its breakable clauses broken."""
    spec = load_world(WORLDS / "twin_commons.toml")
    contract = parse_contract(CONTRACTS["twin_commons"], sorted(spec.players), world=spec.name)

    async def greedy():
        world = SimWorld(spec, 0)
        try:
            programs = {p: ScriptedGreedyAgent(p, spec).proposal().code for p in sorted(spec.players)}
            await world.run_programs(programs, budget=spec.episode_seconds)
            world.finish()
            return list(world.events)
        finally:
            await world.close()

    from blockpact.judge.observables import observables_from_events

    judgment = judge_formal(contract, observables_from_events(spec, asyncio.run(greedy())))
    assert [c["status"] for c in judgment.clauses[:3]] == ["broken", "broken", "broken"]


def test_the_plan_of_a_production_chain_places_a_table_and_smelts() -> None:
    spec = load_world(WORLDS / "smithy_chain.toml")
    contract = parse_contract(CONTRACTS["smithy_chain"], sorted(spec.players), world=spec.name)
    plan = ScriptedCooperativeAgent("Nia", spec, contract).plan
    ops = [(s.op, s.args.get("item")) for s in plan.steps]
    assert ("place", "crafting_table") in ops and ("smelt", "raw_iron") in ops
    assert ops.index(("place", "crafting_table")) < ops.index(("craft", "iron_pickaxe"))
    fetch = next(s for s in plan.steps if s.op == "take" and s.args["item"] == "raw_iron")
    assert fetch.after and plan.find(fetch.after[-1]).op == "wait_items"  # it waits for Oto's deposit, then fetches
    mine = next(s for s in plan.steps if s.op == "mine" and s.args["block"] == "diamond_ore")
    assert plan.find(mine.after[-1]).args.get("item") == "iron_pickaxe"  # mines only once the pickaxe is made


def test_recipes_are_planned_through_every_level_from_what_is_held() -> None:
    planner = RecipePlanner(load("1.20.4"))
    plan = planner.plan("iron_pickaxe", 1, Counter(oak_log=3, raw_iron=3, cobblestone=8), table=False, furnace=False)
    assert plan is not None
    steps = [s.describe() for s in plan.steps]
    assert steps[-1] == "craft iron_pickaxe (1 time)" and "place a crafting_table" in steps and "place a furnace" in steps
    assert any(s.startswith("smelt 3 raw_iron") for s in steps)
    assert planner.plan("iron_pickaxe", 1, Counter(oak_log=1, iron_ingot=3), table=False, furnace=False) is None


def test_every_clause_it_cannot_keep_is_named_with_the_reason() -> None:
    spec = load_world(WORLDS / "obsidian_pact.toml")
    text = ("1. Ivy crafts a diamond_pickaxe.\n2. Ivy deposits 1 diamond into the vault chest.\n"
            "3. Ivy mines all gold_ore.\n4. Ivy is kind to Jun.")
    proposal = ScriptedCooperativeAgent("Ivy", spec, parse_contract(text, sorted(spec.players), world=spec.name)).proposal()
    assert "Not followed: clause 1: cannot make diamond_pickaxe" in proposal.explain
    assert "clause 2: the world has no chest named 'vault'" in proposal.explain
    assert "clause 3: no block in this world yields gold_ore" in proposal.explain
    assert "clause 4 is free text a script cannot follow: Ivy is kind to Jun" in proposal.explain


def test_a_step_that_fails_is_retried_then_given_up_and_the_player_falls_back_to_its_own_mining() -> None:
    """Gizmo's contract gives it the iron_pickaxe, but a greedy Glitch takes it first: Gizmo tries the chest again,
    gives the step up, says so, and mines what it values with the tool that is left."""
    spec = load_world("double_vein")
    contract = parse_contract("1. Gizmo takes the iron_pickaxe.\n2. Gizmo mines all diamond_ore.", sorted(spec.players))

    async def run():
        world = SimWorld(spec, 0)
        try:
            programs = {"Gizmo": ScriptedCooperativeAgent("Gizmo", spec, contract).proposal().code,
                        "Glitch": ScriptedGreedyAgent("Glitch", spec).proposal().code}
            return await world.run_programs(programs, budget=spec.episode_seconds)
        finally:
            await world.close()

    gizmo = asyncio.run(run())["Gizmo"]
    assert gizmo.chat.count("I don't see iron_pickaxe in this chest") == 4
    assert any(line.startswith("Giving up: take the iron_pickaxe") for line in gizmo.chat)
    assert gizmo.observation["inventory"].get("stone_pickaxe") == 1  # its fallback: the iron ore, with the stone pickaxe


def test_world_facts_find_free_cells_to_place_a_table_off_the_rules_regions() -> None:
    facts = WorldFacts(load_world(WORLDS / "smithy_chain.toml"))
    cells = facts.free_cells_near((10, 64, 6))
    assert cells and all(c not in facts.spec.blocks and (c[0], 63, c[2]) in facts.spec.blocks for c in cells)


@pytest.mark.parametrize("text", [
    "Nobody mines pumpkin while the patch holds fewer than 6 pumpkin.",
    "1. Each player mines at most 12 pumpkin every 60 seconds. 2. Nobody mines pumpkin while the patch holds fewer than 6 pumpkin.",
])
def test_a_conditional_exclusion_is_watched_not_kept_as_a_ban_for_the_whole_episode(text: str) -> None:
    """'Nobody mines X while the patch holds fewer than N' forbids mining only while the count is low: the players count
    before each dig (with a margin for the others' digs), mine the rest of the time, and never break it."""
    spec = load_world("commons")
    contract = parse_contract(text, sorted(spec.players), spec=spec)
    assert not contract.free_text()
    obs = asyncio.run(play(spec, contract, 0))
    statuses = [c["status"] for c in judge_formal(contract, obs).clauses]
    assert "broken" not in statuses, statuses
    assert all(obs.inventories[p].get("pumpkin", 0) > 0 for p in spec.players), obs.inventories
    assert sum(settled_rewards(contract, obs).values()) >= 150  # the first round's harvest and then some, every round
