"""One interpreter of the dynamics rules: the program simulator and the step API change the same cells
for the same seed, with probabilities strictly between 0 and 1 (regrowth, spawning per cell and per
region, growth), and the simulator logs each change with its rule's kind as the cause."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blockpact.worlds import batched_env
from blockpact.worlds.world_files import load_world
from blockpact.worlds.sim.simulator import Simulation

GARDEN = """
[world]
name = "garden"
description = "Every kind of dynamics rule with probabilities that need the random stream."

[map]
origin = [0, 63, 0]
size = [10, 3, 8]

[map.legend]
"w" = "water"
"M" = "red_mushroom_block"
"p" = "pumpkin"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  "MMMMMMMMMM",
  "..........",
  "wwwwwwwwww",
  "wwwwwwwwww",
  "..........",
  "pp........",
  "..........",
  "..........",
]

[regions.bed]
from = [0, 64, 0]
to = [9, 64, 0]

[regions.river]
from = [0, 64, 2]
to = [9, 64, 3]

[regions.patch]
from = [0, 64, 5]
to = [9, 64, 7]

[[dynamics]]
rule = "regrow"
block = "red_mushroom_block"
region = "bed"
probability = 0.3
probability_from = { block = "slime_block", region = "river", full_at = 0.0, zero_at = 0.5 }

[[dynamics]]
rule = "spawn"
block = "slime_block"
region = "river"
probability = 0.08
on = ["water"]
per = "cell"
cap = 6

[[dynamics]]
rule = "spawn"
block = "sponge"
region = "river"
probability = 0.4
on = ["water"]
per = "region"
cap = 3

[[dynamics]]
rule = "grow"
block = "pumpkin"
region = "patch"
every = 4
factor = 1.5
cap = 20
on = ["air"]

[players.Ann]
spawn = [4, 64, 6]

[episode]
seconds = 60
"""

REGIONS = ("bed", "river", "patch")


@pytest.fixture
def garden(tmp_path: Path) -> Path:
    path = tmp_path / "garden.toml"
    path.write_text(GARDEN)
    return path


def step_api_blocks(env, spec) -> dict:
    g, o = env.grids, spec.origin
    return {p: env.tables.palette[int(g.get(np.array([0]), np.array([p[1] - o[1] + g.below]), np.array([p[0] - o[0] + g.pad]),
                                             np.array([p[2] - o[2] + g.pad]))[0])]
            for r in REGIONS for p in spec.regions[r].cells()}


@pytest.mark.parametrize("seed", [0, 7])
def test_simulator_and_step_api_change_the_same_cells(garden: Path, seed: int) -> None:
    spec = load_world(garden)
    sim, env = Simulation(spec, seed=seed), batched_env(spec, num_envs=1)
    env.reset(seed=seed)
    g, o = env.grids, spec.origin
    changes = 0
    for second in range(1, 41):
        if second % 3 == 0:  # a player harvests mushrooms in both, so there is something to regrow
            for x in range(second % 10, 10, 3):
                sim.state.set_block((x, 64, 0), "air", "Ann", cause="dig")
                g.set(np.array([0]), np.array([64 - o[1] + g.below]), np.array([x + g.pad]), np.array([g.pad]), env.tables.block("air"))
        before = {p: sim.state.block_at(p) for r in REGIONS for p in spec.regions[r].cells()}
        sim.advance_to(float(second))
        env.step(np.zeros((1, 1), dtype=np.int64))
        after = {p: sim.state.block_at(p) for p in before}
        assert step_api_blocks(env, spec) == after, f"second {second}"
        changes += sum(after[p] != before[p] for p in before)
    causes = {e.data["cause"] for e in sim.state.log.events if e.kind == "block"}
    assert {"regrow", "spawn", "grow"} <= causes, causes
    assert changes > 10


def test_the_seed_decides_the_regrowth(garden: Path) -> None:
    spec = load_world(garden)
    outcomes = []
    for seed in (1, 2):
        sim = Simulation(spec, seed=seed)
        for x in range(10):
            sim.state.set_block((x, 64, 0), "air", "Ann", cause="dig")
        sim.advance_to(3.0)
        outcomes.append([sim.state.block_at((x, 64, 0)) for x in range(10)])
    assert outcomes[0] != outcomes[1]
