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
from blockpact.bridge.live.world_compiler import ControlChannelTarget, build_world_on_server
from blockpact.worlds.world_files import load_world

from test_sandbox_limits import GB, HOSTILE, _gone, _peak_rss

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
