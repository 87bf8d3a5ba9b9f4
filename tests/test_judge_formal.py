"""Observables from real simulated episodes, and the formal judge's transfers, critiques and rewards."""

from __future__ import annotations

import asyncio

import pytest

from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import Judgment, compare_judgments, judge_formal, rewards_after
from blockpact.judge.metrics import gini
from blockpact.judge.observables import ChestOp, observables_from_events
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import BUILTIN_DIR, load_world
from blockpact.worlds.sim.simulator import Simulation

from sim_programs import POLICIES

CHEST = (6, 64, 7)
OPTIMUM = """1. Gizmo mines all iron_ore.
2. Glitch mines all diamond_ore.
3. At the end of the scenario Gizmo transfers {amount} emeralds to Glitch.
4. Both players are friendly to each other."""


@pytest.fixture(scope="module")
def double_vein():
    return load_world(BUILTIN_DIR / "double_vein.toml")


@pytest.fixture(scope="module")
def cleanup():
    return load_world(BUILTIN_DIR / "cleanup.toml")


def play(spec, programs, seed: int = 0, finish: bool = True) -> list[Event]:
    sim = Simulation(spec, seed=seed)
    asyncio.run(sim.run(programs))
    if finish:
        sim.finish()
    return sim.state.log.events


def policy(spec, name: str):
    return {p: POLICIES[name] for p in spec.players}


def test_observables_of_a_simulated_social_split(double_vein) -> None:
    obs = observables_from_events(double_vein, play(double_vein, policy(double_vein, "social_split")))
    assert obs.finished and obs.end_time == double_vein.episode_seconds
    assert obs.collected == {"Gizmo": {"raw_iron": 12}, "Glitch": {"diamond": 6}}
    assert obs.mined == {"Gizmo": {"iron_ore": 12}, "Glitch": {"diamond_ore": 6}}
    assert obs.inventories == {"Gizmo": {"raw_iron": 12, "stone_pickaxe": 1}, "Glitch": {"diamond": 6, "iron_pickaxe": 1}}
    assert obs.chests == {"6,64,7": {}}
    assert sorted(op.item for op in obs.chest_ops) == ["iron_pickaxe", "stone_pickaxe"]
    assert all(op.delta == -1 and op.chest == "6,64,7" for op in obs.chest_ops)
    assert (obs.inventory_value("Gizmo"), obs.inventory_value("Glitch")) == (48.0, 30.0)


def test_observables_replay_a_log_without_its_end_snapshot(double_vein) -> None:
    sim = Simulation(double_vein, seed=0)
    asyncio.run(sim.run(policy(double_vein, "greedy")))
    obs = observables_from_events(double_vein, sim.state.log.events)
    assert not obs.finished
    assert obs.inventories == {p: dict(sorted(inv.items())) for p, inv in sim.state.inventories.items()}
    assert obs.chests == {"6,64,7": {}}


def test_observables_use_the_last_episode_and_read_chat_signals_and_tasks(double_vein) -> None:
    async def gizmo(api):
        await api.chat("I take the stone pickaxe")
        await api.send_signal("done")

    async def glitch(api):
        await api.wait_signal("done", timeout=10)

    earlier = play(double_vein, policy(double_vein, "greedy"))
    later = play(double_vein, {"Gizmo": gizmo, "Glitch": glitch})
    tasks = [Event(0.0, "Gizmo", "task", {"task": "Mine all iron_ore"})]
    obs = observables_from_events(double_vein, earlier + later[:1] + tasks + later[1:])
    assert obs.collected == {"Gizmo": {}, "Glitch": {}}
    assert [(p, m) for _, p, m in obs.chat] == [("Gizmo", "I take the stone pickaxe")]
    assert [(p, task) for _, p, task in obs.signals] == [("Gizmo", "done")]
    assert obs.tasks == {"Gizmo": "Mine all iron_ore"}
    with pytest.raises(ValueError, match="no episode_start"):
        observables_from_events(double_vein, later[1:])


