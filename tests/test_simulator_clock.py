"""The discrete-event clock: concurrency, races, signals, determinism, and the world's dynamics."""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from blockpact.worlds.sim.facing import SPAWN_FACING, turn_seconds
from blockpact.worlds.world_files import load_world

from conftest import chat_lines, run_programs

ONE_ORE = """
[world]
name = "one_ore"
description = "One iron ore block and two players with stone pickaxes, equally far from it."
[map]
origin = [0, 63, 0]
size = [9, 3, 3]
[map.legend]
"I" = "iron_ore"
[[map.layers]]
y = 63
fill = "stone"
[[map.layers]]
y = 64
rows = ["", "....I...."]
[players.Ada]
spawn = [0, 64, 1]
inventory = { stone_pickaxe = 1 }
[players.Ben]
spawn = [8, 64, 1]
inventory = { stone_pickaxe = 1 }
[episode]
seconds = 60
"""


def test_two_programs_race_for_one_ore_block(tmp_path) -> None:
    path = tmp_path / "one_ore.toml"
    path.write_text(ONE_ORE)

    async def program(api):
        return await api.mine_block("iron_ore", 1)

    sim, out = run_programs(load_world(path), {"Ada": program, "Ben": program})
    # Both arrive at the same simulated time; ties go to the first player by name.
    assert out["Ada"].value == 1 and out["Ben"].value == 0
    assert sim.state.inventories["Ada"]["raw_iron"] == 1
    assert "raw_iron" not in sim.state.inventories["Ben"]
    assert chat_lines(sim, "Ben") == ["iron_ore at (4, 64, 1) was mined by Ada before I got to it; no other iron_ore nearby"]


def test_two_players_at_one_chest_are_served_in_the_order_their_turns_end() -> None:
    """Double-Vein's chest race: both players stand within reach of the chest, facing south as they joined.
    A mineflayer bot turns at 3 rad/s before it opens a chest: Glitch faces it after 0.75 s, Gizmo after 0.9 s
    (measured live: 750-770 and 890-910 ms from the programs' common start to the chest window), so Glitch gets
    the iron pickaxe on both backends, though Gizmo stands nearer."""

    async def take(api):
        return await api.get_item_from_chest((6, 64, 7), {"iron_pickaxe": 1})

    sim, out = run_programs(load_world("double_vein"), {"Gizmo": take, "Glitch": take})
    assert out["Glitch"].value == {"iron_pickaxe": 1} and out["Gizmo"].value == {}
    chest_seconds = sim.timing["chest_seconds"]
    seen = {e.agent: e.time for e in sim.state.log.of_kind("chest_seen")}
    assert seen == {"Glitch": 0.75 + chest_seconds, "Gizmo": 0.9 + chest_seconds}, seen
    assert not sim.state.log.of_kind("move"), "both reach the chest from where they joined"


def test_a_turn_takes_the_ticks_its_yaw_needs() -> None:
    """mineflayer's look ends with the tick whose packet reaches the yaw (3 rad/s): the short way round, one
    tick for a pitch alone, nothing for no turn."""
    assert turn_seconds(SPAWN_FACING, SPAWN_FACING, 3.0) == 0.0
    assert turn_seconds((0.0, 0.0), (0.0, -1.0), 3.0) == pytest.approx(0.05)
    assert turn_seconds((3.0, 0.0), (-3.0, 0.0), 3.0) == pytest.approx(0.1)  # 0.28 rad across pi, not 6
    assert turn_seconds((0.0, 0.0), (math.pi, 0.0), 3.0) == pytest.approx(1.05)  # 20.9 ticks -> 21


def test_time_advances_only_when_every_program_is_blocked(tmp_path) -> None:
    path = tmp_path / "one_ore.toml"
    path.write_text(ONE_ORE)
    seen: list[float] = []

    async def slow_thinker(api):
        await asyncio.sleep(0.05)  # e.g. waiting for an LLM: simulated time must not move meanwhile
        seen.append(api.time)
        await api.chat("done thinking")

    async def walker(api):
        await api.move_to((3, 64, 1), 0)

    sim, out = run_programs(load_world(path), {"Ada": walker, "Ben": slow_thinker})
    assert seen == [0.0]
    assert out["Ada"].success and out["Ben"].success


def test_signals_wake_the_waiting_player(tmp_path) -> None:
    path = tmp_path / "one_ore.toml"
    path.write_text(ONE_ORE)

    async def waiter(api):
        sender = await api.wait_signal("Ben has mined the ore", timeout=30)
        return sender, api.time, await api.wait_signal("a second signal", timeout=5)

    async def miner(api):
        await api.mine_block("iron_ore", 1)
        await api.send_signal("ore mined")
        return api.time

    sim, out = run_programs(load_world(path), {"Ada": waiter, "Ben": miner})
    sender, woke_at, second = out["Ada"].value
    assert sender == "Ben"
    assert woke_at <= out["Ben"].value and woke_at > 1.0
    assert second is None
    assert chat_lines(sim, "Ada") == ["No signal received within 5 seconds while waiting for: a second signal"]


