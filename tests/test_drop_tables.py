"""One data file of default drop tables: an edit of it reaches the simulator, the step API and the live
world master (a dig on the embedded server yields the new drop), and the server plugin reads the very same file."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from blockpact.bridge.live.world_compiler import SetDrops, compile_world
from blockpact.config import PROJECT_ROOT
from blockpact.errors import UserError
from blockpact.worlds import batched_env
from blockpact.worlds.spec import drop_tables
from blockpact.worlds.rules import game as rules
from blockpact.worlds.world_files import load_world
from blockpact.worlds.sim.simulator import Simulation

PIT = """
[world]
name = "pit"
description = "A player facing a gravel block."

[map]
origin = [0, 63, 0]
size = [3, 3, 4]

[map.legend]
"g" = "gravel"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  "...",
  ".g.",
  "...",
  "...",
]

[players.Ann]
spawn = [1, 64, 2]

[episode]
seconds = 20
"""


DIG = """async function dig(bot) {
  const dug = await mineBlock(bot, 'gravel', 1);
  log(`dug ${dug}`);
  return dug;
}"""


@pytest.fixture
def new_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The one edit: a drop table for gravel (three flint, always) in the default drop file."""
    table = json.loads(drop_tables.DROPS_FILE.read_text())
    table["gravel"] = {"item": "flint", "counts": [3], "weights": [1.0]}
    path = tmp_path / "drops.json"
    path.write_text(json.dumps(table))
    monkeypatch.setattr(drop_tables, "DROPS_FILE", path)
    world = tmp_path / "pit.toml"
    world.write_text(PIT)
    return world


def test_simulator_follows_the_drop_file(new_table: Path) -> None:
    sim = Simulation(load_world(new_table), seed=0)
    assert rules.dig(sim.state, "Ann", (1, 64, 1), None) == {"flint": 3}
    assert sim.state.inventories["Ann"]["flint"] == 3


def test_step_api_follows_the_drop_file(new_table: Path) -> None:
    env = batched_env(load_world(new_table), num_envs=1)
    env.reset(seed=0)
    dig = env.action_names.index("dig")
    for _ in range(4):
        env.step(np.full((1, 1), dig, dtype=np.int64))
    assert env.inventory[0, 0, env.tables.items.index("flint")] == 3


def test_live_master_sends_the_drop_file(new_table: Path) -> None:
    compiled = compile_world(load_world(new_table))
    assert SetDrops("gravel", "flint", 3, 3, (3,), (1.0,)) in compiled.world
    assert any(isinstance(op, SetDrops) and op.block == "red_mushroom_block" and op.counts == (0, 1, 2) for op in compiled.world)


def test_live_master_yields_the_drop_file(new_table: Path, embedded_server) -> None:
    """On the embedded server, built by the world master (which sends the edited table), the dig yields three flint."""
    from blockpact.bridge.live.world import LiveWorld

    async def play() -> tuple[list[str], dict[str, int]]:
        world = LiveWorld(load_world(new_table), 0, server=embedded_server)
        try:
            results = await world.run_programs({"Ann": DIG}, budget=40)
            return results["Ann"].logs, world.finish().data["inventories"]["Ann"]
        finally:
            await world.close()

    logs, inventory = asyncio.run(play())
    assert logs == ["dug 1"]
    assert inventory.get("flint") == 3


def test_a_world_file_still_overrides_the_defaults() -> None:
    spec = load_world("cleanup_mp")
    assert spec.drops["red_mushroom_block"].counts == (1,)
    assert spec.drops["brown_mushroom_block"] == drop_tables.default_drops()["brown_mushroom_block"]


def test_the_server_plugin_reads_the_same_file() -> None:
    plugin = PROJECT_ROOT / "blockpact" / "bridge" / "js" / "server" / "plugin" / "drops.js"
    script = f"const d = require({json.dumps(str(plugin))}); console.log(JSON.stringify({{file: d.DROPS_FILE, rules: [...d.defaultRules()]}}))"
    out = json.loads(subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True).stdout)
    assert Path(out["file"]).resolve() == drop_tables.DROPS_FILE
    assert {block: (r[0]["item"], tuple(r[0]["counts"]), tuple(r[0]["weights"])) for block, r in out["rules"]} == {
        block: (d.item, d.counts, d.weights) for block, d in drop_tables.default_drops().items()}


def test_a_malformed_drop_file_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "drops.json"
    path.write_text(json.dumps({"gravel": {"item": "flint", "counts": [1, 2], "weights": [0.5, 0.6]}}))
    with pytest.raises(UserError, match=r"drops\.json: gravel\.weights: got \[0\.5, 0\.6\]"):
        drop_tables._read(path)
