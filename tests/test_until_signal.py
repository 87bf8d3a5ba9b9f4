"""An act held back until another player's signal ("Cy does not take pumpkins from the cache chest until Ben has
signalled him"): a ban on the act before the signal, not a promise to do it after; judged on real simulated episodes
of tests/worlds/contract_language.toml and kept by the cooperative players, who wait for the signal only before that
act."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.scripted.contract_plan import plan_for
from blockpact.agents.scripted.contract_search import play
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.clauses import Exclusion, ForEach
from blockpact.judge.contract import parse_contract, render_clause
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world
from harness.readings import read_clause

WORLD = Path(__file__).parent / "worlds" / "contract_language.toml"
TOOLS, CACHE = (6, 64, 9), (9, 64, 10)


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


@pytest.mark.parametrize(("text", "reading"), [
    ("Ben does not take the iron pickaxe from the tools chest until Ann has signalled him.",
     "Ben does not take iron_pickaxe from the tools chest until Ann has signalled."),
    ("Cy will not take anything from the cache chest until Ann and Ben have both signalled her.",
     "Cy does not take anything from the cache chest until Ann and Ben have signalled."),
    ("Ben does not mine diamond ore until Ann signals.", "Ben does not mine diamond_ore until Ann has signalled."),
])
def test_the_ban_reads_and_renders_back(spec, text: str, reading: str) -> None:
    clause = read_clause(spec, text)
    assert clause.formal, clause.why
    assert render_clause(clause, world=spec.name) == reading
    assert read_clause(spec, reading) == clause


def test_nobody_holds_back_until_a_signal_binds_everyone_but_the_senders(spec) -> None:
    clause = read_clause(spec, "Nobody mines diamond ore until Ann has signalled.")
    assert isinstance(clause, ForEach) and [p.player for p in clause.parts] == ["Ben", "Cy"]
    assert all(isinstance(p, Exclusion) and p.until_signals_from == ("Ann",) for p in clause.parts)
    assert not read_clause(spec, "Ann does not mine diamond ore until Ann has signalled.").formal


def _episode(spec, signal_first: bool):
    async def ann(api: AgentAPI) -> None:
        if signal_first:
            await api.send_signal("take it")
        await api.wait(30)
        if not signal_first:
            await api.send_signal("take it now")

    async def ben(api: AgentAPI) -> None:
        await api.wait(1)  # after Ann's early signal, long before her late one
        await api.get_item_from_chest(TOOLS, {"iron_pickaxe": 1})

    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({"Ann": ann, "Ben": ben}))
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    assert obs.inventories["Ben"].get("iron_pickaxe") == 1 and len(obs.signals) == 1  # both programs ran through
    return obs


@pytest.mark.parametrize(("signal_first", "status"), [(True, "kept"), (False, "broken")])
def test_an_act_before_the_signal_breaks_it_and_after_it_does_not(spec, signal_first: bool, status: str) -> None:
    contract = parse_contract("1. Ben does not take the iron pickaxe until Ann has signalled him.",
                              sorted(spec.players), spec=spec)
    [score] = judge_formal(contract, _episode(spec, signal_first)).clauses
    assert score["status"] == status
    if status == "broken":
        assert score["broken_by"] == ["Ben"] and "before Ann's signal" in score["breaches"][0]


def test_no_act_at_all_keeps_the_ban(spec) -> None:
    """A ban, not a promise: Ben never taking the pickaxe keeps it, whether Ann signals or not."""
    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run({}))
    sim.finish()
    contract = parse_contract("1. Ben does not take the iron pickaxe until Ann has signalled.", sorted(spec.players),
                              spec=spec)
    [score] = judge_formal(contract, observables_from_events(spec, sim.state.log.events)).clauses
    assert score["status"] == "kept"


def test_the_cooperative_player_waits_for_the_signal_only_before_the_act(spec) -> None:
    contract = parse_contract("1. Ben deposits 2 pumpkins into the cache chest, then signals Cy.\n"
                              "2. Cy does not take pumpkins from the cache chest until Ben has signalled him.\n"
                              "3. Cy takes 2 pumpkins from the cache chest.", sorted(spec.players), spec=spec)
    plan = plan_for(contract, "Cy", WorldFacts(spec))
    wait = next(s for s in plan.steps if s.op == "wait_signal")
    assert wait.args["from"] == "Ben"
    held = [s.id for s in plan.steps if wait.id in s.after]
    assert held == ["withdraw:3"]  # its mining waits for nobody
    obs = asyncio.run(play(spec, contract, 0))
    assert [c["status"] for c in judge_formal(contract, obs).clauses] == ["kept", "kept", "kept"]
    assert obs.inventories["Cy"].get("pumpkin", 0) >= 2
