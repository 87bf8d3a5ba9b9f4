"""B copies of a world's voxel grid for the step-level API.

A copy is stored padded (walls of `barrier` on the sides and below, air above) and indexed [y, z, x],
each copy one contiguous run of bytes, so that stepping a copy touches one small block of memory.
The padding covers the egocentric window's reach: a window cell is the origin's offset plus its row
times a row stride plus its column times a column stride, both set by the agent's facing. A second
array of the same layout without y marks the columns players stand in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Facing 0..3 = north, east, south, west; a step forward moves by (DX, DZ); "right" is (-DZ, DX).
DX = np.array([0, 1, 0, -1], dtype=np.int64)
DZ = np.array([-1, 0, 1, 0], dtype=np.int64)


class PaddedGrids:
    def __init__(self, initial: np.ndarray, wall: int, pad: int, below: int, above: int, batch: int) -> None:
        """`initial` is (X, Y, Z) palette indices; `pad` must cover the window's reach."""
        X, Y, Z = initial.shape
        self.pad, self.below, self.height = pad, below, Y
        self.SX, self.SZ = X + 2 * pad, Z + 2 * pad
        self.Yp = Yp = below + Y + above
        self.template = np.zeros((Yp, self.SZ, self.SX), dtype=np.uint8)
        self.template[:below + Y] = wall
        self.template[below : below + Y, pad : pad + Z, pad : pad + X] = initial.transpose(1, 2, 0)
        self.ids = np.zeros((batch, Yp, self.SZ, self.SX), dtype=np.uint8)
        self.flat = self.ids.reshape(-1)
        self.agents = np.zeros((batch, self.SZ, self.SX), dtype=np.uint8)  # 1 where a player's feet are
        self.agents_flat = self.agents.reshape(-1)

    @property
    def cells_per_copy(self) -> int:
        return self.Yp * self.SZ * self.SX

    def index(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Flat index of padded cell (x, y, z) of copy b."""
        return ((b * self.Yp + y) * self.SZ + z) * self.SX + x

    def get(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return self.flat[self.index(b, y, x, z)]

    def set(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray, value: int) -> None:
        self.flat[self.index(b, y, x, z)] = value


@njit(cache=True, inline="always")
def window_origin(SX: int, facing: int, x: int, z: int, ahead: int, sides: int) -> tuple[int, int, int]:
    """Offset (within a y-layer) of the window's first cell, farthest ahead on the left, and the strides
    from one row to the next (one step back) and from one column to the next (one step right)."""
    dx, dz = DX[facing], DZ[facing]
    rx, rz = -dz, dx
    origin = (z + ahead * dz - sides * rz) * SX + x + ahead * dx - sides * rx
    return origin, -(dz * SX + dx), rz * SX + rx
