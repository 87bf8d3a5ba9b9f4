"""One counter-based random stream and one drop rule on both sides: the server plugin's port
(bridge/js/server/plugin/rng.js) gives the words of rules/rng.py for the same (seed, purpose, n), its drop
tables pick the counts the simulator's `roll_drops` picks for an episode of the same seed, and every other
block yields on the server what it yields on the simulator."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from blockpact.config import PROJECT_ROOT
from blockpact.worlds.rules import game as rules
from blockpact.worlds.rules.rng import DROPS, stream_unit, stream_word
from blockpact.worlds.world_files import load_world
from blockpact.worlds.state import WorldState

PLUGIN = PROJECT_ROOT / "blockpact" / "bridge" / "js" / "server" / "plugin"
SEEDS = (0, 1, 7, 123456789012, 2**62 + 12345)
PURPOSES = (0, 8, DROPS, DROPS + 1)

PILE = """
[world]
name = "pile"
description = "A row of gravel whose drop table needs the random stream."

[map]
origin = [0, 63, 0]
size = [7, 3, 4]

[map.legend]
"g" = "gravel"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  ".......",
  "gggggg.",
  ".......",
  ".......",
]

[drops.gravel]
item = "flint"
counts = [0, 1, 2, 5]
weights = [0.4, 0.3, 0.2, 0.1]

[players.Ann]
spawn = [3, 64, 3]

[episode]
seconds = 60
"""
DIG = """async function dig(bot) {
  const dug = await mineBlock(bot, 'gravel', 6);
  log(`dug ${dug}`);
  return dug;
}"""


@pytest.fixture
def pile(tmp_path: Path) -> Path:
    path = tmp_path / "pile.toml"
    path.write_text(PILE)
    return path


def node(script: str) -> object:
    out = subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True, cwd=PROJECT_ROOT)
    return json.loads(out.stdout)


def test_the_plugin_draws_the_words_of_the_python_stream() -> None:
    rng = json.dumps(str(PLUGIN / "rng.js"))
    script = (f"const r = require({rng}); const out = [];"
              f"for (const s of {json.dumps([str(s) for s in SEEDS])}) for (const p of {list(PURPOSES)}) for (let n = 0; n < 40; n++)"
              " out.push(r.streamWord(s, p, n).toString());"
              "console.log(JSON.stringify({ drops: r.DROPS, words: out }))")
    expected = [str(int(stream_word(s, p, n))) for s in SEEDS for p in PURPOSES for n in range(40)]
    assert node(script) == {"drops": DROPS, "words": expected}


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_the_plugin_picks_the_counts_the_simulator_picks(pile: Path, seed: int) -> None:
    """The world master's resetDrops(seed) then setDrops(table), then digs: the counts of the simulator's digs."""
    spec = load_world(pile)
    state = WorldState(spec, seed)
    simulated = [rules.roll_drops(state, "gravel").get("flint", 0) for _ in range(300)]
    drop = spec.drops["gravel"]
    table = {"item": drop.item, "counts": list(drop.counts), "weights": list(drop.weights)}
    script = (f"const {{ dropRules }} = require({json.dumps(str(PLUGIN / 'drops.js'))});"
              f"const {{ itemTools }} = require({json.dumps(str(PLUGIN / 'items.js'))});"
              "const registry = require('minecraft-data')('1.20.4');"
              "const drops = dropRules({ registry }, itemTools(registry), 99);"
              "drops.setDrops('gravel', [{ item: 'flint', counts: [9], weights: [1] }]);"  # an earlier world's table
              f"drops.reset({json.dumps(str(seed))}); drops.setDrops('gravel', [{json.dumps(table)}]);"
              "const got = [];"
              "for (let i = 0; i < 300; i++) got.push(drops.dropsFor(registry.blocksByName.gravel, null)[0]?.count ?? 0);"
              "console.log(JSON.stringify(got))")
    assert node(script) == simulated
    assert set(simulated) == {0, 1, 2, 5}


def test_every_block_drops_on_the_plugin_what_it_drops_on_the_simulator(pile: Path) -> None:
    """Each block of minecraft-data dug once, in the same order, with a tool that harvests it: the simulator's
    drops (its tables, else minecraft-data's block list) and the plugin's, default tables drawn on one stream."""
    spec = load_world(pile)
    state = WorldState(spec, 5)
    blocks = sorted(state.data.blocks)
    simulated = [rules.roll_drops(state, b) for b in blocks]
    drop = spec.drops["gravel"]
    table = {"item": drop.item, "counts": list(drop.counts), "weights": list(drop.weights)}
    script = (f"const {{ dropRules }} = require({json.dumps(str(PLUGIN / 'drops.js'))});"
              f"const {{ itemTools }} = require({json.dumps(str(PLUGIN / 'items.js'))});"
              "const registry = require('minecraft-data')('1.20.4');"
              "const drops = dropRules({ registry }, itemTools(registry), 5);"
              f"drops.setDrops('gravel', [{json.dumps(table)}]);"
              f"const got = {json.dumps(blocks)}.map(name => {{"
              "  const block = registry.blocksByName[name];"
              "  const held = block.harvestTools ? { type: Number(Object.keys(block.harvestTools)[0]) } : null;"
              "  return Object.fromEntries(drops.dropsFor(block, held).map(d => [d.name, d.count]));"
              "});"
              "console.log(JSON.stringify(got))")
    assert dict(zip(blocks, node(script))) == dict(zip(blocks, simulated))
    assert {"red_mushroom_block", "brown_mushroom_block", "gravel"} <= set(spec.drops) and len(blocks) > 1000


def test_a_seed_yields_the_same_drops_on_the_simulator_and_live(pile: Path, embedded_server) -> None:
    """Six digs of a weighted table: the simulator's flint, the embedded server's (built by the world master for
    the same seed) and the first six draws of the (seed, DROPS) stream agree."""
    from blockpact.bridge.live.world import LiveWorld
    from blockpact.bridge.sim import SimWorld

    spec, seed = load_world(pile), 6
    expected = sum(spec.drops["gravel"].count_at(stream_unit(seed, DROPS, n)) for n in range(6))

    async def play(world) -> dict[str, int]:
        try:
            results = await world.run_programs({"Ann": DIG}, budget=60)
            assert results["Ann"].logs == ["dug 6"], (results["Ann"].error, results["Ann"].chat)
            return world.finish().data["inventories"]["Ann"]
        finally:
            await world.close()

    simulated = asyncio.run(play(SimWorld(spec, seed=seed)))
    live = asyncio.run(play(LiveWorld(spec, seed, server=embedded_server)))
    assert simulated.get("flint", 0) == live.get("flint", 0) == expected
