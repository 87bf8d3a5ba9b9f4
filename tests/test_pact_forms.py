"""The clause forms that natural phrasings brought into the language ("mines only", deadlines, whoever takes a tool
returns it, nobody but, payments for another player's items, fines, sharing one item's value, "A and B each",
"each player waits for"), end to end in tests/worlds/pact_forms.toml: the scripted cooperative players keep hand
contracts written in them, and hand programs that break them are caught by the formal judge, with the reason."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.scripted import ScriptedCooperativeAgent
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "pact_forms.toml"
TOOLS, CACHE, STASH = (6, 64, 8), (8, 64, 8), (2, 64, 10)

PACT = """1. Ivy mines only pumpkins.
2. Ivy mines at most 6 pumpkins.
3. Jun mines only iron.
4. Whoever takes the stone pickaxe returns it to the tools chest by 120 seconds.
5. Kai mines at least 2 pumpkins.
6. Kai deposits two pumpkins into the cache chest within the first minute.
7. Nobody but Kai mines diamond ore.
8. Kai pays Jun 1 emerald for each iron ore Jun mines.
9. Ivy is fined 2 emeralds per diamond mined, paid to Kai.
10. Jun and Kai share the value of their raw iron equally.
11. Ivy and Kai each pay Jun 1 emerald."""

SIGNALS = """1. Each player waits for Ivy's signal.
2. Ivy deposits 2 pumpkins into the cache chest, then signals Jun and Kai.
3. Jun and Kai each mine at most 3 pumpkins."""

CASUAL = """1. Ivy's gonna mine only pumpkins.
2. Ivy can mine up to 5 pumpkins.
3. Under no circumstances will Jun mine diamond ore.
4. Kai's going to deposit two pumpkins into the cache chest no later than 60 seconds into the game.
5. Kai's mining is capped at 4 pumpkins.
6. Jun pays Kai an emerald.
7. Jun mines 2 iron ore at most."""

# a player's own chest, "each of the other players", "him" for the one player named, two sentences in one clause
REFERENCES = """1. Ivy deposits 2 pumpkins into Kai's chest. Then she signals Jun.
2. Jun waits for Ivy's signal, then takes 1 pumpkin from Kai's stash.
3. Each of the other players pays Kai 1 emerald.
4. Kai pays 1 emerald to each of the other players.
5. Jun signals Kai, then gives him 1 pumpkin.
6. Kai mines at least 2 pumpkins. He puts 2 pumpkins into his own chest."""


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


def _scripted(spec, text: str):
    contract = parse_contract(text, sorted(spec.players), spec=spec)
    assert all(c.formal for c in contract.clauses), [c.why for c in contract.clauses if not c.formal]

    async def run():
        world = SimWorld(spec, seed=0)
        try:
            agents = {p: ScriptedCooperativeAgent(p, spec, contract) for p in sorted(spec.players)}
            await world.run_programs({p: a.proposal().code for p, a in agents.items()}, budget=spec.episode_seconds)
            world.finish()
            return list(world.events)
        finally:
            await world.close()

    return judge_formal(contract, observables_from_events(spec, asyncio.run(run())))


@pytest.mark.parametrize("text", [PACT, SIGNALS, CASUAL, REFERENCES], ids=["pact", "signals", "casual", "references"])
def test_the_cooperative_players_keep_every_new_form(spec, text: str) -> None:
    judgment = _scripted(spec, text)
    statuses = {c["clause"]: c["status"] for c in judgment.clauses}
    assert set(statuses.values()) <= {"kept", "settled"}, judgment.clauses
    if text is PACT:
        assert "Kai pays Jun 4 emeralds (1 x 4 iron_ore mined by Jun)" in judgment.reasoning
        assert "Jun pays Kai 8 emeralds (50% of 4 raw_iron x 4)" in judgment.reasoning
    if text is REFERENCES:
        assert "Clause 3: Ivy pays Kai 1 emeralds" in judgment.reasoning and "Clause 4: Kai pays Jun 1 emeralds" in judgment.reasoning
        assert "Clause 5: Jun gives Kai 1 pumpkin" in judgment.reasoning


def _judged(spec, text: str, programs):
    contract = parse_contract(text, sorted(spec.players), spec=spec)
    sim = Simulation(spec, seed=0)
    asyncio.run(sim.run(programs))
    sim.finish()
    return judge_formal(contract, observables_from_events(spec, sim.state.log.events))


async def _idle(api) -> None:
    await api.wait(1)


def test_breaking_the_new_forms_is_caught_with_the_reason(spec) -> None:
    async def ivy(api):  # mines iron although she mines only pumpkins, and keeps the stone pickaxe
        await api.get_item_from_chest(TOOLS, {"stone_pickaxe": 1})
        await api.mine_block("iron_ore", 1)

    async def jun(api):  # mines pumpkins (only iron for him), deposits late
        await api.mine_block("pumpkin", 2)
        await api.wait(70)
        await api.deposit_item_into_chest(CACHE, {"pumpkin": 2})

    async def kai(api):  # takes the iron pickaxe and returns it after the deadline
        await api.get_item_from_chest(TOOLS, {"iron_pickaxe": 1})
        await api.wait(130)
        await api.deposit_item_into_chest(TOOLS, {"iron_pickaxe": 1})

    text = ("1. Ivy mines only pumpkins.\n2. Jun mines nothing but iron ore.\n"
            "3. Whoever takes the stone pickaxe puts it back in the tools chest.\n"
            "4. Jun puts 2 pumpkins into the cache chest within the first minute.\n"
            "5. Kai returns the iron pickaxe to the tools chest by 120 seconds.\n6. Only Kai mines iron ore.\n"
            "7. Kai pays Ivy 3 emeralds for each iron ore Ivy mines.")
    judgment = _judged(spec, text, {"Ivy": ivy, "Jun": jun, "Kai": kai})
    by = {c["clause"]: c for c in judgment.clauses}
    assert by[1]["broken_by"] == ["Ivy"] and "other than pumpkin (the first, iron_ore" in by[1]["breaches"][0]
    assert by[2]["broken_by"] == ["Jun"]
    assert by[3]["broken_by"] == ["Ivy"] and "put 0 back into the tools chest" in by[3]["breaches"][0]
    assert by[4]["broken_by"] == ["Jun"] and "by 60 s, fewer than the 2" in by[4]["breaches"][0]
    assert by[5]["broken_by"] == ["Kai"] and "by 120 s" in by[5]["breaches"][0]
    assert by[6]["broken_by"] == ["Ivy"]
    assert "Kai pays Ivy 3 emeralds (3 x 1 iron_ore mined by Ivy)" in judgment.reasoning


def test_breaking_a_clause_about_a_players_chest_is_caught(spec) -> None:
    """"Kai's chest" is the stash: pumpkins put into the cache chest instead are not there, and a step said after
    Ivy's signal (in a second sentence) done before it is the step's breach."""
    async def ivy(api):  # deposits into the cache chest, not Kai's, and signals late
        await api.mine_block("pumpkin", 2)
        await api.deposit_item_into_chest(CACHE, {"pumpkin": 2})
        await api.wait(20)
        await api.send_signal()

    async def jun(api):  # takes the pumpkins from the cache chest before Ivy's signal
        await api.wait(8)
        await api.get_item_from_chest(CACHE, {"pumpkin": 1})

    text = ("1. Ivy deposits 2 pumpkins into Kai's chest. Then she signals Jun.\n"
            "2. Jun waits for Ivy's signal. Then Jun takes 1 pumpkin from the cache chest.")
    judgment = _judged(spec, text, {"Ivy": ivy, "Jun": jun, "Kai": _idle})
    by = {c["clause"]: c for c in judgment.clauses}
    assert by[1]["broken_by"] == ["Ivy"] and "stash" in by[1]["breaches"][0]
    assert by[2]["broken_by"] == ["Jun"]


def test_kept_deadlines_and_a_return_nobody_needed(spec) -> None:
    async def jun(api):
        await api.mine_block("pumpkin", 2)
        await api.deposit_item_into_chest(CACHE, {"pumpkin": 2})

    text = ("1. Jun deposits 2 pumpkins into the cache chest by 60 seconds.\n"
            "2. Whoever takes the iron pickaxe returns it to the tools chest.")
    judgment = _judged(spec, text, {"Ivy": _idle, "Jun": jun, "Kai": _idle})
    by = {c["clause"]: c for c in judgment.clauses}
    assert by[1]["status"] == "kept"
    assert by[2]["status"] == "not applicable" and "never took" in by[2]["not_applicable"]


def test_each_player_waits_binds_only_the_players_who_do_not_signal(spec) -> None:
    """Ivy waiting for Jun while Jun waits for Ivy would leave both waiting for ever: the senders do not wait."""
    from blockpact.judge.contract import ForEach, Steps, WaitFor

    [clause] = parse_contract("1. Each player waits for Ivy's and Jun's signal.", sorted(spec.players), spec=spec).clauses
    assert clause == ForEach("each player", (Steps((WaitFor("Kai", "Ivy"), WaitFor("Kai", "Jun")), ordered=False),))
