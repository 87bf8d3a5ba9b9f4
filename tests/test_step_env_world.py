"""The Melting Pot-style Cleanup world, `probability_from`, and the step dynamics against Dynamics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blockpact.worlds import batched_env
from blockpact.worlds.rules.dynamics import Dynamics
from blockpact.worlds.world_files import load_world, validate_world
from blockpact.worlds.spec.schema import ProbabilityFrom
from blockpact.worlds.state import WorldState

POND = """
[world]
name = "pond"
description = "A pond that silts up and a bed of mushrooms that regrows while it is clean."

[map]
origin = [0, 63, 0]
size = [8, 3, 6]

[map.legend]
"w" = "water"
"S" = "slime_block"
"M" = "red_mushroom_block"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  "wSwwwwww",
  "........",
  "........",
  "MMMM....",
]

[regions.pond]
from = [0, 64, 0]
to = [7, 64, 0]

[regions.bed]
from = [0, 64, 3]
to = [3, 64, 3]

[[dynamics]]
rule = "regrow"
block = "red_mushroom_block"
region = "bed"
probability = 1.0
{scale}

[[dynamics]]
rule = "spawn"
block = "slime_block"
region = "pond"
probability = 1.0
on = ["water"]
cap = {cap}
per = "cell"

[players.Ann]
spawn = [6, 64, 4]

[episode]
seconds = 100
"""


def write(tmp_path: Path, scale: str = "", cap: int = 3) -> Path:
    path = tmp_path / "pond.toml"
    path.write_text(POND.replace("{scale}", scale).replace("{cap}", str(cap)))
    return path


def test_cleanup_mp_is_a_melting_pot_cleanup() -> None:
    spec = load_world("cleanup_mp")
    assert len(spec.players) == 7
    regrow, spawn = spec.rules
    assert regrow.probability_from == ProbabilityFrom("slime_block", "river", 0.0, 0.4)
    assert (spawn.block, spawn.per, spawn.on) == ("slime_block", "cell", ("water",))


@pytest.mark.parametrize("dirty,expected", [(0, 0.05), (12, 0.05 * (1 - 0.125 / 0.4)), (24, 0.05 * (1 - 0.25 / 0.4)), (39, 0.0), (96, 0.0)])
def test_regrowth_falls_linearly_with_pollution(dirty: int, expected: float) -> None:
    spec = load_world("cleanup_mp")
    state = WorldState(spec)
    river = sorted(spec.regions["river"].cells())
    assert len(river) == 96
    for p in river:
        state.grid.set(p, state.block_id("water"))
    for p in river[:dirty]:
        state.grid.set(p, state.block_id("slime_block"))
    assert Dynamics(state).probability(spec.rules[0]) == pytest.approx(expected)


@pytest.mark.parametrize(
    "scale,message",
    [
        ('probability_from = { block = "slime_block", region = "pond", full_at = 0.2, zero_at = 0.2 }', "dynamics[0].probability_from.zero_at: equals full_at 0.2 (expected a different fraction"),
        ('probability_from = { block = "slime_block", region = "lake", full_at = 0.0, zero_at = 0.5 }', "dynamics[0].probability_from.region: unknown region 'lake' (expected one of: bed, pond)"),
        ('probability_from = { block = "slime_block", region = "pond", full_at = 0.0, zero_at = 1.5 }', "dynamics[0].probability_from.zero_at: 1.5 is out of range (expected a fraction of the region in [0, 1])"),
        ('probability_from = { block = "slime_block", region = "pond", full_at = 0.0, zero = 0.5 }', "dynamics[0].probability_from.zero: unknown key 'zero' (did you mean 'zero_at'? expected one of: block, full_at, region, zero_at)"),
        ('probability_from = "pond"', "dynamics[0].probability_from: expected a table, got str"),
    ],
)
def test_probability_from_is_validated(tmp_path: Path, scale: str, message: str) -> None:
    path = write(tmp_path, scale)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("probability_from"))
    problems = [str(p) for p in validate_world(path)]
    assert any(p.startswith(f"{path}:{line}: {message}") for p in problems), problems


@pytest.mark.parametrize(
    "scale,cap,regrown",
    [("", 3, 4), ('probability_from = { block = "slime_block", region = "pond", full_at = 0.125, zero_at = 0.5 }', 8, 2)],
)
def test_step_dynamics_do_what_dynamics_does(tmp_path: Path, scale: str, cap: int, regrown: int) -> None:
    """With probabilities 0 or 1 both implementations must make exactly the same cells change."""
    spec = load_world(write(tmp_path, scale, cap))
    state, env = WorldState(spec), batched_env(spec, num_envs=2)
    env.reset(seed=4)
    dynamics = Dynamics(state)
    g = env.grids
    for second in (1, 2, 3):
        for x in (1, 2):  # a player digs two mushroom blocks, every second
            state.set_block((x, 64, 3), "air", None, cause="test")
            g.set(np.array([0, 1]), np.full(2, g.below + 1), np.full(2, x + g.pad), np.full(2, 3 + g.pad), 0)
        dynamics.tick(float(second))
        env.step(np.zeros((2, 1), dtype=np.int64))
        for region in ("pond", "bed"):
            for x, y, z in spec.regions[region].cells():
                cell = g.get(np.array([0, 1]), np.full(2, y - 63 + g.below), np.full(2, x + g.pad), np.full(2, z + g.pad))
                assert [env.tables.palette[c] for c in cell] == [state.block_at((x, y, z))] * 2, (second, x, z)
    assert state.count_in_region("slime_block", "pond") == min(cap, 8)
    assert state.count_in_region("red_mushroom_block", "bed") == regrown  # a filthy pond stops regrowth
