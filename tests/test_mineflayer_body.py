"""Programs on real mineflayer bots against the embedded flying-squid server: same program, same world, same
outcome as the simulator; budgets stop runaway programs; nothing is left running."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import LIVE_WORLD_JS, MineflayerWorld, ServerAddress
from blockpact.bridge.live.operator_target import OperatorBotTarget
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.runtime import runtime
from blockpact.bridge.sim import SimWorld
from blockpact.bridge.live.world_compiler import ControlChannelTarget, build_world_on_server, read_back, tally
from blockpact.skills.reference import primitives
from blockpact.worlds.world_files import load_world

from harness.pace import scaled

TESTS = Path(__file__).parent
PARITY_WORLD = TESTS / "worlds" / "bridge_parity.toml"
PARITY_PROGRAM = (TESTS / "programs" / "chest_iron_sticks_signal.js").read_text()
FAULTY_LISTENER = TESTS / "js" / "faulty_listener.js"
CHEST = (4, 64, 4)
OPERATOR = live_settings().external.operator  # an operator on the session's shared server


@pytest.fixture(scope="module")
def spec():
    return load_world(PARITY_WORLD)


@pytest.fixture(scope="module")
def server(embedded_server) -> EmbeddedServer:
    """The session's shared server (harness/live.py): each test builds the parity world afresh in it."""
    return embedded_server


async def _fresh_world(server: EmbeddedServer, spec) -> MineflayerWorld:
    await build_world_on_server(server, spec)
    assert read_back(server, spec) == []
    return MineflayerWorld(ServerAddress(port=server.port, version=server.version))


async def _close(world: MineflayerWorld, server: EmbeddedServer) -> None:
    await world.close()
    deadline = time.monotonic() + scaled(5)
    while server.request("players") and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert server.request("players") == [], "a bot is still connected after close()"


def test_mineflayer_side_implements_exactly_the_primitives_of_primitives_toml() -> None:
    names = json.loads(str(runtime().require(LIVE_WORLD_JS).LiveWorld.primitiveNames()))
    assert sorted(names["primitives"]) == sorted(primitives())


def test_building_a_world_fits_the_servers_view_distance_to_its_map(server, spec) -> None:
    """Joins after the build get the fewest chunks that show the whole map (the parity map spans one chunk
    column: the floor, 2); a map of 16 columns gets live.toml's view_distance, the ceiling."""
    assert server.fit_view((0, 0, 0), (255, 0, 255)) == live_settings().server.view_distance == 4
    asyncio.run(build_world_on_server(server, spec))
    assert server.request("viewDistance") == 2


def test_parity_program_ends_like_the_simulator(server, spec) -> None:
    async def live():
        world = await _fresh_world(server, spec)
        try:
            await world.join(spec, ControlChannelTarget(server))
            results = await world.run_programs({p: PARITY_PROGRAM for p in spec.players}, budget=90)
            chest = tally(server.request("getChest", pos=list(CHEST)))
            ore = server.request("countBlocks", **{"from": [0, 64, 0], "to": [9, 64, 9], "block": "iron_ore"})
            inventories = {p: tally(server.request("inventory", player=p)) for p in spec.players}
        finally:
            await _close(world, server)
        return results, chest, ore, inventories

    async def simulated():
        world = SimWorld(spec, seed=0)
        try:
            return await world.run_programs({p: PARITY_PROGRAM for p in spec.players}), world.state
        finally:
            await world.close()

    results, chest, ore, inventories = asyncio.run(live())
    sim_results, state = asyncio.run(simulated())
    for player in spec.players:
        live_result, sim_result = results[player], sim_results[player]
        assert live_result.success, (player, live_result.error, live_result.chat)
        assert not live_result.timed_out
        # The server's inventory, the bot's own observation and the simulator agree.
        assert inventories[player] == live_result.observation["inventory"] == dict(state.inventories[player])
        assert live_result.chat == sim_result.chat
        assert live_result.logs == sim_result.logs
        assert live_result.observation["chests"] == sim_result.observation["chests"]
    assert chest == dict(state.chests[CHEST]) == {"raw_iron": 2}
    assert inventories["Gizmo"] == {"stone_pickaxe": 1, "stick": 4, "oak_planks": 2}
    assert inventories["Glitch"] == {"oak_planks": 4, "raw_iron": 1}
    assert ore == {"iron_ore": 1}
    # Glitch waited for Gizmo's signal: it finished last, in wall-clock seconds.
    assert 0 < results["Gizmo"].duration <= results["Glitch"].duration < 90


RUNAWAY_BUDGET = 1  # wall seconds; the loop spins a core until then
RUNAWAY_LOOP = "async function spin(bot) {\n  while (true) {}\n}"
RUNAWAY_WALK = """async function pace(bot) {
  for (;;) {
    await moveTo(bot, new Vec3(9, 64, 9), 0);
    await moveTo(bot, new Vec3(0, 64, 0), 0);
  }
}"""
AFTERWARDS = """async function report(bot) {
  await moveTo(bot, new Vec3(2, 64, 2), 0);
  bot.chat('arrived');
  return bot.entity.position;
}"""
WAIT_TICKS = "async function wait(bot) {\n  await bot.waitForTicks(200);\n  bot.chat('waited');\n}"
BROKEN = "async function broken(bot) {\n  const pickaxe = bot.heldItem;\n  return pickaxe.name;\n}"
NO_CHEST = "async function look(bot) {\n  await checkItemInsideChest(bot, new Vec3(1, 64, 1));\n}"


