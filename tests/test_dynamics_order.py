"""The `[[dynamics]]` blocks of a world apply in the order they are listed, each seeing what the ones above it did in
the same tick (docs/worlds.md): swapping a polluting rule and a rule guarded by the pollution changes the outcome,
alike on the simulator and in the step API."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blockpact.worlds import batched_env
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

HEAD = """
[world]
name = "ordered_pond"
description = "A pond that a rule pollutes and a bed that another rule fills while the pond is clean."

[map]
origin = [0, 63, 0]
size = [4, 3, 4]

[map.legend]
"w" = "water"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = ["ww..", "....", "....", "...."]

[regions.pond]
from = [0, 64, 0]
to = [1, 64, 0]

[regions.bed]
from = [0, 64, 2]
to = [3, 64, 2]

[players.Ann]
spawn = [3, 64, 3]

[episode]
seconds = 5
"""
POLLUTE = """
[[dynamics]]
rule = "spawn"
block = "slime_block"
region = "pond"
probability = 1.0
on = ["water"]
per = "cell"
"""
FILL = """
[[dynamics]]
rule = "spawn"
block = "red_mushroom_block"
region = "bed"
probability = 1.0
on = ["air"]
per = "cell"
when = "slime_block in pond <= 0"
"""


def _world(tmp: Path, *rules: str) -> Path:
    path = tmp / "ordered_pond.toml"
    path.write_text(HEAD + "".join(rules))
    return path


def _bed_after_one_second(path: Path) -> tuple[int, int]:
    """Mushrooms in the bed after the first tick: on the simulator and in the step API."""
    spec = load_world(path)
    sim = Simulation(spec, seed=0)
    sim.advance_to(1.0)
    on_sim = sum(sim.state.block_at(p) == "red_mushroom_block" for p in spec.regions["bed"].cells())
    env = batched_env(spec, num_envs=1)
    env.reset(seed=0)
    env.step(np.zeros((1, 1), dtype=np.int64))
    g, o, mushroom = env.grids, spec.origin, env.tables.block("red_mushroom_block")
    on_step = sum(int(g.get(np.array([0]), np.array([p[1] - o[1] + g.below]), np.array([p[0] - o[0] + g.pad]),
                            np.array([p[2] - o[2] + g.pad]))[0]) == mushroom for p in spec.regions["bed"].cells())
    return on_sim, on_step


@pytest.mark.parametrize(("rules", "mushrooms"), [(("POLLUTE", "FILL"), 0), (("FILL", "POLLUTE"), 4)])
def test_rules_apply_in_the_listed_order(tmp_path: Path, rules: tuple[str, str], mushrooms: int) -> None:
    """Listed first, the pollution is there when the bed's guard is read in the same tick: nothing grows; listed
    second, the bed fills before the pond is polluted."""
    texts = {"POLLUTE": POLLUTE, "FILL": FILL}
    assert _bed_after_one_second(_world(tmp_path, *(texts[r] for r in rules))) == (mushrooms, mushrooms)