def test_episode_end_stops_blocked_programs(tmp_path) -> None:
    path = tmp_path / "one_ore.toml"
    path.write_text(ONE_ORE)

    async def forever(api):
        while True:
            await api.chat("still here")

    sim, out = run_programs(load_world(path), {"Ada": forever}, until=2.0)
    assert not out["Ada"].success and out["Ada"].error == "episode ended at 2 s"
    assert sim.now == 2.0


def test_program_exceptions_are_reported_not_raised(tmp_path) -> None:
    path = tmp_path / "one_ore.toml"
    path.write_text(ONE_ORE)

    async def buggy(api):
        return {}["missing"]

    _, out = run_programs(load_world(path), {"Ada": buggy})
    assert out["Ada"].error == "KeyError: 'missing'"


def greedy_trace(seed: int, jitter: bool) -> list[tuple]:
    from sim_programs import greedy

    async def program(api):
        if jitter:  # real-time noise between primitives must not change the simulated trajectory
            await asyncio.sleep(random.random() * 0.002)
        await greedy(api)

    spec = load_world("cleanup")
    sim, _ = run_programs(spec, {p: program for p in spec.players}, seed=seed, until=120)
    sim.finish()
    return [(e.time, e.agent, e.kind, sorted(e.data.items())) for e in sim.state.log.events]


def test_same_seed_same_trace() -> None:
    assert greedy_trace(3, jitter=False) == greedy_trace(3, jitter=True)
    assert greedy_trace(3, jitter=False) != greedy_trace(4, jitter=False)


def test_cleanup_clean_river_regrows_and_polluted_does_not() -> None:
    from blockpact.worlds.sim.simulator import Simulation

    def regrown(clean: bool) -> int:
        spec = load_world("cleanup")
        sim = Simulation(spec, seed=0)
        for pos in spec.regions["mushrooms"].cells():
            if sim.state.block_at(pos) == "red_mushroom_block":
                sim.state.set_block(pos, "air", "Gizmo", cause="test")
        if clean:
            for pos in spec.regions["river"].cells():
                if sim.state.block_at(pos) == "slime_block":
                    sim.state.set_block(pos, "water", "Glitch", cause="test")
        sim.advance_to(60)  # slime returns at ~1 per 20 s: at most a few, still <= 7
        return sim.state.count_in_region("red_mushroom_block", "mushrooms")

    assert regrown(clean=False) == 0
    assert regrown(clean=True) >= 20  # 27 blocks at p = 0.05/s over 60 s: ~25 expected


def test_commons_stock_doubles_per_round_and_collapses_below_threshold() -> None:
    from blockpact.worlds.sim.simulator import Simulation

    def stock_after(remaining: int, rounds: int) -> int:
        spec = load_world("commons")
        sim = Simulation(spec, seed=0)
        cells = sorted(spec.regions["patch"].cells())
        for pos in cells[remaining:]:
            sim.state.set_block(pos, "air", "Alex", cause="test")
        sim.advance_to(60 * rounds)
        return sim.state.count_in_region("pumpkin", "patch")

    assert stock_after(30, 1) == 60
    assert stock_after(30, 2) == 100  # capped at the patch's capacity
    assert stock_after(4, 3) == 4  # below the threshold of 5: collapsed for good


def test_a_player_whose_blocked_call_is_cancelled_still_counts_as_running() -> None:
    """A body cancels the call its program is blocked on (the program stopped: a limit, a cancel). The call's wake-up
    goes at once, but its task resumes only at its next step; a main loop stepped in between saw the player neither
    running nor due to wake and ended the episode at once (seen: a program of 64 unawaited calls stopped by its limit,
    and the clock at 300 s for the next program). Clock.interrupt counts the player as running until it blocks again."""
    from blockpact.worlds.sim.clock import Clock

    async def scenario() -> float | None:
        clock = Clock(["A"])
        clock.started("A")
        main_loop = asyncio.create_task(_next_wake_up_seen(clock))  # waits while A runs
        await asyncio.sleep(0)

        async def player() -> None:
            asyncio.get_running_loop().call_soon(lambda: clock.interrupt("A", call))  # runs before the main loop's step
            try:
                await clock.sleep("A", 1.0)
            except asyncio.CancelledError:
                await clock.sleep("A", 2.0)  # the body goes on with its next call

        call = asyncio.create_task(player())
        seen = await main_loop
        call.cancel()
        return seen

    assert asyncio.run(scenario()) == 2.0  # not None: "nobody runs, nothing to wake" ends an episode


async def _next_wake_up_seen(clock) -> float | None:
    """What a simulator's main loop sees once no program runs: the next wake-up (None ends the episode)."""
    await clock.quiescent()
    return clock.next_time()