def test_runaway_programs_stop_within_budget_and_the_body_runs_on(server, spec) -> None:
    async def scenario():
        world = await _fresh_world(server, spec)
        try:
            body = await world.connect("Runner")
            await server_command(server, "tp Runner 5 64 5")
            outcomes = []
            for source in (RUNAWAY_LOOP, RUNAWAY_WALK):
                started = time.monotonic()
                result = await body.run(source, budget=RUNAWAY_BUDGET)
                outcomes.append((result, time.monotonic() - started))
            # The walk was stopped with the program: the bot stands still.
            before = body.observe()["position"]
            await asyncio.sleep(0.5)
            still = body.observe()["position"]
            # A listener of the bot that throws (pathfinder's A*, issue 15's flake) fails that bot's program only.
            runtime().require(FAULTY_LISTENER).throwWhileRunning(world._world, "Runner")
            faulty = await body.run(WAIT_TICKS, budget=30)
            after = await body.run(AFTERWARDS, budget=30)
            broken = await body.run(BROKEN, budget=10)
            no_chest = await body.run(NO_CHEST, budget=10)
        finally:
            await _close(world, server)
        return outcomes, before, still, faulty, after, broken, no_chest

    outcomes, before, still, faulty, after, broken, no_chest = asyncio.run(scenario())
    for result, wall in outcomes:
        assert result.timed_out and not result.success
        assert result.error == f"timed out after {RUNAWAY_BUDGET} s of wall-clock time"
        assert RUNAWAY_BUDGET - 0.1 <= result.duration <= RUNAWAY_BUDGET + scaled(0.5) and wall < scaled(RUNAWAY_BUDGET + 2), (result.duration, wall)
    assert before == still
    assert not faulty.success and faulty.chat == [], faulty.chat
    assert faulty.error == ("Runner's body failed: the bot's physicsTick handler failed: "
                            "Cannot read properties of undefined (reading 'y')"), faulty.error
    assert after.success and not after.timed_out, after.error
    assert after.chat == ["arrived"]
    x, y, z = after.observation["position"]
    assert (x - 2.5) ** 2 + (y - 64) ** 2 + (z - 2.5) ** 2 <= 1.0, after.observation["position"]
    assert not broken.success and broken.error == "TypeError: Cannot read properties of null (reading 'name') (program line 3)"
    assert not no_chest.success and no_chest.error == "Error: No chest at (1, 64, 1), it is air (program line 2)"


def _holds(observation: dict, items: dict[str, int], near: tuple[float, float, float]) -> bool:
    position = observation["position"]
    return observation["inventory"] == items and sum((a - b) ** 2 for a, b in zip(position, near)) <= 1.0


async def server_command(server: EmbeddedServer, text: str) -> list[str]:
    return await asyncio.to_thread(server.command, text)


def test_smelting_on_a_server_without_furnaces_is_a_clear_error(server, spec) -> None:
    async def scenario():
        world = await _fresh_world(server, spec)
        try:
            body = await world.connect("Smelter")
            for text in ("setblock 5 64 8 furnace", "clear Smelter", "give Smelter raw_iron 1", "give Smelter coal 1", "tp Smelter 5 64 6"):
                await server_command(server, text)
            deadline = time.monotonic() + scaled(10)  # until the bot has seen the items and the teleport
            while not _holds(body.observe(), {"raw_iron": 1, "coal": 1}, (5.5, 64, 6.5)) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            return await body.run("async function smelt(bot) {\n  await smeltItem(bot, 'raw_iron', 'coal', 1);\n}", budget=30)
        finally:
            await _close(world, server)

    result = asyncio.run(scenario())
    assert not result.success and result.error_line == 2
    assert "does not support furnaces" in result.error and "(5, 64, 8)" in result.error


def test_an_operator_bot_builds_through_chat_commands(server, spec) -> None:
    async def scenario():
        world = await _fresh_world(server, spec)
        try:
            await world.connect(OPERATOR)
            target = OperatorBotTarget(world, OPERATOR)
            answer = await target.command("fill 8 64 7 9 64 8 oak_log")
            counts = server.request("countBlocks", **{"from": [8, 64, 7], "to": [9, 64, 8]})
            refused = None
            try:
                await target.set_drops("stone", "diamond", 1, 1)
            except Exception as exc:  # noqa: BLE001 - the message is what matters
                refused = str(exc)
        finally:
            await _close(world, server)
        return answer, counts, refused

    answer, counts, refused = asyncio.run(scenario())
    assert answer == "Successfully filled 4 block(s)"
    assert counts == {"oak_log": 4}
    assert refused and "embedded server" in refused
