"""The index of cells by block id (`Grid.cells_of`, behind `WorldState.find_blocks`) and the path search's kept
snapshot stay in step with the grid through every change, so findBlocks and mineBlock answer, and players walk,
as a scan of the whole grid and a fresh snapshot would have them."""

from __future__ import annotations

import numpy as np

from blockpact.worlds.grid import Grid, within_reach
from blockpact.worlds.rules.dynamics import Dynamics
from blockpact.worlds.state import WorldState
from blockpact.worlds.world_files import load_world


def scanned(state: WorldState, name: str, near: tuple[int, int, int], radius: float, count: int) -> list[tuple[int, ...]]:
    """find_blocks by a scan of the whole grid: every cell holding `name`, sorted by (distance², x, y, z)."""
    cells = np.argwhere(state.grid.ids == state.block_id(name)) + np.asarray(state.spec.origin)
    d2 = ((cells - np.asarray(near)) ** 2).sum(axis=1)
    found = sorted((int(d), tuple(int(v) for v in c)) for d, c in zip(d2, cells) if d <= radius * radius)
    return [c for _, c in found[:count]]


def test_find_blocks_and_paths_match_a_fresh_grid_through_digging_placing_and_the_dynamics() -> None:
    spec = load_world("cleanup_mp")
    state = WorldState(spec, seed=3)
    dynamics = Dynamics(state)
    rng = np.random.default_rng(0)
    names = ["water", "slime_block", "red_mushroom_block", "air", "grass_block"]
    X, Y, Z = state.grid.shape
    for second in range(1, 150):
        dynamics.tick(float(second))  # slime spawns, mushrooms regrow: changes the index did not make
        if second % 2 == 0:
            p = tuple(int(v) + o for v, o in zip(rng.integers(0, (X, Y, Z)), spec.origin))
            state.set_block(p, names[int(rng.integers(len(names)))], "P1", cause="test")  # type: ignore[arg-type]
        near = tuple(int(v) + o for v, o in zip(rng.integers(0, (X, Y, Z)), spec.origin))
        name = names[second % len(names)]
        for radius, count in ((8.0, 1), (32.0, 1024), (3.5, 5)):
            assert state.find_blocks(name, near, radius, count) == scanned(state, name, near, radius, count), (second, name)  # type: ignore[arg-type]
        start, target = state.positions["P1"], (int(rng.integers(X)) + spec.origin[0], 64, 10 + second % 5)
        fresh = Grid(state.grid.origin, state.grid.ids.copy(), state.grid.solid_by_id)
        goal = lambda c: within_reach(c, target, 4.5)  # noqa: E731
        assert state.grid.path(start, goal) == fresh.path(start, goal), second
    assert state.log.events  # the dynamics changed the world along the way
