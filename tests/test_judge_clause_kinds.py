"""The formal judge on the newer clause kinds, from real simulated episodes of tests/worlds/contract_language.toml:
steps in order, withdrawals, returns, exclusions, region limits, per-item penalties, reward splits, windows and
conditions; kept, broken (with the reason) or not applicable (with the reason), never kept for nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "contract_language.toml"
TOOLS, CACHE = (6, 64, 9), (9, 64, 10)

CONTRACT = """1. Ann puts 1 diamond into the cache chest, then signals Ben.
2. Ben waits for Ann's signal, then takes 1 diamond from the cache chest.
3. Ann returns the iron_pickaxe to the tools chest.
4. Cy mines only in the south patch.
5. Ben does not mine diamond_ore.
6. Cy returns the stone_pickaxe to the chest.
7. Nobody mines pumpkins while the river holds more than 20 slime_block.
8. Ann pays 2 emeralds to Ben for each diamond over 1.
9. The total reward is split 50/50 between Ann and Cy.
10. Cy mines at most 2 pumpkins during the first 100 seconds.
11. After 200 seconds, Cy does not mine pumpkins.
12. Whoever breaks a clause pays 1 emerald to every other player."""


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


def ann(deposit_first: bool):
    async def run(api: AgentAPI) -> None:
        await api.get_item_from_chest(TOOLS, {"iron_pickaxe": 1})
        await api.mine_block("diamond_ore", 2)
        if deposit_first:
            await api.deposit_item_into_chest(CACHE, {"diamond": 1})
            await api.send_signal("diamond in the cache")
        else:
            await api.send_signal("diamond in the cache")
            await api.deposit_item_into_chest(CACHE, {"diamond": 1})
        await api.deposit_item_into_chest(TOOLS, {"iron_pickaxe": 1})
    return run


async def ben(api: AgentAPI) -> None:
    await api.wait_signal("Ann's diamond", timeout=300)
    await api.get_item_from_chest(CACHE, {"diamond": 1})


def cy(patch: tuple[int, int, int]):
    async def run(api: AgentAPI) -> None:
        await api.move_to(patch)
        await api.mine_block("pumpkin", 3)
    return run


def judged(spec, deposit_first: bool, patch: tuple[int, int, int]):
    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann(deposit_first), "Ben": ben, "Cy": cy(patch)}))
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    contract = parse_contract(CONTRACT, sorted(spec.players), spec=spec)
    assert all(c.formal for c in contract.clauses), [c.why for c in contract.clauses]
    return obs, judge_formal(contract, obs)


def test_a_cooperative_episode_keeps_what_it_did_and_says_what_could_not_apply(spec) -> None:
    obs, judgment = judged(spec, deposit_first=True, patch=(4, 64, 11))
    status = {c["clause"]: c["status"] for c in judgment.clauses}
    assert status == {1: "kept", 2: "kept", 3: "kept", 4: "kept", 5: "kept", 6: "not applicable", 7: "not applicable",
                      8: "settled", 9: "settled", 10: "broken", 11: "kept", 12: "settled"}
    reasons = {c["clause"]: c.get("not_applicable") for c in judgment.clauses}
    assert reasons[6] == "Cy never took a stone_pickaxe, so there was nothing to return"
    assert reasons[7] == "slime_block in river > 20 never held during the episode"
    assert "Clause 6 is not applicable" in judgment.reasoning
    assert obs.collected["Ann"]["diamond"] == 2
    assert "Clause 8: Ann pays Ben 2 emeralds (2 x 1 diamond collected (2 - 1))." in judgment.reasoning
    [breach] = [c for c in judgment.clauses if c["clause"] == 10][0]["breaches"]
    assert breach == "Cy mined 3 pumpkin between 0 s and 100 s, more than the 2 clause 10 allows."
    # the split: Ann and Cy's total after every other transfer, 50/50
    rewards = {p: obs.inventory_value(p) + judgment.transfers[p] for p in obs.players}
    assert rewards["Ann"] == pytest.approx(rewards["Cy"])


def test_order_region_and_the_breaker_named(spec) -> None:
    _, judgment = judged(spec, deposit_first=False, patch=(4, 64, 4))
    by = {c["clause"]: c for c in judgment.clauses}
    assert by[1]["status"] == "broken" and by[1]["broken_by"] == ["Ann"]
    assert "only before" in by[1]["breaches"][0] and "not after it as clause 1 orders" in by[1]["breaches"][0]
    assert by[4]["status"] == "broken"
    assert by[4]["breaches"][0].startswith("Cy mined 3 blocks outside the south_patch (the first, pumpkin at [")
    # Ben waited for the early signal and found the cache empty: his withdrawal is short (that Ann's breach
    # caused it is the judge's causality, not the clause's reading)
    assert by[2]["breaches"] == ["Ben took 0 diamond from the cache chest, fewer than the 1 of clause 2."]
