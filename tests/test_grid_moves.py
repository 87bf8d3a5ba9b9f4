"""The path search's fast step table gives exactly `Grid.steps_from`'s steps from every cell in bounds (where a
search starts and every cell a step reaches), so routes (and results) stay the same."""

from __future__ import annotations

import itertools

import numpy as np

from blockpact.worlds.grid import Grid, _Moves
from blockpact.worlds.world_files import load_world
from blockpact.worlds.state import WorldState


def _random_grid(seed: int) -> Grid:
    """Rough terrain: solid columns of random height with random holes and overhangs, ids 0..3 (0, 2 air)."""
    rng = np.random.default_rng(seed)
    X, Y, Z = (int(v) for v in rng.integers(3, 9, size=3))
    ids = np.zeros((X, Y, Z), dtype=np.uint8)
    heights = rng.integers(0, Y + 1, size=(X, Z))
    for x, z in itertools.product(range(X), range(Z)):
        ids[x, : heights[x, z], z] = rng.choice([1, 3], size=heights[x, z])
    holes = rng.random((X, Y, Z)) < 0.2
    ids[holes] = rng.choice([0, 2], size=int(holes.sum()))
    origin = tuple(int(v) for v in rng.integers(-20, 20, size=3))
    return Grid(origin, ids, np.array([False, True, False, True]))  # type: ignore[arg-type]


def test_moves_match_steps_from_on_every_cell_of_random_grids() -> None:
    checked = 0
    for seed in range(300):
        grid = _random_grid(seed)
        moves = _Moves(grid)
        X, Y, Z = grid.shape
        ox, oy, oz = grid.origin
        for lx, ly, lz in itertools.product(range(X), range(Y), range(Z)):
            cell = (ox + lx, oy + ly, oz + lz)
            assert moves.steps_from(cell) == grid.steps_from(cell), (seed, cell)
            checked += grid.standable(cell)
    assert checked > 2000  # standable cells among them


def test_moves_match_steps_from_on_a_built_in_world() -> None:
    grid = WorldState(load_world("cleanup")).grid
    moves = _Moves(grid)
    X, Y, Z = grid.shape
    ox, oy, oz = grid.origin
    cells = [(ox + lx, oy + ly, oz + lz) for lx, ly, lz in itertools.product(range(X), range(Y), range(Z))]
    assert any(grid.standable(c) for c in cells)
    for cell in cells:
        assert moves.steps_from(cell) == grid.steps_from(cell), cell
