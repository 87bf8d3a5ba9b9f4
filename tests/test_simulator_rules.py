"""Digging, harvesting, drops, chests, crafting and smelting on the simulator."""

from __future__ import annotations

import pytest

from blockpact.worlds.rules import game as rules
from blockpact.worlds.world_files import load_world
from blockpact.worlds.state import WorldState

from conftest import chat_lines, run_programs


@pytest.fixture(scope="module")
def vein_state() -> WorldState:
    return WorldState(load_world("double_vein"))


@pytest.mark.parametrize(
    "block,tool,seconds",
    [
        ("iron_ore", "iron_pickaxe", 0.75),  # 6 / 3 / 30 -> 15 ticks
        ("iron_ore", "stone_pickaxe", 1.15),  # 4 / 3 / 30 -> 23 ticks
        ("iron_ore", None, 15.0),  # hand, cannot harvest: 1 / 3 / 100 -> 300 ticks
        ("diamond_ore", "stone_pickaxe", 3.75),  # cannot harvest: 4 / 3 / 100 -> 75 ticks
        ("diamond_ore", "iron_pickaxe", 0.75),
        ("stone", "wooden_pickaxe", 1.15),  # 2 / 1.5 / 30 -> 22.5 -> 23 ticks
        ("oak_log", None, 3.0),  # 1 / 2 / 30 -> 60 ticks
        ("slime_block", None, 0.0),  # hardness 0: instant
    ],
)
def test_dig_time_follows_minecraft(vein_state: WorldState, block: str, tool: str | None, seconds: float) -> None:
    assert rules.dig_seconds(vein_state, block, tool) == pytest.approx(seconds)


def test_harvest_rules_come_from_minecraft_data(vein_state: WorldState) -> None:
    assert rules.can_harvest(vein_state, "iron_ore", "stone_pickaxe")
    assert not rules.can_harvest(vein_state, "diamond_ore", "stone_pickaxe")
    assert rules.can_harvest(vein_state, "diamond_ore", "iron_pickaxe")
    assert not rules.can_harvest(vein_state, "iron_ore", None)
    assert rules.dig_seconds(vein_state, "bedrock", "iron_pickaxe") == rules.UNBREAKABLE


def test_stone_pickaxe_cannot_mine_diamond_and_says_so() -> None:
    spec = load_world("double_vein")

    async def program(api):
        await api.get_item_from_chest((6, 64, 7), {"stone_pickaxe": 1})
        return await api.mine_block("diamond_ore", 1)

    sim, out = run_programs(spec, {"Glitch": program})
    assert out["Glitch"].success and out["Glitch"].value == 0
    assert "I cannot mine diamond_ore with stone_pickaxe" in chat_lines(sim, "Glitch")
    assert "diamond" not in sim.state.inventories["Glitch"]


def test_mining_drops_into_inventory_and_takes_dig_time() -> None:
    spec = load_world("double_vein")

    async def program(api):
        await api.get_item_from_chest((6, 64, 7), {"iron_pickaxe": 1})
        t0 = api.time
        n = await api.mine_block("diamond_ore", 2)
        return n, api.time - t0

    sim, out = run_programs(spec, {"Gizmo": program})
    mined, took = out["Gizmo"].value
    assert mined == 2
    assert sim.state.inventories["Gizmo"]["diamond"] == 2
    assert took >= 2 * 0.75  # two digs plus the walk to the vein
    assert len(sim.state.find_blocks("diamond_ore", (12, 64, 3), 10, 100)) == 4


def test_missing_block_gives_voyager_feedback(workshop) -> None:
    async def program(api):
        return await api.mine_block("emerald_ore", 1)

    sim, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].value == 0
    assert chat_lines(sim, "Ada") == ["No emerald_ore nearby, please explore first"]


def test_unknown_block_name_ends_the_program(workshop) -> None:
    async def program(api):
        await api.mine_block("unobtainium", 1)

    _, out = run_programs(workshop, {"Ada": program})
    assert not out["Ada"].success
    assert out["Ada"].error == "No block named unobtainium"


def test_chest_withdraw_deposit_and_list(workshop) -> None:
    chest = (4, 64, 6)

    async def program(api):
        got = await api.get_item_from_chest(chest, {"stone_pickaxe": 1, "diamond": 1})
        await api.mine_block("iron_ore", 1)
        put = await api.deposit_item_into_chest(chest, {"raw_iron": 1})
        return got, put, await api.list_items_in_chest(chest)

    sim, out = run_programs(workshop, {"Ada": program})
    got, put, listed = out["Ada"].value
    assert got == {"stone_pickaxe": 1}
    assert put == {"raw_iron": 1}
    assert listed == {"coal": 2, "raw_iron": 1}
    assert sim.state.inventories["Ada"] == {"stone_pickaxe": 1}
    assert "I don't see diamond in this chest" in chat_lines(sim, "Ada")
    assert sim.known_chests["Ada"][chest] == {"coal": 2, "raw_iron": 1}


def test_opening_something_that_is_not_a_chest_fails(workshop) -> None:
    async def program(api):
        await api.get_item_from_chest((6, 64, 3), {"coal": 1})

    _, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].error == "No chest at (6, 64, 3), it is crafting_table"


