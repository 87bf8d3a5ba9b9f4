"""A payment for the items beyond a number in each period ("Ann pays Ben 1 emerald for every pumpkin she mines beyond 2
in a period"): read, rendered back, and settled on a real simulated episode of tests/worlds/contract_language.toml
(pumpkins regrow every 60 seconds) from the counts of each period, not of the whole episode."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.judge.clauses import ForEach, PerUnitTransfer
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world
from harness.readings import assert_reads_as

WORLDS = Path(__file__).parent / "worlds"


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLDS / "contract_language.toml")


@pytest.mark.parametrize(("text", "reading"), [
    ("For every pumpkin Ann mines beyond 2 in a period, she pays Ben 1 emerald.",
     "At the end of the scenario Ann transfers 1 emerald to Ben for each pumpkin mined over 2 every 60 seconds."),
    ("Ann pays Ben 2 emeralds for each pumpkin mined above 3 every 30 seconds.",
     "At the end of the scenario Ann transfers 2 emeralds to Ben for each pumpkin mined over 3 every 30 seconds."),
    ("If Cy mines more than 4 pumpkins in any period, he pays Ann 1 emerald for each extra pumpkin.",
     "At the end of the scenario Cy transfers 1 emerald to Ann for each pumpkin mined over 4 every 60 seconds."),
    ("Any player who mines more than 5 pumpkins in a round pays 2 emeralds per extra pumpkin to every other player.",
     "Any player who mines more than 5 pumpkin every 60 seconds pays 2 emeralds for each extra pumpkin to every other "
     "player."),
    ("Ann pays Ben 2 emeralds for every pumpkin mined per period.",  # nothing beyond: the period changes nothing
     "At the end of the scenario Ann transfers 2 emeralds to Ben for each pumpkin mined."),
    ("If Cy mines more than 4 pumpkins per period, he pays Ann 10 emeralds.", None),  # once, or once a period?
])
def test_the_wording_reads_as_a_payment_per_period(spec, text: str, reading: str | None) -> None:
    assert_reads_as(spec, text, reading)


def test_a_world_without_chests_counts_what_is_taken_from_it_as_dug() -> None:
    fishery = load_world(WORLDS / "kelp_fishery.toml")
    [clause] = parse_contract("1. Any player who takes more than 3 dried kelp blocks in a period pays 1 emerald per extra "
                              "dried kelp block to every other player.", sorted(fishery.players), spec=fishery).clauses
    assert isinstance(clause, ForEach)
    assert {(p.verb, p.over, p.period) for p in clause.parts} == {("mine", 3, 60.0)}  # type: ignore[union-attr]


def test_the_payment_counts_each_period_beyond_its_number(spec) -> None:
    """Ann mines 4 pumpkins in the first minute and 3 in the second: 2 + 1 beyond 2 a period, where the whole
    episode's count would make 5 beyond 2."""
    async def ann(api: AgentAPI) -> None:
        await api.mine_block("pumpkin", 4)
        await api.wait(max(61 - api.time, 0))
        await api.mine_block("pumpkin", 3)

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann}))
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    digs = [t - obs.start_time for t, p, b in obs.digs if p == "Ann" and b == "pumpkin"]
    assert sum(t < 60 for t in digs) == 4 and sum(60 <= t < 120 for t in digs) == 3
    contract = parse_contract("1. Ann pays Ben 1 emerald for every pumpkin Ann mines beyond 2 in a period.\n"
                              "2. Ann pays Cy 1 emerald for every pumpkin Ann mines beyond 2.", sorted(spec.players), spec=spec)
    assert isinstance(contract.clauses[0], PerUnitTransfer) and contract.clauses[0].period == 60.0
    judgment = judge_formal(contract, obs)
    assert judgment.transfers["Ben"] == 3 and judgment.transfers["Cy"] == 5 and judgment.transfers["Ann"] == -8
    assert "1 x 3 pumpkin mined beyond 2 in a period of 60 s (4 in seconds 0-60, 3 in seconds 60-120)" in judgment.reasoning
