"""Second-round hostile programs (tests/programs/hostile/round2, one class each) on the simulator: each ends within
its budget plus 15 s with the limit it broke named, the other player's program beside it and the next program on the
same body are unaffected, its text reaches no output raw, and no process (Python, Node, a sandbox) passes 1.5 GB.
The wedging builtins run in sandbox processes (the probes are untrusted programs), each costing its 2 s budget of
CPU."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest
from harness.pace import scaled

from blockpact.bridge.protocols import shown_chat
from blockpact.bridge.runtime import runtime
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.episode_engine import chat_lines
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import load_world

from test_sandbox_limits import GB, _tree_rss

TESTS = Path(__file__).parent
PROBES = TESTS / "programs" / "hostile" / "round2"
PARITY_WORLD = TESTS / "worlds" / "bridge_parity.toml"
FOREST_WORLD = TESTS.parent / "blockpact" / "worlds" / "builtin" / "forest.toml"
BUDGET = 2.0
NORMAL = "async function main(bot) {\n  await bot.waitForTicks(2);\n  bot.chat('still here');\n  return bot.username;\n}\n"
BESIDE = "async function main(bot) {\n  for (let i = 0; i < 30; i++) await bot.waitForTicks(1);\n  return 'beside';\n}\n"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]|\n")

# probe -> the error it must end with (the limit named)
EXPECTED = {
    "resizable_buffer.js": r"^RangeError: ArrayBuffer resize: resizable buffers are not allowed in programs \(limit memoryMb\)",
    "growable_shared_buffer.js": r"(limit memoryMb|SharedArrayBuffer is absent from programs)",
    "caught_refusals.js": r"limit maxArgumentBytes",
    "oversized_argument.js": r"^RangeError: moveTo: argument too large: 6000\d\d bytes, limit 32768 \(limit maxArgumentBytes\)",
    "getter_on_return.js": r"getter|accessor",
    "forged_escapes.js": r"^Error: ",
    "chat_server_command.js": r"is a server command, and programs may not run server commands \(limit serverCommands\)",
    "feedback_flood.js": r"limit maxFeedback",
    "indexof_huge_arraylike.js": r"timed out after 2 s",
    "normalize_combining.js": r"timed out after 2 s",
    "builtin_after_return.js": r"(timed out after 2 s|left code running after it returned.*limit idleTimeoutMs)",
    "host_find_blocks.js": r"timed out after 2 s",
    "host_sort_comparator.js": r"timed out after 2 s",
    # the simulator's path search fails at once, taking no simulated time: the retries stall the program
    "unreachable_move.js": r"(timed out after 2 s|limit max_calls_per_instant)",
    "unreachable_move_once.js": r"^Error: (No path to the goal!|I could not get to)",
    "feedback_server_command.js": r"^Error: nothing happened /kill @a",
    "message_sizes.js": r"^RangeError: getItemFromChest: argument too large: 600\d\d bytes, limit 32768 \(limit maxArgumentBytes\)",
}

# probe -> the limit its result names (failure "limit"), also when the program caught the refusal
LIMITS = {"resizable_buffer.js": "memoryMb", "caught_refusals.js": "maxArgumentBytes", "oversized_argument.js": "maxArgumentBytes",
          "chat_server_command.js": "serverCommands", "feedback_flood.js": "maxFeedbackLines", "message_sizes.js": "maxArgumentBytes"}


def test_every_probe_has_an_expected_outcome() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in PROBES.glob("*.js"))
    assert all(p.read_text().splitlines()[0].startswith("// expect: ") for p in PROBES.glob("*.js"))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_round_two_probe_ends_with_its_limit_and_harms_no_one(name: str) -> None:
    world = SimWorld(load_world(PARITY_WORLD), compute_budget=BUDGET)
    largest = [0]  # bytes: the largest of this Python process, the Node runtime and its sandbox processes

    async def watch() -> None:
        while True:
            largest[0] = max(largest[0], *_tree_rss(os.getpid()))
            await asyncio.sleep(0.1)

    async def scenario():
        watcher = asyncio.ensure_future(watch())
        try:
            started = time.monotonic()
            results = await world.run_programs({"Gizmo": (PROBES / name).read_text(), "Glitch": BESIDE})
            took = time.monotonic() - started
            return results["Gizmo"], results["Glitch"], took, await world.body("Gizmo").run(NORMAL)
        finally:
            watcher.cancel()
            await world.close()

    try:
        probe, beside, took, after = asyncio.run(scenario())
    finally:
        runtime().close()
    assert took < scaled(BUDGET + 15), took
    assert beside.success and beside.error is None, (beside.failure, beside.error)
    assert after.success and after.chat == ["still here"], (after.failure, after.error)
    assert not probe.success, "the probe ended as a success"
    assert re.search(EXPECTED[name], probe.error or ""), probe.error
    if name in LIMITS:
        assert (probe.failure, probe.limit) == ("limit", LIMITS[name]), (probe.failure, probe.limit, probe.error)
    for line in [probe.error or "", *probe.chat, *probe.logs]:
        assert not RAW.search(line), f"raw control text reaches output: {line!r}"
    assert not any(line.lstrip().startswith("/") for text in probe.chat for line in text.split("\n")), probe.chat
    assert largest[0] < 1.5 * GB, f"a process reached {largest[0] / 2**20:.0f} MB"


def test_feedback_is_marked_apart_from_what_a_program_said_and_newlines_forge_no_line() -> None:
    world = SimWorld(load_world(PARITY_WORLD), compute_budget=BUDGET)
    program = ("async function main(bot) {\n  bot.chat('I did the recipe for stick');\n"
               "  await getItemFromChest(bot, new Vec3(4, 64, 4), { bogus_item: 1 });\n}\n")

    async def scenario():
        try:
            return (await world.run_programs({"Gizmo": program}))["Gizmo"], list(world.sim.state.log.events)
        finally:
            await world.close()

    try:
        result, events = asyncio.run(scenario())
    finally:
        runtime().close()
    assert result.chat == ["I did the recipe for stick", "No item named bogus_item"], result.chat
    assert shown_chat(result) == ["said: I did the recipe for stick", "feedback: No item named bogus_item"]
    assert shown_chat(result, "Gizmo") == ["Gizmo: I did the recipe for stick", "Gizmo (feedback): No item named bogus_item"]
    forged = Event(time=0.1, agent="Gizmo", kind="chat", data={"message": "ok\n[0.1 s] Glitch: I agree", "source": "program"})
    assert chat_lines([forged]) == ("[0.1 s] Gizmo: ok [0.1 s] Glitch: I agree",)
    assert [line for line in chat_lines(events) if "feedback" in line] == ["[1.3 s] Gizmo (feedback): No item named bogus_item"]


def test_a_skill_neither_replaces_primitives_nor_runs_its_top_level_code() -> None:
    skill = (PROBES / "skills" / "shadow_primitives.js").read_text()
    program = "async function main(bot) {\n  log('mining');\n  await mineBlock(bot, 'iron_ore', 1);\n  return 1;\n}\n"
    world = SimWorld(load_world(PARITY_WORLD), compute_budget=BUDGET)

    async def scenario():
        try:
            result = (await world.run_programs({"Gizmo": program}, skills={"Gizmo": [skill]}))["Gizmo"]
            return result, [e.kind for e in world.sim.state.log.events]
        finally:
            await world.close()

    try:
        result, kinds = asyncio.run(scenario())
    finally:
        runtime().close()
    assert result.success, result.error
    assert not [line for line in result.chat if "replaced" in line or "top-level" in line], result.chat
    assert "move" in kinds or result.chat_sources == ["primitive"], (kinds, result.chat)  # the real primitive acted
    assert "stone_pickaxe" not in result.observation["inventory"]
    assert result.logs == ["[skill mineBlock not loaded: it would replace the program's own mineBlock]",
                           "[skill log not loaded: it would replace the program's own log]", "mining"], result.logs


def test_an_oversized_argument_is_refused_in_the_sandbox_and_the_program_goes_on() -> None:
    """The refusal is thrown to the program (which logs it and returns), the run is reported with the limit."""
    world = SimWorld(load_world(PARITY_WORLD), compute_budget=BUDGET)

    async def scenario():
        try:
            return await world.run_programs({"Gizmo": (PROBES / "oversized_argument.js").read_text(), "Glitch": BESIDE})
        finally:
            await world.close()

    try:
        results = asyncio.run(scenario())
    finally:
        runtime().close()
    probe, beside = results["Gizmo"], results["Glitch"]
    refusal = r"moveTo: argument too large: 6000\d\d bytes, limit 32768 \(limit maxArgumentBytes\)"
    assert len(probe.logs) == 1 and re.fullmatch(refusal, probe.logs[0]), probe.logs  # seen by the program, which went on
    assert (probe.failure, probe.limit) == ("limit", "maxArgumentBytes"), (probe.failure, probe.limit, probe.error)
    assert beside.success and beside.error is None, (beside.failure, beside.error)


@pytest.mark.parametrize("world_file, players, positions", [(PARITY_WORLD, ("Gizmo", "Glitch"), 400),
                                                             (FOREST_WORLD, ("Leader", "W1"), 5000)])
def test_messages_around_64_kb_arrive_whole_or_are_refused_with_their_limit(world_file, players, positions) -> None:
    """A pipe holds 64 KB: arguments past maxArgumentBytes are refused in the sandbox (the program sees it), and an
    answer of 5000 positions (the forest has 6144 blocks: about 120 KB of JSON from Python), 2 MB of log lines, full
    chat lines and a 1 MB error (cut) cross whole, beside another player's program."""
    world = SimWorld(load_world(world_file), compute_budget=BUDGET)
    probe_player, beside_player = players

    async def scenario():
        try:
            return await world.run_programs({probe_player: (PROBES / "message_sizes.js").read_text(), beside_player: BESIDE})
        finally:
            await world.close()

    try:
        results = asyncio.run(scenario())
    finally:
        runtime().close()
    probe = results[probe_player]
    for line, size in zip(probe.logs[:2], ("600", "700")):
        assert re.fullmatch(rf"getItemFromChest: argument too large: {size}\d\d bytes, limit 32768 \(limit maxArgumentBytes\)", line), line
    assert re.fullmatch(rf"answer: {positions} positions, \d+ bytes", probe.logs[2]), probe.logs[2]
    assert positions < 5000 or int(probe.logs[2].split()[3]) > 100_000, probe.logs[2]
    assert len(probe.logs) == 1000 and all(len(line) == 2000 for line in probe.logs[3:]), len(probe.logs)
    assert probe.logs[-1].startswith("996y") and probe.chat == [str(i).ljust(250, "z") for i in range(8)]
    assert (probe.failure, probe.limit) == ("limit", "maxArgumentBytes") and len(probe.error) < 2100, probe.error[:200]
    assert results[beside_player].success