def test_craft_wooden_pickaxe_from_logs(workshop) -> None:
    async def program(api):
        await api.mine_block("oak_log", 3)
        await api.craft_item("oak_planks", 3)  # 12 planks
        await api.craft_item("stick", 1)  # 2 planks -> 4 sticks
        return await api.craft_item("wooden_pickaxe", 1)  # 3 planks + 2 sticks, needs the table

    sim, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].success, out["Ada"].error
    assert out["Ada"].value == 1
    assert sim.state.inventories["Ada"] == {"wooden_pickaxe": 1, "oak_planks": 7, "stick": 2}
    assert "I did the recipe for wooden_pickaxe 1 times" in chat_lines(sim, "Ada")


def test_crafting_reports_what_is_missing(workshop) -> None:
    async def program(api):
        return await api.craft_item("iron_pickaxe", 1)

    sim, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].value == 0
    assert "I cannot make iron_pickaxe because I need: 3 more iron_ingot, 2 more stick" in chat_lines(sim, "Ada")


def test_three_by_three_recipe_needs_a_crafting_table(tmp_path) -> None:
    from conftest import WORKSHOP

    path = tmp_path / "no_table.toml"
    path.write_text(WORKSHOP.replace('"T" = "crafting_table"', '"T" = "stone"').replace("[players.Ada]\n", "[players.Ada]\ninventory = { oak_planks = 3, stick = 2 }\n"))

    async def program(api):
        return await api.craft_item("wooden_pickaxe", 1)

    sim, out = run_programs(load_world(path), {"Ada": program})
    assert out["Ada"].value == 0
    assert chat_lines(sim, "Ada")[-1] == "I cannot make wooden_pickaxe because I need: a crafting_table nearby"


def test_smelting_uses_fuel_and_takes_ten_seconds_per_item(workshop) -> None:
    async def program(api):
        await api.get_item_from_chest((4, 64, 6), {"stone_pickaxe": 1, "coal": 1})
        await api.mine_block("iron_ore", 1)
        t0 = api.time
        done = await api.smelt_item("raw_iron", "coal", 1)
        return done, api.time - t0

    sim, out = run_programs(workshop, {"Ada": program})
    done, took = out["Ada"].value
    assert done == 1 and took >= 10.0
    assert sim.state.inventories["Ada"] == {"stone_pickaxe": 1, "iron_ingot": 1}


@pytest.mark.parametrize(("logs", "smelted", "left"), [(1, 0, {"oak_log": 1}), (2, 1, {"charcoal": 1}),
                                                     (3, 1, {"oak_log": 1, "charcoal": 1})])
def test_a_log_burns_to_smelt_another_log_from_the_same_stack(workshop, logs: int, smelted: int, left: dict) -> None:
    """As in Minecraft, the fuel may be the item smelted: one log is the fuel, another the input. One log alone
    smelts nothing (it was smelted with itself, in no time, with its count going below zero); each item smelted
    takes its ten seconds (it took none). A log smelts 1.5 items: the third log has no fuel left to smelt it."""
    async def program(api):
        await api.mine_block("oak_log", logs)
        t0 = api.time
        done = await api.smelt_item("oak_log", "oak_log", 5)
        return done, api.time - t0

    sim, out = run_programs(workshop, {"Ada": program})
    done, took = out["Ada"].value
    assert done == smelted and sim.state.inventories["Ada"] == left
    assert took >= 10.0 * smelted and took < 10.0 * smelted + 5  # the walk to the furnace, then the smelting
    held = 0
    for e in sim.state.log.of_kind("inventory"):  # every change's count is the count before plus its delta
        assert e.data["item"] != "oak_log" or e.data["count"] == (held := held + e.data["delta"]) >= 0


def test_place_item_needs_support_and_the_item(workshop) -> None:
    async def program(api):
        await api.mine_block("oak_log", 1)
        floating = await api.place_item("oak_log", (2, 66, 2))
        placed = await api.place_item("oak_log", (2, 64, 2))
        again = await api.place_item("oak_log", (3, 64, 2))
        return floating, placed, again

    sim, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].value == (False, True, False)
    assert sim.state.block_at((2, 64, 2)) == "oak_log"
    lines = chat_lines(sim, "Ada")
    assert any("You cannot place a floating block" in line for line in lines)
    assert "No oak_log in inventory" in lines


def test_walking_takes_path_length_over_walk_speed(workshop) -> None:
    async def program(api):
        await api.move_to((7, 64, 2), 0)
        return api.position, api.time

    _, out = run_programs(workshop, {"Ada": program})
    position, t = out["Ada"].value
    assert position == (7, 64, 2)
    assert t == pytest.approx(7 / 4.317)  # 6 steps along x and 1 along z on flat ground


def test_no_path_is_an_error(workshop) -> None:
    async def program(api):
        await api.move_to((5, 70, 5), 0)

    _, out = run_programs(workshop, {"Ada": program})
    assert out["Ada"].error == "No path to the goal!"


def test_explore_until_walks_until_the_condition_holds(workshop) -> None:
    async def program(api):
        found = await api.explore_until((1, 0, 0), 30, lambda a: a.position if a.position[0] >= 6 else None)
        blocked = await api.explore_until((0, 0, -1), 30)  # runs into the map's edge
        return found, blocked, api.position

    sim, out = run_programs(workshop, {"Ada": program})
    found, blocked, position = out["Ada"].value
    assert found == (6, 65, 3)  # stepped up onto the crafting table in its way
    assert blocked is None and position == (6, 64, 0)
    assert chat_lines(sim, "Ada")[-1] == "I cannot explore further towards (0, 0, -1)"