@pytest.mark.parametrize(("amount", "rewards", "expected_gini"), [(9, (39.0, 39.0), 0.0), (11, (37.0, 41.0), 0.051)])
def test_double_vein_numbers(double_vein, amount: int, rewards: tuple[float, float], expected_gini: float) -> None:
    obs = observables_from_events(double_vein, play(double_vein, policy(double_vein, "social_split")))
    contract = parse_contract(OPTIMUM.format(amount=amount), list(double_vein.players))
    judgment = judge_formal(contract, obs)
    assert judgment.transfers == {"Gizmo": -amount, "Glitch": amount} and judgment.source == "formal"
    after = rewards_after(obs, judgment)
    assert (after["Gizmo"], after["Glitch"]) == rewards
    assert gini(after.values()) == pytest.approx(expected_gini, abs=5e-4)
    assert judgment.critiques == {"Gizmo": "", "Glitch": ""}
    assert "Clause 4 is free text" in judgment.reasoning


SWAPPED = """1. Gizmo mines all diamond_ore.
2. Glitch mines all iron_ore.
3. At the end of the scenario Gizmo transfers 9 emeralds to Glitch.
4. Gizmo takes the iron_pickaxe."""


def test_assignment_violations_become_critiques(double_vein) -> None:
    # Greedy play: Glitch turns to the chest first and takes the iron pickaxe, mines the diamonds, then races
    # Gizmo (stone pickaxe) for the iron; the contract assigns everything the other way round.
    obs = observables_from_events(double_vein, play(double_vein, policy(double_vein, "greedy")))
    judgment = judge_formal(parse_contract(SWAPPED, list(double_vein.players)), obs)
    assert obs.mined == {"Gizmo": {"iron_ore": 8}, "Glitch": {"diamond_ore": 6, "iron_ore": 4}}
    assert "Glitch mined 6 diamond_ore assigned to Gizmo (clause 1)." in judgment.critiques["Glitch"]
    assert "Glitch took the iron_pickaxe that clause 4 gives to Gizmo." in judgment.critiques["Glitch"]
    assert "Gizmo mined 8 iron_ore assigned to Glitch (clause 2)." in judgment.critiques["Gizmo"]
    assert "Gizmo mined no diamond_ore although clause 1 assigns it to him." in judgment.critiques["Gizmo"]
    assert judgment.transfers == {"Gizmo": -9.0, "Glitch": 9.0}  # assignments move no emeralds


def _turn_programs(glitch_waits: bool, gizmo_signals: bool):
    async def gizmo(api):
        await api.get_item_from_chest(CHEST, {"iron_pickaxe": 1})
        await api.mine_block("diamond_ore", 2)
        await api.deposit_item_into_chest(CHEST, {"iron_pickaxe": 1})
        if gizmo_signals:
            await api.send_signal("iron_pickaxe returned")

    async def glitch(api):
        if glitch_waits:
            await api.wait_signal("iron_pickaxe", timeout=200)
        else:
            await api.wait(2)  # without waiting for the signal, after Gizmo took the pickaxe (at 1.4 s)
        await api.get_item_from_chest(CHEST, {"iron_pickaxe": 1})
        await api.mine_block("diamond_ore", 4)

    return {"Gizmo": gizmo, "Glitch": glitch}


TURN = "1. Gizmo takes the iron_pickaxe first and returns it to the chest, then signals Glitch."


def test_turn_taking_kept(double_vein) -> None:
    obs = observables_from_events(double_vein, play(double_vein, _turn_programs(glitch_waits=True, gizmo_signals=True)))
    assert [(op.player, op.delta) for op in obs.chest_ops if op.item == "iron_pickaxe"] == [("Gizmo", -1), ("Gizmo", 1), ("Glitch", -1)]
    judgment = judge_formal(parse_contract(TURN, list(double_vein.players)), obs)
    assert judgment.critiques == {"Gizmo": "", "Glitch": ""}


