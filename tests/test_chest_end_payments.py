"""A payment owed on what a chest holds at the end ("Cy pays Ann 12 emeralds provided the iron pickaxe is back in the
tools chest at the end"): read, rendered back, and settled on a real simulated episode of
tests/worlds/contract_language.toml from the chests' final contents."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.judge.clauses import ChestPayment
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world
from harness.readings import assert_reads_as

WORLD = Path(__file__).parent / "worlds" / "contract_language.toml"
TOOLS, CACHE = (6, 64, 9), (9, 64, 10)


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


@pytest.mark.parametrize(("text", "reading"), [
    ("Ann pays Ben 5 emeralds if the cache chest holds at least 3 pumpkins at the end of the game.",
     "If the cache chest holds at least 3 pumpkin at the end, Ann pays 5 emeralds to Ben."),
    ("Cy pays Ann 12 emeralds provided the iron pickaxe is back in the tools chest at the end.",
     "If the tools chest holds at least 1 iron_pickaxe at the end, Cy pays 12 emeralds to Ann."),
    ("Should the stone pickaxe not be in the tools chest when time runs out, Ben owes Cy 6 emeralds.",
     "If the tools chest holds fewer than 1 stone_pickaxe at the end, Ben pays 6 emeralds to Cy."),
    ("If the cache chest holds at least 3 pumpkins at the end, Ann mines at most 3 pumpkins.", None),  # payments only
    ("If the cache holds 2 diamonds at the end, Ann pays Ann 1 emerald.", None),
])
def test_the_wording_reads_as_a_payment_on_a_chest_state(spec, text: str, reading: str | None) -> None:
    assert_reads_as(spec, text, reading)


def test_it_is_paid_from_the_chests_final_contents(spec) -> None:
    """Ann puts 3 pumpkins into the cache chest and Ben takes the stone pickaxe away: the first two states hold, the
    third (the iron pickaxe gone from the tools chest) does not."""
    async def ann(api: AgentAPI) -> None:
        await api.mine_block("pumpkin", 3)
        await api.deposit_item_into_chest(CACHE, {"pumpkin": 3})

    async def ben(api: AgentAPI) -> None:
        await api.get_item_from_chest(TOOLS, {"stone_pickaxe": 1})

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann, "Ben": ben}))
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    contract = parse_contract("1. Ann pays Ben 5 emeralds if the cache chest holds at least 3 pumpkins at the end.\n"
                              "2. Should the stone pickaxe not be in the tools chest when time runs out, Ben owes Cy 6 "
                              "emeralds.\n3. Cy pays Ann 12 emeralds provided the iron pickaxe is not in the tools chest "
                              "at the end.", sorted(spec.players), spec=spec)
    assert all(isinstance(c, ChestPayment) for c in contract.clauses)
    judgment = judge_formal(contract, obs)
    assert judgment.transfers == {"Ann": -5.0, "Ben": 5.0 - 6.0, "Cy": 6.0}
    assert [c["status"] for c in judgment.clauses] == ["settled"] * 3
    assert "the tools chest held 1 iron_pickaxe at the end, not fewer than 1" in judgment.reasoning
