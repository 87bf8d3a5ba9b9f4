"""Hostile programs on a real mineflayer bot (embedded flying-squid server): the same limits as on the
simulator end them, the bot runs the next program normally, the Node process stays under 1 GB, and
nothing is left running. A stalled program ends by its wall budget here (no stall check live)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
from blockpact.bridge.runtime import runtime
from blockpact.bridge.live.world_access import EmbeddedAccess
from blockpact.bridge.live.world_compiler import ControlChannelTarget, build_world_on_server
from blockpact.bridge.live.world_master import WorldMaster
from blockpact.experiments.play.episode_engine import chat_lines
from blockpact.worlds.state import WorldState
from blockpact.worlds.world_files import load_world

from test_sandbox_limits import GB, HOSTILE, _gone, _peak_rss, _tree_rss

TESTS = Path(__file__).parent
BUDGET = 5.0
NORMAL = "async function main(bot) {\n  await bot.waitForTicks(2);\n  bot.chat('still here');\n  return bot.username;\n}\n"

# program file -> (failure kind, limit, error)
EXPECTED = {
    "1_shared_references.js": ("limit", "maxArgumentBytes", r"argument too large: over 1048576 bytes, limit 32768 \(limit maxArgumentBytes\)"),
    "2_never_settles.js": ("budget", "program_budget", r"^timed out after 5 s of wall-clock time$"),
    "3_deep_return.js": ("limit", "maxDepth", r"the return value too deep"),
    "4_unawaited_calls.js": ("limit", "maxPendingCalls", r"^too many primitive calls in flight"),
    "5_chat_flood.js": ("limit", "chatPerSecond", r"^chat too fast: over 8 messages at once or 1 per second \(limit chatPerSecond\)$"),
    "7_array_buffers.js": ("limit", "busyGrowthMb", r"^out of memory: the Node process grew by \d+ MB"),
    "8_busy_loop.js": ("budget", "program_budget", r"^timed out after 5 s of wall-clock time$"),
    "11_stepwise_buffers.js": ("limit", "memoryMb", r"ArrayBuffer memory \(limit memoryMb\)"),
}


@pytest.fixture(scope="module")
def server():
    live = EmbeddedServer().start()
    pid = live.pid
    yield live
    live.stop()
    assert pid is not None and _gone(pid), f"server process {pid} survived"


@pytest.mark.slow  # once left the session's Node runtime broken for every later live test (make test-all)
def test_hostile_programs_on_a_live_bot(server) -> None:
    spec = load_world(TESTS / "worlds" / "bridge_parity.toml")
    outcomes = {}

    async def scenario() -> None:
        await build_world_on_server(server, spec)
        world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
        try:
            await world.join(spec, ControlChannelTarget(server))
            body = world.body("Gizmo")
            for name in EXPECTED:
                started = time.monotonic()
                result = await body.run((HOSTILE / name).read_text(), budget=BUDGET)
                outcomes[name] = (result, time.monotonic() - started, await body.run(NORMAL, budget=30))
        finally:
            await world.close()

    asyncio.run(scenario())
    node = runtime()
    try:
        peak = _peak_rss(node.pid)
    finally:
        node.close()
    for name, (kind, limit, error) in EXPECTED.items():
        result, seconds, after = outcomes[name]
        assert not result.success, name
        assert re.search(error, result.error), (name, result.error)
        assert (result.failure, result.limit) == (kind, limit), (name, result.failure, result.limit, result.error)
        assert seconds < BUDGET + 15, (name, seconds)
        assert after.success, (name, after.error)
        assert "still here" in after.chat
    assert peak < GB, f"the Node process reached {peak / 2**20:.0f} MB"
    assert _gone(node.pid)


ROUND2 = TESTS / "programs" / "hostile" / "round2"
ROUND2_BUDGET = 3.0
BESIDE = "async function main(bot) {\n  for (let i = 0; i < 30; i++) await bot.waitForTicks(1);\n  return 'beside';\n}\n"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]|\n")
TIMED_OUT = r"^timed out after 3 s of wall-clock time$"
# round-two probe -> (the error it must end with, the limit its result names or None)
ROUND2_EXPECTED = {
    "builtin_after_return.js": (rf"({TIMED_OUT}|limit idleTimeoutMs)", None),
    "caught_refusals.js": (r"limit maxArgumentBytes", "maxArgumentBytes"),
    "chat_server_command.js": (r"is a server command, and programs may not run server commands \(limit serverCommands\)", "serverCommands"),
    "feedback_flood.js": (r"^too much primitive feedback: over 1000 lines in one program \(limit maxFeedbackLines\)$", "maxFeedbackLines"),
    "feedback_server_command.js": (r"^Error: nothing happened /kill @a", None),
    "forged_escapes.js": (r"^Error: ", None),
    "getter_on_return.js": (r"getter|accessor", None),
    "growable_shared_buffer.js": (r"(limit memoryMb|SharedArrayBuffer is absent from programs)", None),
    "host_find_blocks.js": (TIMED_OUT, "program_budget"),
    "host_sort_comparator.js": (TIMED_OUT, "program_budget"),
    "indexof_huge_arraylike.js": (TIMED_OUT, "program_budget"),
    "message_sizes.js": (r"^RangeError: getItemFromChest: argument too large: 600\d\d bytes, limit 32768 \(limit maxArgumentBytes\)", "maxArgumentBytes"),
    "normalize_combining.js": (TIMED_OUT, "program_budget"),
    "oversized_argument.js": (r"^RangeError: moveTo: argument too large: 6000\d\d bytes, limit 32768 \(limit maxArgumentBytes\)", "maxArgumentBytes"),
    "resizable_buffer.js": (r"^RangeError: ArrayBuffer resize: resizable buffers are not allowed in programs \(limit memoryMb\)", "memoryMb"),
    "unreachable_move.js": (TIMED_OUT, "program_budget"),
    "unreachable_move_once.js": (rf"(^Error: No path to the goal!|^Error: I could not get to|{TIMED_OUT})", None),
}


def test_round_two_hostile_programs_on_a_live_bot_end_with_their_limit_and_harm_no_one(server) -> None:
    """Each round-two probe (tests/programs/hostile/round2) beside another player's program: it ends within its
    budget plus 15 s with its limit named, the other player's program and the next one on the same bot succeed,
    no player is killed by a command, no text reaches the result raw, and no process grows past 1.5 GB."""
    assert sorted(ROUND2_EXPECTED) == sorted(p.name for p in ROUND2.glob("*.js"))
    spec = load_world(TESTS / "worlds" / "bridge_parity.toml")
    outcomes, largest = {}, [0]

    async def watch(pid: int) -> None:
        while True:
            largest[0] = max(largest[0], *_tree_rss(pid), 0)
            await asyncio.sleep(0.2)

    async def scenario() -> None:
        await build_world_on_server(server, spec)
        world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
        watcher = asyncio.ensure_future(watch(runtime().pid))
        try:
            await world.join(spec, ControlChannelTarget(server))
            for name in [*ROUND2_EXPECTED, "skills/shadow_primitives.js"]:
                source, skills = (ROUND2 / name).read_text(), ()
                if name.startswith("skills/"):
                    source, skills = "async function main(bot) {\n  log('mining');\n  await mineBlock(bot, 'iron_ore', 1);\n}\n", (source,)
                started = time.monotonic()
                probe, beside = await asyncio.gather(world.body("Gizmo").run(source, budget=ROUND2_BUDGET, skills=skills),
                                                     world.body("Glitch").run(BESIDE, budget=30))
                took = time.monotonic() - started
                health = world.body("Glitch").observe().get("health")
                outcomes[name] = (probe, beside, took, health, await world.body("Gizmo").run(NORMAL, budget=30))
        finally:
            watcher.cancel()
            await world.close()

    asyncio.run(scenario())
    node = runtime()
    node.close()
    assert _gone(node.pid)
    for name, (probe, beside, took, health, after) in outcomes.items():
        assert took < ROUND2_BUDGET + 15, (name, took)
        assert beside.success, (name, beside.failure, beside.error)
        assert after.success and "still here" in after.chat, (name, after.error)
        assert health == 20, (name, health)  # no command killed the other player
        for line in [probe.error or "", *probe.chat, *probe.logs]:
            assert not RAW.search(line), (name, line)
        if name.startswith("skills/"):  # the real primitive acted, the skill's top-level code did not run
            assert probe.logs[:2] == ["[skill mineBlock not loaded: it would replace the program's own mineBlock]",
                                      "[skill log not loaded: it would replace the program's own log]"], probe.logs
            continue
        error, limit = ROUND2_EXPECTED[name]
        assert not probe.success, name
        assert re.search(error, probe.error or ""), (name, probe.error)
        if limit is not None:
            assert probe.limit == limit, (name, probe.failure, probe.limit, probe.error)
    feedback = outcomes["feedback_server_command.js"][0]
    assert feedback.chat_sources == ["primitive"] * len(feedback.chat) and "No item named x /kill @a" in feedback.chat, feedback.chat
    sizes = outcomes["message_sizes.js"][0]
    assert len(sizes.logs) == 1000 and sizes.chat == [str(i).ljust(250, "z") for i in range(8)], (len(sizes.logs), sizes.chat[:1])
    assert re.fullmatch(r"answer: 5000 positions, \d{6} bytes", sizes.logs[2]), sizes.logs[2]  # past 64 KB, whole
    assert largest[0] < 1.5 * GB, f"a process reached {largest[0] / 2**20:.0f} MB"


def test_a_live_chat_log_marks_feedback_apart_from_what_the_program_said(server) -> None:
    """The server's chat cannot tell a bot's feedback from its program's lines: the bot's note in its journal lets the
    world master mark it, so "I did the recipe for stick" said by the program is not shown as feedback."""
    spec = load_world(TESTS / "worlds" / "bridge_parity.toml")
    program = ("async function main(bot) {\n  bot.chat('I did the recipe for stick');\n"
               "  const chest = bot.findBlock({ matching: 'chest', maxDistance: 32 });\n"
               "  await getItemFromChest(bot, chest.position, { bogus_item: 1, 'x\\n/kill @a': 1 });\n"
               "  await bot.waitForTicks(10);\n}\n")

    async def scenario() -> tuple[str, ...]:
        await build_world_on_server(server, spec)
        world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
        try:
            await world.join(spec, ControlChannelTarget(server))
            master = WorldMaster(EmbeddedAccess(server), spec, WorldState(spec))
            master.bot_journal = world.drain_journal
            master.start()
            result = await world.body("Gizmo").run(program, budget=10)
            assert result.success, result.error
            deadline = time.monotonic() + 10
            while len(chat := chat_lines(master.state.log.events)) < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.2)  # the server's journal: drained as a tick would
                master.record()
            return chat
        finally:
            await world.close()

    try:
        chat = asyncio.run(scenario())
    finally:
        runtime().close()
    assert [line.split("] ", 1)[1] for line in chat] == [
        "Gizmo: I did the recipe for stick", "Gizmo (feedback): No item named bogus_item",
        "Gizmo (feedback): No item named x /kill @a"], chat
