"""Live primitives that cannot hang: two mineflayer bots on the embedded server race for one chest and
one small vein. Both programs go on to their end; what one lost to the other is in its feedback; the
blocks mined add up; tick waits count ticks (no wall-clock time-out of mineflayer's)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
from blockpact.bridge.live.world_compiler import ControlChannelTarget, build_world_on_server, tally
from blockpact.worlds.world_files import load_world

from test_bridge_runtime import _gone

WORLD = Path(__file__).parent / "worlds" / "contested_vein.toml"
STARVE = Path(__file__).parent / "js" / "starve_runtime.js"
CHEST = (4, 64, 4)
RACE = """async function race(bot) {
  const got = await getItemFromChest(bot, new Vec3(4, 64, 4), { stone_pickaxe: 1 });
  const mined = await mineBlock(bot, 'iron_ore', 3);
  await bot.waitForTicks(40);
  log(`mined ${mined}`);
  return mined;
}"""


@pytest.fixture(scope="module")
def server(embedded_server) -> EmbeddedServer:
    """The session's shared server (harness/live.py): each test builds its world in it, and what a test kills
    is the bots' Node runtime, never the server."""
    return embedded_server


@pytest.mark.slow  # 20-58 s at load 7-13 on 2 cores (make test-all runs it). Its heap blow-up (issue 18: mineflayer-tool
# calling itself for a bot whose pickaxe was gone when the dig began) is fixed in connect.js; why the pickaxe went is not
# known: such a bot now says "I cannot mine iron_ore with ..." and this test fails on it instead of hanging
def test_two_bots_racing_for_one_vein_both_finish_and_say_what_they_lost(server) -> None:
    spec = load_world(WORLD)

    async def scenario():
        await build_world_on_server(server, spec)
        world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
        try:
            await world.join(spec, ControlChannelTarget(server))
            started = time.monotonic()
            results = await world.run_programs({p: RACE for p in spec.players}, budget=90)
            wall = time.monotonic() - started
            ore = server.request("countBlocks", **{"from": [0, 64, 0], "to": [9, 64, 9], "block": "iron_ore"})
            inventories = {p: tally(server.request("inventory", player=p)) for p in spec.players}
        finally:
            await world.close()
        return results, wall, ore, inventories

    results, wall, ore, inventories = asyncio.run(scenario())
    for player, result in results.items():
        assert result.success and not result.timed_out, (player, result.error, result.chat)
    assert wall < 60, wall
    mined = {p: int(results[p].logs[-1].split()[-1]) for p in results}
    assert sum(mined.values()) == 3 and ore == {}, (mined, ore, inventories, {p: r.chat for p, r in results.items()})
    assert {p: inventories[p].get("raw_iron", 0) for p in mined} == mined
    assert all(inventories[p].get("stone_pickaxe") == 1 for p in mined)
    for player, count in mined.items():
        if count < 3:  # it lost blocks to the other bot, and said so
            lost = [line for line in results[player].chat if "was mined by" in line or "No iron_ore nearby" in line]
            assert lost, (player, results[player].chat)


