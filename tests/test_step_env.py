"""The step-level API: PettingZoo conformance, rules compiled from rules/game.py, and play on real worlds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from blockpact.errors import UserError
from blockpact.worlds import parallel_env
from blockpact.worlds.rules import game as rules
from blockpact.worlds.world_files import builtin_names, load_world
from blockpact.worlds.state import WorldState
from blockpact.worlds.rules.tables import compile_tables, world_blocks

BUILDER = """
[world]
name = "builder"
description = "Two players and a patch of dirt to build on."

[map]
origin = [0, 63, 0]
size = [6, 3, 6]

[[map.layers]]
y = 63
fill = "stone"

[players.Ann]
spawn = [2, 64, 3]
inventory = { dirt = 2 }
values = { dirt = 2 }

[players.Bob]
spawn = [2, 64, 1]
inventory = { dirt = 1 }
values = { dirt = 1 }

[episode]
seconds = 20
"""


def act(env, **named: str) -> dict[str, int]:
    return {agent: env.core.action_names.index(name) for agent, name in named.items()}


@pytest.mark.parametrize("world", ["cleanup_mp", "double_vein"])
def test_pettingzoo_parallel_api_and_seeding(world: str) -> None:
    parallel_api_test(parallel_env(world), num_cycles=200)
    parallel_seed_test(lambda: parallel_env(world), num_cycles=200)


@pytest.mark.parametrize("world", builtin_names())
def test_tables_agree_with_rules_for_every_block(world: str) -> None:
    spec = load_world(world)
    tables = compile_tables(spec)
    state = WorldState(spec)
    assert world_blocks(spec) <= set(tables.palette)
    for p, block in enumerate(tables.palette):
        for k, tool in enumerate(tables.tools):
            assert tables.harvest[p, k] == rules.can_harvest(state, block, tool)
            assert tables.dig_seconds[p, k] == rules.dig_seconds(state, block, tool)
        assert tables.expected_drops(p) == pytest.approx({i: n for i, n in rules.expected_drops(state, block).items() if n})
        assert tables.diggable[p] == (block not in ("air", "water", "lava") and state.data.blocks[block].hardness is not None)
        state.inventories["Tester"] = Counter({t: 1 for t in tables.tools if t})
        ranked = min((tables.tool_rank[p, k], t or "") for k, t in enumerate(tables.tools))
        assert (ranked[1] or None) == rules.best_tool(state, "Tester", block)
        rolled = {n for _ in range(30) for n in [sum(rules.roll_drops(state, block).values())]}
        if tables.drop_slot[p] >= 0:
            assert rolled <= set(tables.drop_counts[p].tolist())
    for i, item in enumerate(tables.items):
        for n, player in enumerate(sorted(spec.players)):
            assert tables.values[n, i] == spec.value(player, item)


def test_fetching_a_pickaxe_and_mining_pays_the_player() -> None:
    env = parallel_env("double_vein")
    obs, _ = env.reset(seed=0)
    rewards = []
    plan = ["right", "forward", "use", "left", "left", "forward", "forward", "forward", "forward", "forward", "turn_left", "dig", "dig"]
    for name in plan:  # Gizmo from (5, 64, 9) facing north: the chest at (6, 64, 7), then the iron vein
        obs, r, _, _, _ = env.step(act(env, Gizmo=name, Glitch="noop"))
        rewards.append(r["Gizmo"])
    items = env.core.tables.items
    inventory = dict(zip(items, obs["Gizmo"]["inventory"].tolist()))
    assert inventory["iron_pickaxe"] == 1 and inventory["raw_iron"] == 2  # feet-height ore, then head-height ore
    assert rewards[-2:] == [4.0, 4.0] and sum(rewards) == 8.0
    assert obs["Glitch"]["inventory"].sum() == 0


def test_digging_by_hand_takes_minecraft_time_and_yields_nothing_unharvestable() -> None:
    env = parallel_env("double_vein")
    env.reset(seed=0)
    for name in ["left"] + ["forward"] * 6 + ["turn_left"]:  # Gizmo to (4, 64, 3), facing the iron at (3, 64, 3)
        env.step(act(env, Gizmo=name))
    steps = 0
    core = env.core
    ore = core.tables.block("iron_ore")
    while core.grids.get(0, core.y, core.x - 1, core.z)[0, 0] == ore:
        env.step(act(env, Gizmo="dig"))
        steps += 1
    seconds = rules.dig_seconds(WorldState(load_world("double_vein")), "iron_ore", None)
    assert steps == int(np.ceil(seconds))  # 15 s by hand, one second a step
    assert core.inventory.sum() == 0


def test_placing_follows_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "builder.toml"
    path.write_text(BUILDER)
    env = parallel_env(path)
    obs, _ = env.reset(seed=0)
    dirt = env.core.tables.block("dirt")
    # Ann faces Bob (north, two cells away): the cell between is free, so her dirt goes there.
    obs, r, *_ = env.step(act(env, Ann="place", Bob="noop"))
    assert r == {"Ann": -2.0, "Bob": 0.0}
    assert obs["Ann"]["blocks"][1, env.core.options.window_ahead - 1, env.core.options.window_sides] == dirt
    # Bob turns round to face it: he cannot place into a full cell; then he digs it (dirt drops dirt).
    obs, r, *_ = env.step(act(env, Bob="turn_left"))
    obs, r, *_ = env.step(act(env, Bob="turn_left"))
    obs, r, *_ = env.step(act(env, Bob="place"))
    assert r["Bob"] == 0.0
    obs, r, *_ = env.step(act(env, Bob="dig"))
    assert r["Bob"] == 1.0
    assert obs["Bob"]["inventory"][env.core.tables.slot("dirt")] == 2


def test_the_window_is_egocentric() -> None:
    env = parallel_env("cleanup_mp")
    obs, _ = env.reset(seed=0)
    o, core = env.core.options, env.core
    facing_north = obs["P1"]["blocks"][1]
    for _ in range(2):
        obs, *_ = env.step(act(env, P1="turn_right"))
    facing_south = obs["P1"]["blocks"][1]
    # P1 stands at x 2, z 6: one row behind it when facing north is z 7, which is one row ahead facing south.
    centre, ahead = o.window_sides, o.window_ahead
    assert facing_north[ahead + 1, centre] == facing_south[ahead - 1, centre]
    water = core.tables.block("water")
    assert (facing_north[ahead - 5 : ahead - 1, centre] == water).all()  # the river, z 1..4, straight ahead
    assert (facing_south[ahead + 2 :, :] == core.tables.block("barrier")).all() or o.window_behind < 2
    assert obs["P1"]["agents"][ahead, centre] == 1  # itself


def test_unknown_options_and_actions_are_refused() -> None:
    with pytest.raises(UserError, match="unknown step-env option"):
        parallel_env("cleanup_mp", window=3)
    with pytest.raises(UserError, match="unknown action"):
        parallel_env("cleanup_mp", actions=["noop", "jump"])


def test_rgb_observation_colours_the_window() -> None:
    env = parallel_env("cleanup_mp", render_rgb=True)
    obs, _ = env.reset(seed=0)
    rgb = obs["P1"]["rgb"]
    assert rgb.shape == (11, 11, 3) and rgb.dtype == np.uint8
    assert env.observation_space("P1").contains(obs["P1"])
    assert len({tuple(c) for c in rgb.reshape(-1, 3)}) >= 3  # wall, water, grass at least


def test_two_players_digging_one_block_in_one_step_the_first_by_name_gets_it(tmp_path: Path) -> None:
    path = tmp_path / "builder.toml"
    path.write_text(BUILDER)
    env = parallel_env(path)
    env.reset(seed=0)
    env.step(act(env, Ann="place", Bob="turn_left"))  # dirt between them; Bob turns round to face it
    env.step(act(env, Ann="noop", Bob="turn_left"))
    obs, r, *_ = env.step(act(env, Ann="dig", Bob="dig"))  # dirt breaks by hand in one step
    assert r == {"Ann": 2.0, "Bob": 0.0}  # Ann values dirt at 2
    dirt = env.core.tables.slot("dirt")
    assert (obs["Ann"]["inventory"][dirt], obs["Bob"]["inventory"][dirt]) == (2, 1)


def test_actions_out_of_range_are_refused_before_anything_moves() -> None:
    env = parallel_env("cleanup_mp")
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 8 of copy 0, player P3 is out of range \(expected 0 \.\. 7\)"):
        env.step({"P1": 1, "P3": 8})
    assert env.core.t == 0 and (env.core.observe()["blocks"][0] == np.stack([obs[a]["blocks"] for a in env.possible_agents])).all()
    with pytest.raises(ValueError, match="actions have shape"):
        env.core.step(np.zeros((2, 7), dtype=np.int64))


def test_stepping_on_after_the_end_without_reset_keeps_the_dynamics_going() -> None:
    env = parallel_env("cleanup_mp", step_seconds=250.0)  # 1000 s: four steps an episode
    env.reset(seed=2)
    for _ in range(4):
        env.step({})
    assert env.agents == []
    before = env.core.dynamics.count("slime_block", "river")
    env.step({})
    assert env.core.t == 5 and env.core.dynamics.count("slime_block", "river") > before
