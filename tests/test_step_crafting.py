"""Crafting in the step-level API: "craft:ITEM" actions do the recipe rules/game.py does, at a crafting
table when the recipe needs one, so a crafted-tool dilemma is reachable at step level too."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.errors import UserError
from blockpact.worlds import parallel_env

WORKSHOP = """
[world]
name = "workshop"
description = "Two smiths; a crafting table in front of Ann."

[map]
origin = [0, 63, 0]
size = [7, 3, 6]

[[map.layers]]
y = 63
fill = "stone"

[[blocks]]
block = "crafting_table"
positions = [[2, 64, 2]]

[players.Ann]
spawn = [2, 64, 3]
inventory = { oak_planks = 2, iron_ingot = 3 }
values = { iron_pickaxe = 10 }

[players.Bob]
spawn = [5, 64, 3]
inventory = { iron_ingot = 3, stick = 2 }
values = { iron_pickaxe = 10 }

[episode]
seconds = 10
"""
ACTIONS = ["noop", "turn_left", "craft:stick", "craft:iron_pickaxe"]


def inventory(env, obs, player: str) -> dict[str, int]:
    return {i: n for i, n in zip(env.core.tables.items, obs[player]["inventory"].tolist()) if n}


def test_recipes_take_their_ingredients_and_a_table_when_they_need_one(tmp_path: Path) -> None:
    path = tmp_path / "workshop.toml"
    path.write_text(WORKSHOP)
    env = parallel_env(path, actions=ACTIONS)
    obs, _ = env.reset(seed=0)
    act = {name: i for i, name in enumerate(ACTIONS)}
    obs, r, *_ = env.step({"Ann": act["craft:stick"], "Bob": act["craft:iron_pickaxe"]})
    assert inventory(env, obs, "Ann") == {"iron_ingot": 3, "stick": 4}  # 2 planks -> 4 sticks, no table needed
    assert inventory(env, obs, "Bob") == {"iron_ingot": 3, "stick": 2}  # no table in front of Bob: nothing
    obs, r, *_ = env.step({"Ann": act["craft:iron_pickaxe"], "Bob": act["noop"]})
    assert inventory(env, obs, "Ann") == {"iron_pickaxe": 1, "stick": 2} and r["Ann"] == 10.0
    obs, r, *_ = env.step({"Ann": act["craft:iron_pickaxe"], "Bob": act["noop"]})
    assert inventory(env, obs, "Ann") == {"iron_pickaxe": 1, "stick": 2}  # no iron left: nothing


def test_an_item_without_a_recipe_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "workshop.toml"
    path.write_text(WORKSHOP)
    with pytest.raises(UserError, match="no crafting recipe for diamond_ore"):
        parallel_env(path, actions=["noop", "craft:diamond_ore"]).reset(seed=0)
    with pytest.raises(UserError, match="or craft:ITEM"):
        parallel_env(path, actions=["noop", "craft"])