def test_a_runtime_that_stops_answering_and_fills_its_heap_fails_the_programs_with_cause_bridge(server, monkeypatch) -> None:
    """Issue 18's failure without the library bug behind it (fixed): an endless chain of promises in the bots' runtime
    never lets its event loop run and grows the heap. Both programs fail with cause `bridge` within the liveness
    bound, not after their 300 s budget, and the runtime is killed (the next program gets a new one). The bound on
    a quick call is a quarter of production's here (2 s idle, at most 6 s loaded): the starved runtime spins a
    core until it is killed."""
    from blockpact.bridge.live import mineflayer_body
    from blockpact.bridge.liveness import LIVENESS_POLL_SECONDS

    monkeypatch.setattr(mineflayer_body, "NODE_CALL_SECONDS", mineflayer_body.NODE_CALL_SECONDS / 4)
    NODE_CALL_SECONDS = mineflayer_body.NODE_CALL_SECONDS
    spec = load_world(WORLD)
    wait = "async function main(bot) {\n  for (;;) await bot.waitForTicks(20);\n}"

    async def scenario():
        await build_world_on_server(server, spec)
        world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
        try:
            await world.join(spec, ControlChannelTarget(server))
            programs = asyncio.ensure_future(world.run_programs({p: wait for p in spec.players}, budget=300))
            await asyncio.sleep(2)
            world._node.require(STARVE).start()
            started = time.monotonic()
            results = await programs
            return world._node.pid, results, time.monotonic() - started
        finally:
            await world.close()

    pid, results, took = asyncio.run(scenario())
    for player, result in results.items():
        assert not result.success and result.failure == "bridge", (player, result.failure, result.error)
        # the watchdog's kill, or (on a busy machine, whose ping bound is stretched) the heap filling up first
        error = str(result.error)
        assert ("did not answer" in error and "killed" in error) or "the Node runtime died" in error, error
    assert took < 3 * NODE_CALL_SECONDS + 4 * LIVENESS_POLL_SECONDS + 5, took  # a ping's bound, stretched by load at most 3x
    assert _gone(pid), f"the starved Node runtime {pid} survived"


