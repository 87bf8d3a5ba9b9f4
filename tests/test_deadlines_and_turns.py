"""A signal or a craft with a deadline ("Ann signals Ben within 60 seconds", "Nia crafts the planks by 60 seconds") and
turn-taking with the chest named ("... puts it back in the cache chest, then Ben takes it"): read, rendered back, judged
on real simulated episodes of tests/worlds/contract_language.toml (and smithy_chain.toml), and kept by the cooperative
players."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.scripted.contract_plan import plan_for
from blockpact.agents.scripted.contract_search import play
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.clauses import Craft, Signal, TurnTaking
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
    ("Ann signals Ben within 60 seconds.", "Ann signals Ben by 60 seconds."),
    ("Ann has to send Ben a signal no later than 90 seconds into the game.", "Ann signals Ben by 90 seconds."),
    ("Within the first two minutes, Cy signals Ann.", "Cy signals Ann by 120 seconds."),
    ("Ann signals Ben and Cy before 45 seconds.", "Ann signals Ben by 45 seconds and Ann signals Cy by 45 seconds."),
    ("Ann puts 2 pumpkins into the cache chest, then signals Ben within 100 seconds.",
     "Ann deposits 2 pumpkin into the cache chest, then Ann signals Ben by 100 seconds."),
    ("Ann signals Ben after 60 seconds.", None),  # a deadline, not a window that opens later
    ("Ann takes the iron pickaxe first and puts it back in the cache chest, then Ben takes it.",
     "Ann takes the iron_pickaxe first and returns it to the cache chest, then Ben takes it."),
    ("Ann takes the iron pickaxe from the tools chest first and returns it to the tools chest, then signals Ben.",
     "Ann takes the iron_pickaxe first and returns it to the tools chest, then signals Ben."),
    ("Ann takes the iron pickaxe first and returns it to the chest, then Ben takes it.",
     "Ann takes the iron_pickaxe first and returns it to the chest, then Ben takes it."),
    ("Cy leaves 2 pumpkins in the cache chest.", "Cy deposits 2 pumpkin into the cache chest."),  # a count: a deposit
    ("Ann pays Ben 1 emerald for each pumpkin she harvests.", None),  # 'she' could be Ann or Ben
])
def test_the_wording_reads_as_the_form_it_means(spec, text: str, reading: str | None) -> None:
    assert_reads_as(spec, text, reading)


@pytest.mark.parametrize(("text", "reading"), [
    ("Nia crafts the oak planks before the 60-second mark.", "Nia crafts 1 oak_planks by 60 seconds."),
])
def test_a_craft_reads_with_its_deadline(text: str, reading: str) -> None:
    assert_reads_as(load_world(WORLD.with_name("smithy_chain.toml")), text, reading)


def _signal_episode(spec, at: float | None) -> object:
    async def ann(api: AgentAPI) -> None:
        if at is not None:
            await api.wait(at)
            await api.send_signal("done")

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann}))
    sim.finish()
    return observables_from_events(spec, sim.state.log.events)


@pytest.mark.parametrize(("at", "status", "why"), [
    (10.0, "kept", None), (40.0, "broken", "after its deadline of 30 s"), (None, "broken", "never sent")])
def test_a_signal_deadline_is_judged_on_when_it_was_sent(spec, at: float | None, status: str, why: str | None) -> None:
    contract = parse_contract("1. Ann signals Ben within 30 seconds.", sorted(spec.players), spec=spec)
    assert contract.clauses == (Signal("Ann", "Ben", 30.0),)
    [score] = judge_formal(contract, _signal_episode(spec, at)).clauses
    assert score["status"] == status
    if why:
        assert score["broken_by"] == ["Ann"] and why in score["breaches"][0]


def test_a_craft_deadline_counts_only_what_was_made_by_then() -> None:
    spec = load_world(WORLD.with_name("smithy_chain.toml"))
    obs = asyncio.run(play(spec, parse_contract("1. Nia crafts 1 oak_planks.", sorted(spec.players), spec=spec), 0))
    made = [t - obs.start_time for t, p, item, _ in obs.craft_events if p == "Nia" and item == "oak_planks"]
    assert made, "the cooperative Nia crafts the planks"
    for deadline, status in ((made[0] + 5, "kept"), (max(made[0] - 1, 0), "broken")):
        contract = parse_contract(f"1. Nia crafts 1 oak planks by {deadline:.1f} seconds.", sorted(spec.players), spec=spec)
        assert isinstance(contract.clauses[0], Craft) and contract.clauses[0].by == pytest.approx(deadline, abs=0.05)
        assert [c["status"] for c in judge_formal(contract, obs).clauses] == [status]


def _turn_episode(spec, back_into: tuple[int, int, int]):
    async def ann(api: AgentAPI) -> None:
        await api.get_item_from_chest(TOOLS, {"iron_pickaxe": 1})
        await api.deposit_item_into_chest(back_into, {"iron_pickaxe": 1})

    async def ben(api: AgentAPI) -> None:
        await api.wait(20)
        await api.get_item_from_chest(back_into, {"iron_pickaxe": 1})

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann, "Ben": ben}))
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    assert obs.inventories["Ben"].get("iron_pickaxe") == 1  # both programs ran through
    return obs


@pytest.mark.parametrize(("back_into", "status"), [(CACHE, "kept"), (TOOLS, "broken")])
def test_turn_taking_is_broken_by_a_return_into_another_chest(spec, back_into, status: str) -> None:
    contract = parse_contract("1. Ann takes the iron pickaxe first and puts it back in the cache chest, then Ben takes it.",
                              sorted(spec.players), spec=spec)
    assert contract.clauses == (TurnTaking("Ann", "iron_pickaxe", "Ben", False, "cache"),)
    [score] = judge_formal(contract, _turn_episode(spec, back_into)).clauses
    assert score["status"] == status
    if status == "broken":
        assert "Ann" in score["broken_by"] and any("the cache chest" in b for b in score["breaches"])


def test_the_cooperative_players_keep_the_turn_and_the_signal_deadline(spec) -> None:
    """Ann hands the pickaxe on through the chest the clause names, not the one it came from; Cy signals by the
    deadline though nothing waits on him."""
    contract = parse_contract("1. Ann takes the iron pickaxe first and puts it back in the cache chest, then Ben takes it.\n"
                              "2. Ann mines all diamond ore.\n3. Ben mines all iron ore.\n4. Cy signals Ann within 30 seconds.",
                              sorted(spec.players), spec=spec)
    ben = plan_for(contract, "Ben", WorldFacts(spec))
    assert next(s for s in ben.steps if s.id == "take:iron_pickaxe").args["chest"] == list(CACHE)
    obs = asyncio.run(play(spec, contract, 0))
    assert [c["status"] for c in judge_formal(contract, obs).clauses] == ["kept"] * 4
    assert any(op.player == "Ann" and op.delta > 0 and op.chest == "9,64,10" for op in obs.chest_ops)


def test_a_pending_part_does_not_hold_back_a_signal_past_its_deadline(spec) -> None:
    """Ann's deposit waits for Cy's signal and Cy waits for Ann's: her signal "when done" would never come, but with a
    deadline she signals by then anyway, which is what the clause promises (and frees Cy)."""
    contract = parse_contract("1. Ann waits for Cy's signal, then deposits 1 potato into the cache chest.\n"
                              "2. Ann signals Cy within 40 seconds.\n3. Cy waits for Ann's signal.\n"
                              "4. Ann does not mine pumpkins.", sorted(spec.players), spec=spec)
    done = next(s for s in plan_for(contract, "Ann", WorldFacts(spec)).steps if s.op == "signal")
    assert done.args["by"] == 25.0 and done.after == ["deposit:1"]  # 15 s before the deadline, done or not
    obs = asyncio.run(play(spec, contract, 0))
    sent = [t - obs.start_time for t, sender, _ in obs.signals if sender == "Ann"]
    assert sent and sent[0] <= 40
    assert [c["status"] for c in judge_formal(contract, obs).clauses][1:] == ["kept", "kept", "kept"]
