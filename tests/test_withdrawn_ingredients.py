"""A crafter who takes the pooled ingredients out of the chest itself ("waits for A's and B's signals, then takes 3
iron_ingot from the chest, then crafts an iron_pickaxe") crafts from what it took instead of waiting for the chest
to fill again; and a wait for deposits nobody makes is given up, so the player falls back to its own mining."""

from __future__ import annotations

import asyncio
from pathlib import Path

from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.scripted.contract_plan import plan_for
from blockpact.agents.scripted.contract_search import play, settled_rewards
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import parse_contract
from blockpact.judge.formal import judge_formal
from blockpact.worlds.world_files import load_world

SPEC = load_world(Path(__file__).parent / "worlds" / "gold_crate.toml")

TAKEN_OUT = """
1. Lia deposits 2 iron_ingot into the crate chest, then signals Ned.
2. Moe deposits 1 iron_ingot into the crate chest, then deposits 1 stick into the crate chest, then signals Ned.
3. Ned waits for Lia's signal and Moe's signal, then takes 3 iron_ingot from the crate chest, then takes 1 stick from the crate chest, then crafts 1 iron_pickaxe.
4. Ned mines all gold_ore.
5. Lia and Moe each mine at most 4 pumpkins.
6. All players share their rewards equally."""


def test_the_plan_crafts_from_what_its_own_withdrawals_bring() -> None:
    contract = parse_contract(TAKEN_OUT, sorted(SPEC.players), world=SPEC.name)
    plan = plan_for(contract, "Ned", WorldFacts(SPEC))
    assert not plan.notes
    assert [s.op for s in plan.steps if s.op in ("take", "wait_items")] == ["take", "take"]  # no second fetch
    craft = next(s for s in plan.steps if s.op == "craft")
    assert {"withdraw:3", "withdraw:3:stick"} <= set(craft.after)
    stick = plan.find("withdraw:3:stick")
    assert stick is not None and stick.args["count"] == 2  # Ned holds 1 stick: taking 1 more is holding 2


def test_a_crafter_who_takes_the_pool_out_itself_keeps_every_clause_and_reaches_the_welfare() -> None:
    contract = parse_contract(TAKEN_OUT, sorted(SPEC.players), world=SPEC.name)
    assert not contract.free_text()
    obs = asyncio.run(play(SPEC, contract, 0))
    judgment = judge_formal(contract, obs)
    assert all(c["status"] in ("kept", "settled") for c in judgment.clauses), judgment.clauses
    assert obs.crafted["Ned"]["iron_pickaxe"] == 1 and obs.inventories["Ned"]["raw_gold"] == 6
    rewards = settled_rewards(contract, obs)
    assert round(sum(rewards.values()), 6) == SPEC.extra["reference"]["welfare"] == 38  # 6 raw_gold x 5, 8 pumpkins


def test_a_wait_for_deposits_nobody_makes_is_given_up_instead_of_polling_the_chest_all_episode() -> None:
    """Lia plays greedy and never deposits her ingots: Ned's wait for them is given up, with a chat line, once its
    patience (a fifth of the episode) has run out and four looks found nothing new; he looks into the chest no more."""
    text = ("1. Lia deposits 2 iron_ingot into the crate chest.\n2. Moe deposits 1 iron_ingot into the crate chest.\n"
            "3. Moe deposits 1 stick into the crate chest.\n4. Ned crafts 1 iron_pickaxe.\n5. Ned mines all gold_ore.")
    contract = parse_contract(text, sorted(SPEC.players), world=SPEC.name)

    async def run():
        world = SimWorld(SPEC, 0)
        try:
            programs = {p: ScriptedCooperativeAgent(p, SPEC, contract).proposal().code for p in ("Moe", "Ned")}
            programs["Lia"] = ScriptedGreedyAgent("Lia", SPEC).proposal().code
            await world.run_programs(programs, budget=SPEC.episode_seconds)
            return list(world.events)
        finally:
            await world.close()

    events = [e for e in asyncio.run(run()) if e.agent == "Ned"]
    gave_up = [e.time for e in events if e.kind == "chat"
               and e.data["message"].startswith("Giving up: wait for the deposits into the chest at [6, 64, 5]")]
    assert len(gave_up) == 1 and 0.2 * SPEC.episode_seconds < gave_up[0] < 0.2 * SPEC.episode_seconds + 30
    assert not [e for e in events if e.kind == "chest_seen" and e.time > gave_up[0]]
    assert not [e for e in events if e.kind == "chest"]  # it never took the two items that were deposited
