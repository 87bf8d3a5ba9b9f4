"""The voxel grid: which cells a player can stand in, how it walks between them, what it can reach.

Coordinates are Minecraft's (x east, y up, z south). Below the grid counts as solid ground and above
it as open air; the sides are walls.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from blockpact.worlds.spec.schema import Vec

EYE_HEIGHT = 1.62
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
MAX_DROP = 3


@dataclass
class Grid:
    origin: Vec
    ids: np.ndarray  # (X, Y, Z) block ids relative to origin
    solid_by_id: np.ndarray  # bool per block id
    # block id -> the cells holding it (world coordinates), for the ids asked about so far; kept up to
    # date by `set`, so writes must go through it (the dynamics' in-place writes are undone and redone by it)
    _cells: dict[int, set[Vec]] = field(default_factory=dict, init=False, repr=False, compare=False)
    # the path search's snapshot of the grid, until `set` changes a cell (mineBlock routes to several
    # candidate blocks in a row, and most simulated seconds change no cell)
    _moves: _Moves | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.ids.shape  # type: ignore[return-value]

    def local(self, p: Vec) -> tuple[int, int, int]:
        return (p[0] - self.origin[0], p[1] - self.origin[1], p[2] - self.origin[2])

    def in_bounds(self, p: Vec) -> bool:
        lx, ly, lz = self.local(p)
        X, Y, Z = self.shape
        return 0 <= lx < X and 0 <= ly < Y and 0 <= lz < Z

    def get(self, p: Vec) -> int:
        lx, ly, lz = self.local(p)
        return int(self.ids[lx, ly, lz])

    def set(self, p: Vec, block_id: int) -> None:
        lx, ly, lz = self.local(p)
        if self._cells:
            cell, old = (int(p[0]), int(p[1]), int(p[2])), int(self.ids[lx, ly, lz])
            if old in self._cells:
                self._cells[old].discard(cell)
            if block_id in self._cells:
                self._cells[block_id].add(cell)
        self.ids[lx, ly, lz] = block_id
        self._moves = None

    def cells_of(self, block_id: int) -> set[Vec]:
        """The cells holding `block_id`. An index rather than a scan of the grid: mineBlock and the
        findBlocks query ask it about 2.5 times per simulated second per episode (cleanup_mp)."""
        cells = self._cells.get(block_id)
        if cells is None:
            ox, oy, oz = self.origin
            cells = self._cells[block_id] = {(x + ox, y + oy, z + oz) for x, y, z in np.argwhere(self.ids == block_id).tolist()}
        return cells

    def solid(self, p: Vec) -> bool:
        lx, ly, lz = self.local(p)
        X, Y, Z = self.shape
        if ly < 0:
            return True
        if ly >= Y:
            return False
        if not (0 <= lx < X and 0 <= lz < Z):
            return True
        return bool(self.solid_by_id[self.ids[lx, ly, lz]])

    def standable(self, p: Vec) -> bool:
        """Feet and head cells free, solid ground below."""
        x, y, z = p
        if not self.in_bounds(p):
            return False
        return not self.solid(p) and not self.solid((x, y + 1, z)) and self.solid((x, y - 1, z))

    def steps_from(self, p: Vec) -> list[tuple[Vec, bool]]:
        """Cells one walk, step up or drop away, each with whether it is a step up."""
        x, y, z = p
        out: list[tuple[Vec, bool]] = []
        for dx, dz in NEIGHBOURS:
            nx, nz = x + dx, z + dz
            if self.standable((nx, y, nz)):
                out.append(((nx, y, nz), False))
                continue
            up = (nx, y + 1, nz)
            if self.standable(up) and not self.solid((x, y + 2, z)):
                out.append((up, True))
                continue
            if self.solid((nx, y, nz)) or self.solid((nx, y + 1, nz)):
                continue
            for k in range(1, MAX_DROP + 1):
                down = (nx, y - k, nz)
                if self.standable(down):
                    out.append((down, False))
                    break
                if self.solid(down):
                    break
        return out

    def distances(self, start: Vec) -> dict[Vec, tuple[int, int]]:
        """Breadth-first walk: cell -> (steps, step-ups) for every cell reachable from `start`."""
        seen = {start: (0, 0)}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            steps, ups = seen[cell]
            for nxt, up in self.steps_from(cell):
                if nxt not in seen:
                    seen[nxt] = (steps + 1, ups + int(up))
                    queue.append(nxt)
        return seen

    def path(self, start: Vec, goal_test: Callable[[Vec], bool], up_cost: float = 1.0, max_cells: int = 200_000) -> list[Vec] | None:
        """Cheapest walk from `start` to the first cell where `goal_test` holds.

        Each step costs 1 and a step up costs `up_cost` more (climbing is slower than walking);
        ties go to the cell found first, so the same grid always gives the same path. Cells are
        expanded with `_Moves` (the same steps as `steps_from`, read from a snapshot).
        """
        if goal_test(start):
            return [start]
        if self._moves is None:
            self._moves = _Moves(self)
        moves = self._moves
        first = moves.steps_from(start) if self.in_bounds(start) else self.steps_from(start)
        parent: dict[Vec, Vec | None] = {start: None}
        best = {start: 0.0}
        order = itertools.count()
        frontier = [(0.0, next(order), start)]
        while frontier and len(parent) < max_cells:
            cost, _, cell = heapq.heappop(frontier)
            if cost > best[cell]:
                continue
            if goal_test(cell):
                route = [cell]
                while parent[route[-1]] is not None:
                    route.append(parent[route[-1]])  # type: ignore[arg-type]
                return route[::-1]
            for nxt, up in (first if cell == start else moves.steps_from(cell)):
                c = cost + 1.0 + (up_cost if up else 0.0)
                if c < best.get(nxt, float("inf")):
                    best[nxt] = c
                    parent[nxt] = cell
                    heapq.heappush(frontier, (c, next(order), nxt))
        return None


class _Moves:
    """`Grid.steps_from` for standable cells, from a padded snapshot of which cells are solid.

    A path search expands hundreds of cells, each with up to ~20 solidity checks; numpy indexing
    and the bounds logic per check were a third of a Cleanup unit's Python time. The snapshot pads the
    grid with solid walls (x, z) and ground (MAX_DROP + 1 layers below) and with 2 layers of air above,
    so a check is one bytes lookup; the only bound left is a step up out of the top layer. Only valid
    for cells in bounds, as every cell a step reaches is (it is standable).
    """

    PAD_BELOW = MAX_DROP + 1
    PAD_ABOVE = 2

    def __init__(self, grid: Grid) -> None:
        X, Y, Z = grid.shape
        solid = np.ones((X + 2, Y + self.PAD_BELOW + self.PAD_ABOVE, Z + 2), dtype=np.bool_)
        solid[:, Y + self.PAD_BELOW :, :] = False
        solid[1 : X + 1, self.PAD_BELOW : Y + self.PAD_BELOW, 1 : Z + 1] = grid.solid_by_id[grid.ids]
        self.solid = solid.tobytes()
        self.top = Y - 1 + grid.origin[1]  # world y of the top layer
        self.ys = Z + 2  # index stride of +1 in y (z's is 1)
        self.xs = (Y + self.PAD_BELOW + self.PAD_ABOVE) * self.ys  # of +1 in x
        ox, oy, oz = grid.origin
        self.base = (1 - ox) * self.xs + (self.PAD_BELOW - oy) * self.ys + (1 - oz)  # index of world (0, 0, 0)

    def steps_from(self, p: Vec) -> list[tuple[Vec, bool]]:
        x, y, z = p
        s, xs, ys = self.solid, self.xs, self.ys
        here = self.base + x * xs + y * ys + z
        out: list[tuple[Vec, bool]] = []
        for dx, dz in NEIGHBOURS:
            i = here + dx * xs + dz  # (x + dx, y, z + dz)
            if not s[i] and not s[i + ys] and s[i - ys]:
                out.append(((x + dx, y, z + dz), False))
                continue
            if y < self.top and not s[i + ys] and not s[i + 2 * ys] and s[i] and not s[here + 2 * ys]:
                out.append(((x + dx, y + 1, z + dz), True))
                continue
            if s[i] or s[i + ys]:
                continue
            for k in range(1, MAX_DROP + 1):
                j = i - k * ys
                if not s[j]:
                    if s[j - ys]:  # feet and head free (head is the cell above, free), ground below
                        out.append(((x + dx, y - k, z + dz), False))
                        break
                    continue
                break
        return out


def within_reach(stand: Vec, block: Vec, reach: float) -> bool:
    """Whether a player standing in `stand` can touch the centre of `block` (eye-to-centre distance)."""
    ex, ey, ez = stand[0] + 0.5, stand[1] + EYE_HEIGHT, stand[2] + 0.5
    bx, by, bz = block[0] + 0.5, block[1] + 0.5, block[2] + 0.5
    return (ex - bx) ** 2 + (ey - by) ** 2 + (ez - bz) ** 2 <= reach * reach