def test_a_join_that_fails_is_tried_again_with_a_timeout_scaled_by_load(monkeypatch) -> None:
    """No server on the port: every attempt fails at once; the error names the attempts. The timeout grows with
    the load per core and is never below live.toml's spawn_timeout."""
    import socket

    from blockpact.bridge import machine_load
    from blockpact.bridge.live import joins, mineflayer_body
    from blockpact.bridge.live.joins import join_timeout
    from blockpact.bridge.live.mineflayer_body import BotError, node_call_seconds

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario():
        async with MineflayerWorld(ServerAddress(port=port)) as world:
            started = time.monotonic()
            with pytest.raises(BotError) as failed:
                await world.connect("Nobody")
            return str(failed.value), time.monotonic() - started

    message, took = asyncio.run(scenario())
    assert f"Nobody could not join 127.0.0.1:{port}" in message and "(3 attempts)" in message, message
    assert 3 <= took < 30, took  # waits of 1 s and 2 s between the attempts
    monkeypatch.setattr(machine_load.os, "getloadavg", lambda: (8.0, 0.0, 0.0))
    monkeypatch.setattr(machine_load, "CORES", 2)  # read once at import: load 8 on 2 cores is 4 per core
    assert join_timeout() == 4 * 30.0
    assert join_timeout(64) == 4 * 30.0 + 63 * joins.JOIN_SECONDS_PER_BOT  # the last of 64 joining at once
    # a quick call into Node: stretched too, but at most 3x, so a wedged runtime is still found
    assert node_call_seconds() == 3 * mineflayer_body.NODE_CALL_SECONDS
    monkeypatch.setattr(machine_load.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert join_timeout() == 30.0 and node_call_seconds() == mineflayer_body.NODE_CALL_SECONDS


@pytest.mark.slow  # flaky: the world master's drainJournal (8 s bound) timed out once on a quiet machine (make test-all)
def test_live_writes_the_event_kinds_of_the_simulator(server) -> None:
    """program_start, program_end, move and chest_seen, as the simulator writes them for the same programs."""
    from blockpact.bridge.live.world import LiveWorld
    from blockpact.bridge.sim import SimWorld

    spec = load_world(WORLD)

    async def play(world):
        try:
            await world.run_programs({p: RACE for p in spec.players}, budget=90)
            world.finish()
            return world.events
        finally:
            await world.close()

    live = asyncio.run(play(LiveWorld(spec, 0, server=server)))
    simulated = asyncio.run(play(SimWorld(spec, seed=0)))
    wanted = {"program_start", "program_end", "move", "chest_seen"}
    assert wanted <= {e.kind for e in simulated}
    assert wanted <= {e.kind for e in live}, sorted({e.kind for e in live})
    for events in (live, simulated):
        starts = [e for e in events if e.kind == "program_start"]
        ends = [e for e in events if e.kind == "program_end"]
        assert sorted(e.agent for e in starts) == sorted(e.agent for e in ends) == sorted(spec.players)
        assert all(e.data["success"] and e.data["error"] is None for e in ends)
        seen = [e for e in events if e.kind == "chest_seen"]
        assert {tuple(e.data["pos"]) for e in seen} == {CHEST} and len(seen) == 2
    times = [e.time for e in live]
    assert times == sorted(times)
    moves = [e for e in live if e.kind == "move"]
    assert all(e.agent in spec.players and e.data["steps"] > 0 for e in moves)


PICK = """async function pick(bot) {
  const picked = await mineBlock(bot, 'sweet_berry_bush', 4);
  log(`picked ${picked}`);
  return picked;
}"""


def test_a_held_out_world_with_a_custom_plant_drop_and_regrowth_runs_live(server) -> None:
    """tests/worlds/berry_patch.toml: the drop rule works on the embedded server from the world file alone
    (with its regrowth rule loaded); the outcome is not zero, and nothing is reported unsupported."""
    from blockpact.bridge.live.world import LiveWorld

    spec = load_world(Path(__file__).parent / "worlds" / "berry_patch.toml")

    async def play():
        world = LiveWorld(spec, 0, server=server)
        world.play_out = False  # the picks are the point; live regrowth is test_live_world's authored world's
        try:
            results = await world.run_programs({"Gizmo": PICK}, budget=60)
            end = world.finish()
            return results, end, world.events
        finally:
            await world.close()

    results, end, events = asyncio.run(play())
    result = results["Gizmo"]
    assert result.success, (result.error, result.chat)
    assert result.logs == ["picked 4"], (result.logs, result.chat)
    assert end.data["inventories"]["Gizmo"].get("sweet_berries") == 8
    assert end.data["rewards"]["Gizmo"] == 8
    assert not [e for e in events if e.kind == "live_unsupported"]
    assert sum(1 for e in events if e.kind == "block" and e.data["cause"] == "dig") == 4


def test_an_episode_whose_runtime_ran_late_is_logged_and_said(server, monkeypatch) -> None:
    """Its bots' Node runtime blocked 2.5 s while the programs ran (as a busy machine starves it): the episode
    still counts, and a `runtime_late` event and a line for the user say so (watchdog.lateness_note). A 6 s block
    while the bots joined is not the programs' and is not counted (a review found it counted)."""
    from blockpact.bridge.live.mineflayer_body import MineflayerWorld
    from blockpact.bridge.live.backend import LiveWorlds
    from blockpact.bridge.runtime import runtime

    join = MineflayerWorld.join

    async def slow_join(self, *args, **kwargs):
        runtime().require("node:vm").runInThisContext("(() => { const end = Date.now() + 6000; while (Date.now() < end); })()")
        return await join(self, *args, **kwargs)

    monkeypatch.setattr(MineflayerWorld, "join", slow_join)

    spec = load_world(WORLD)
    said: list[str] = []
    wait = "async function wait(bot) { await bot.waitForTicks(200); }"

    def stall_once_started(event) -> None:  # lateness counts from the programs' start, not the joins before
        if event.kind == "program_start" and not stalled:
            stalled.append(runtime().require("node:vm").runInThisContext(
                "setTimeout(() => { const end = Date.now() + 2500; while (Date.now() < end); }, 1000); 1"))

    stalled: list = []

    async def play() -> list:
        world = LiveWorlds(server, announce=said.append).for_condition("negotiate")(spec, 0)  # as a run makes it
        world.listen(stall_once_started)
        try:
            results = await world.run_programs({p: wait for p in spec.players}, budget=60)
            assert all(r.success for r in results.values()), results
            world.finish()
            return world.events
        finally:
            await world.close()

    events = asyncio.run(play())
    (late,) = [e for e in events if e.kind == "runtime_late"]
    assert 2.0 <= late.data["late_s"] < 5.5, late.data  # the programs' stall, not the joins' 6 s
    assert any(line.startswith("negotiate seed 0: the bots' Node runtime stalled for up to") and "slowed episode" in line
               for line in said), said  # the condition too, as metrics.json names the episode
