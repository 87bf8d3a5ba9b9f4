"""Shared fixtures: small world files written per test, and a runner for simulator programs.

The plugins in `harness/` apply to every test: nothing a test starts outlives it (cleanup.py), the
`slow` marker and bounds that scale with how busy the machine is (pace.py), and one embedded
Minecraft server for the live tests that can share it (live.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.worlds.world_files import load_world
from blockpact.worlds.sim.simulator import Simulation

pytest_plugins = ["harness.cleanup", "harness.pace", "harness.live"]

WORKSHOP = """
[world]
name = "workshop"
description = "A test workshop: a few logs, a crafting table, a furnace and a chest."

[map]
origin = [0, 63, 0]
size = [10, 4, 8]

[map.legend]
"L" = "oak_log"
"T" = "crafting_table"
"F" = "furnace"
"I" = "iron_ore"
"D" = "diamond_ore"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  "..........",
  ".LLL......",
  "..........",
  "......T.F.",
  "..........",
  ".I.....D..",
]

[[chests]]
name = "box"
position = [4, 64, 6]
items = { stone_pickaxe = 1, coal = 2 }

[players.Ada]
spawn = [1, 64, 3]
[players.Ben]
spawn = [8, 64, 6]

[episode]
seconds = 600
"""


@pytest.fixture
def workshop(tmp_path: Path):
    path = tmp_path / "workshop.toml"
    path.write_text(WORKSHOP)
    return load_world(path)


def run_programs(spec, programs, seed: int = 0, until: float | None = None) -> tuple[Simulation, dict]:
    sim = Simulation(spec, seed=seed)
    outcomes = asyncio.run(sim.run(programs, until=until))
    return sim, outcomes


def chat_lines(sim: Simulation, agent: str) -> list[str]:
    return [e.data["message"] for e in sim.state.log.of_kind("chat") if e.agent == agent]
