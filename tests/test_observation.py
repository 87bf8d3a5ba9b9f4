"""The action prompt's observation (Voyager's): position, holding, time elapsed and left, blocks
around, chests seen, other players in view and the private briefing, from a body's observe()."""

from __future__ import annotations

import asyncio

import pytest

from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import action_messages
from blockpact.agents.observation import render_observation
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.world_files import load_world


@pytest.fixture(scope="module")
def double_vein():
    return load_world("double_vein")


def observe(spec, player: str) -> dict:
    async def go():
        world = SimWorld(spec, seed=0)
        try:
            return await world.observe(player)
        finally:
            await world.close()
    return asyncio.run(go())


def test_the_simulator_observation_is_rendered(double_vein) -> None:
    text = render_observation(observe(double_vein, "Gizmo"), double_vein)
    assert text.splitlines() == [
        "Position: (5, 64, 9)",
        "Holding: nothing",
        "Time: 0 s elapsed of 300 s; 300 s left",
        "Blocks around you: chest: 1, diamond_ore: 6, iron_ore: 12, stone: 192",
        "Chests: none seen yet",
        "Other players in view: Glitch at (9, 64, 9), 4.0 blocks away",
    ]


def test_a_world_that_hides_its_length_shows_no_time_left() -> None:
    cleanup = load_world("cleanup")
    text = render_observation({"time": 42.4, "position": [1, 2, 3]}, cleanup)
    assert "Time: 42 s elapsed (nobody knows how long the scenario lasts)" in text and "left" not in text


def test_chests_seen_and_air_and_many_block_kinds() -> None:
    spec = load_world("double_vein")
    blocks = {"air": 900, **{f"block_{i:02d}": i + 1 for i in range(25)}}
    obs = {"time": 10, "held": "iron_pickaxe", "nearby_blocks": blocks, "chests": {"6,64,7": {"iron_pickaxe": 1}},
           "nearby_entities": []}
    text = render_observation(obs, spec)
    assert "Holding: iron_pickaxe" in text and "Chests: at (6, 64, 7): iron_pickaxe: 1" in text
    assert "air" not in text.replace("block_", "") and "block_00: 1" in text and "and 5 more kinds" in text
    assert "Other players in view: none" in text


def test_the_action_prompt_carries_the_observation(double_vein) -> None:
    ctx = ActionContext(player="Gizmo", world=double_vein, task="Play.", observation=observe(double_vein, "Gizmo"))
    _, user = action_messages(ctx, "(primitives)", [], 10)
    assert "What you observe:\nPosition: (5, 64, 9)" in user["content"]
    empty = ActionContext(player="Glitch", world=double_vein, task="Play.")
    assert "What you observe:\nNothing observed yet." in action_messages(empty, "", [], 10)[1]["content"]


@pytest.mark.parametrize("world", ["double_vein", "cleanup"])
def test_the_first_look_from_the_spec_is_what_the_simulator_shows(world: str) -> None:
    """A live world shows the spec's first look before its bots join: the same as the simulator at time 0."""
    from blockpact.worlds.spec.first_look import first_look

    spec = load_world(world)
    for player in spec.players:
        sim = observe(spec, player)
        look = first_look(spec, player)
        keys = ("position", "inventory", "time", "nearby_blocks", "nearby_entities", "chests", "held")
        assert {k: look[k] for k in keys} == {k: sim[k] for k in keys}
