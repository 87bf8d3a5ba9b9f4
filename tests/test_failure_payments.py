"""A payment owed when a deed is not done ("If Ann fails to deposit 2 pumpkins into the cache chest by 90 seconds, she
pays Ben 5 emeralds"): read, rendered back, settled on real simulated episodes of tests/worlds/contract_language.toml
(paid when the deed's check finds it undone, not otherwise, and never a breach), and avoided by the cooperative player,
who plans the deed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.scripted.contract_plan import plan_for
from blockpact.agents.scripted.contract_search import play
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.clauses import Deposit, FailurePayment
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world
from harness.readings import assert_reads_as

WORLD = Path(__file__).parent / "worlds" / "contract_language.toml"
CACHE = (9, 64, 10)


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


@pytest.mark.parametrize(("text", "reading"), [
    ("If Ann fails to deposit 2 pumpkins into the cache chest by 90 seconds, she pays Ben 5 emeralds.",
     "Unless Ann deposits 2 pumpkin into the cache chest by 90 seconds, Ann pays 5 emeralds to Ben."),
    ("If Cy has not returned the iron pickaxe to the tools chest by 200 seconds, he pays Ann 4 emeralds and Ben 4 "
     "emeralds.", "Unless Cy returns the iron_pickaxe to the tools chest by 200 seconds, Cy pays Ann and Ben 4 emeralds each."),
    ("Ben pays Cy 3 emeralds if he does not take the stone pickaxe from the tools chest.",
     "Unless Ben takes 1 stone_pickaxe from the tools chest, Ben pays 3 emeralds to Cy."),
    ("Should Ann fail to signal Ben within 30 seconds, she owes Ben 2 emeralds.",
     "Unless Ann signals Ben by 30 seconds, Ann pays 2 emeralds to Ben."),
    ("Unless Cy mines at least 4 pumpkins, Cy pays Ann 1 emerald.", "Unless Cy mines at least 4 pumpkin, Cy pays 1 emerald to Ann."),
    ("If Ann fails to deposit 2 pumpkins into the cache chest, Ben pays Cy 5 emeralds.", None),  # paid by another
    ("If Ann does not mine diamond ore, she pays Ben 2 emeralds.", None),  # an assignment: not a deed found undone
    ("If Ann fails to deposit some pumpkins, she pays Ben 2 emeralds.", None),  # the deed is free text
])
def test_the_wording_reads_as_a_payment_on_failure(spec, text: str, reading: str | None) -> None:
    assert_reads_as(spec, text, reading)


def test_a_penalty_cannot_name_it(spec) -> None:
    contract = parse_contract("1. If Ann fails to signal Ben within 30 seconds, she pays Ben 2 emeralds.\n"
                              "2. If Ann breaks clause 1, she pays Cy 9 emeralds.", sorted(spec.players), spec=spec)
    assert isinstance(contract.clauses[0], FailurePayment) and not contract.clauses[1].formal
    assert "cannot be broken" in contract.clauses[1].why


def _episode(spec, deposit_at: float | None):
    async def ann(api: AgentAPI) -> None:
        await api.mine_block("pumpkin", 2)
        if deposit_at is not None:
            await api.wait(max(deposit_at - api.time, 0))
            await api.deposit_item_into_chest(CACHE, {"pumpkin": 2})

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann}))
    sim.finish()
    return observables_from_events(spec, sim.state.log.events)


@pytest.mark.parametrize(("deposit_at", "paid"), [(30.0, 0.0), (120.0, 5.0), (None, 5.0)])
def test_it_is_paid_only_when_the_deed_was_not_done_in_time(spec, deposit_at: float | None, paid: float) -> None:
    contract = parse_contract("1. If Ann fails to deposit 2 pumpkins into the cache chest by 90 seconds, she pays Ben 5 "
                              "emeralds.", sorted(spec.players), spec=spec)
    assert contract.clauses == (FailurePayment(Deposit("Ann", "pumpkin", 2, "cache", 90.0), ("Ben",), 5.0),)
    judgment = judge_formal(contract, _episode(spec, deposit_at))
    assert judgment.transfers["Ben"] == paid and judgment.transfers["Ann"] == -paid
    [score] = judgment.clauses
    assert score["status"] == "settled" and score["broken_by"] == []  # the deed was not promised
    assert ("for not doing it: Ann deposited" in judgment.reasoning) == bool(paid)


def test_the_cooperative_player_does_the_deed_and_pays_nothing(spec) -> None:
    contract = parse_contract("1. If Cy fails to signal Ann within 30 seconds, he pays Ann 5 emeralds.",
                              sorted(spec.players), spec=spec)
    assert any(s.op == "signal" and s.args["by"] == 15.0 for s in plan_for(contract, "Cy", WorldFacts(spec)).steps)
    judgment = judge_formal(contract, asyncio.run(play(spec, contract, 0)))
    assert judgment.transfers["Ann"] == 0 and "so owes nothing" in judgment.reasoning