def test_turn_taking_broken(double_vein) -> None:
    obs = observables_from_events(double_vein, play(double_vein, _turn_programs(glitch_waits=False, gizmo_signals=False)))
    judgment = judge_formal(parse_contract(TURN, list(double_vein.players)), obs)
    assert "Gizmo returned the iron_pickaxe but never signalled Glitch (clause 1)." == judgment.critiques["Gizmo"]
    assert judgment.critiques["Glitch"] == ""  # the chest was empty until Gizmo returned it
    unsignalled = observables_from_events(double_vein, play(double_vein, _turn_programs(glitch_waits=True, gizmo_signals=False)))
    assert "never signalled" in judge_formal(parse_contract(TURN, ["Gizmo", "Glitch"]), unsignalled).critiques["Gizmo"]


def test_turn_taking_taken_out_of_turn() -> None:
    ops = [ChestOp(1.0, "Glitch", "6,64,7", "iron_pickaxe", -1)]
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    obs = observables_from_events(spec, play(spec, {}))
    obs.chest_ops = ops
    critiques = judge_formal(parse_contract(TURN, ["Gizmo", "Glitch"]), obs).critiques
    assert critiques["Glitch"] == "Glitch took the iron_pickaxe before Gizmo had used and returned it (clause 1)."
    assert critiques["Gizmo"] == "Gizmo did not take the iron_pickaxe first (clause 1)."


def _cleanup_programs():
    async def harvester(api):
        await api.mine_block("red_mushroom_block", 27)

    async def cleaner(api):
        for _ in range(5):
            await api.mine_block("slime_block", 8)

    return {"Gizmo": harvester, "Glitch": cleaner}


def test_proportional_and_per_unit_transfers_on_cleanup(cleanup) -> None:
    obs = observables_from_events(cleanup, play(cleanup, _cleanup_programs(), seed=3))
    mushrooms = obs.collected["Gizmo"].get("red_mushroom", 0)
    held = obs.inventories["Gizmo"].get("red_mushroom", 0)
    assert mushrooms > 0 and held == mushrooms and obs.mined["Glitch"].get("slime_block", 0) > 0
    contract = parse_contract(
        "1. Glitch cleans the river.\n"
        "2. Gizmo mines all red_mushroom_block.\n"
        "3. At the end of the scenario Gizmo transfers 50% of the value of his red_mushroom to Glitch.\n"
        "4. At the end of the scenario Glitch transfers 0.5 emeralds to Gizmo for each red_mushroom collected.",
        list(cleanup.players),
        world="cleanup",
    )
    judgment = judge_formal(contract, obs)
    glitch_collected = obs.collected["Glitch"].get("red_mushroom", 0)
    expected = 0.5 * 3 * held - 0.5 * glitch_collected
    assert judgment.transfers == {"Gizmo": pytest.approx(-expected), "Glitch": pytest.approx(expected)}
    assert sum(judgment.transfers.values()) == pytest.approx(0.0)
    assert judgment.critiques == {"Gizmo": "", "Glitch": ""}


def test_transfers_are_uncapped_and_free_text_moves_nothing(double_vein) -> None:
    obs = observables_from_events(double_vein, play(double_vein, policy(double_vein, "social_split")))
    contract = parse_contract(
        "1. At the end of the scenario Glitch transfers 100 emeralds to Gizmo.\n2. Gizmo pays Glitch a fair share.",
        list(double_vein.players),
    )
    judgment = judge_formal(contract, obs)
    assert rewards_after(obs, judgment) == {"Gizmo": 148.0, "Glitch": -70.0}
    empty = judge_formal(parse_contract(None, ["Gizmo", "Glitch"]), obs)
    assert empty.transfers == {"Gizmo": 0.0, "Glitch": 0.0} and rewards_after(obs, empty) == {"Gizmo": 48.0, "Glitch": 30.0}


def test_compare_judgments_lists_players_that_differ() -> None:
    formal = Judgment({"Gizmo": -9.0, "Glitch": 9.0}, {}, "formal")
    llm = Judgment({"Gizmo": -11.0, "Glitch": 11.0}, {}, "llm")
    [gizmo, glitch] = compare_judgments(formal, llm)
    assert (gizmo.player, gizmo.difference, glitch.difference) == ("Gizmo", -2.0, 2.0)
    assert str(glitch) == "Glitch: formal +9, llm +11 (difference +2)"
    assert compare_judgments(formal, Judgment({"Gizmo": -9.0 + 1e-9, "Glitch": 9.0}, {}, "llm")) == []
