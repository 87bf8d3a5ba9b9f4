"""B copies of a world's voxel grid for the step-level API, each kept in four rotations.

A copy is stored padded (walls of `barrier` on the sides and below, air above) as a square in x and z,
once per facing, rotated so that "ahead" is up and "right" is right. An agent's egocentric window is
then one rectangular slice of the rotation for its facing, and a whole batch of windows is one numpy
indexing operation. Rotation 0 (facing north) is the plain grid, indexed [y, z, x].
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

# Facing 0..3 = north, east, south, west; a step forward moves by (DX, DZ).
DX = np.array([0, 1, 0, -1])
DZ = np.array([-1, 0, 1, 0])


class RotatedGrids:
    def __init__(self, initial: np.ndarray, wall: int, pad: int, below: int, above: int, batch: int, window: tuple[int, int]) -> None:
        """`initial` is (X, Y, Z) palette indices; `pad` must cover the window's reach."""
        X, Y, Z = initial.shape
        self.pad, self.below, self.height = pad, below, Y
        self.S = S = max(X, Z) + 2 * pad
        self.Yp = Yp = below + Y + above
        plain = np.zeros((Yp, S, S), dtype=np.uint8)
        plain[:below + Y] = wall
        plain[below : below + Y, pad : pad + Z, pad : pad + X] = initial.transpose(1, 2, 0)
        u, v = np.meshgrid(np.arange(S), np.arange(S), indexing="ij")
        # (z, x) of rotation r's cell (u, v), and (u, v) of cell (x, z) in each rotation.
        src = [(u, v), (v, S - 1 - u), (S - 1 - u, S - 1 - v), (S - 1 - v, u)]
        self.template = np.stack([plain[:, z, x] for z, x in src])  # (4, Yp, S, S)
        x, z = np.meshgrid(np.arange(S), np.arange(S), indexing="ij")
        self.U = np.stack([z, S - 1 - x, S - 1 - z, x])  # (4, S[x], S[z])
        self.V = np.stack([x, z, S - 1 - x, S - 1 - z])
        self.UV = self.U * S + self.V
        self.UV4 = self.UV + (np.arange(4) * S * S)[:, None, None]  # offset within a copy's 4 planes
        rows, cols = window
        self.rows, self.cols = rows, cols
        # A window spans `item` bytes of its plane (rows of `cols` cells, S apart): read as one opaque
        # word from any byte, a batch of windows is one gather of B x N x layers words, and the
        # window is a strided view into the word (power-of-two words copy fastest).
        self.item = 1 << ((rows - 1) * S + cols - 1).bit_length()
        self.ids, self.flat = self._buffer((batch, 4, Yp, S, S))
        self.agents, self.agents_flat = self._buffer((batch, 4, S, S))  # 1 where a player's feet are
        word = np.dtype((np.void, self.item))
        self.block_words = np.ndarray((self.flat.size,), word, buffer=self.flat.base, strides=(1,))
        self.agent_words = np.ndarray((self.agents_flat.size,), word, buffer=self.agents_flat.base, strides=(1,))
        self.reset()

    def _buffer(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """A zeroed array of `shape` and its flat view, with slack after it for the last row's word."""
        size = int(np.prod(shape))
        raw = np.zeros(size + self.item, dtype=np.uint8)
        return raw[:size].reshape(shape), raw[:size]

    @property
    def cells_per_copy(self) -> int:
        return self.Yp * self.S * self.S

    def reset(self) -> None:
        self.ids[:] = self.template
        self.agents[:] = 0

    def index(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Flat index of padded cell (x, y, z) of copy b in rotation 0."""
        return ((b * 4 * self.Yp + y) * self.S + z) * self.S + x

    def get(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return self.flat[self.index(b, y, x, z)]

    def set(self, b: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray, value: np.ndarray | int) -> None:
        """Write cells (1-d arrays) in all four rotations."""
        r = np.arange(4)[:, None]
        idx = (((b * 4 + r) * self.Yp + y) * self.S + self.U[:, x, z]) * self.S + self.V[:, x, z]
        self.flat[idx] = value

    def mark_agents(self, b: np.ndarray, x: np.ndarray, z: np.ndarray, value: int) -> None:
        self.agents_flat[b * (4 * self.S * self.S) + self.UV4[:, x, z]] = value

    def windows(self, b: np.ndarray, facing: np.ndarray, y: np.ndarray, x: np.ndarray, z: np.ndarray, layers: np.ndarray, ahead: int, sides: int) -> tuple[np.ndarray, np.ndarray]:
        """Block windows (..., L, rows, cols) and player windows (..., rows, cols), row 0 farthest ahead."""
        corner = self.UV[facing, x, z] - (ahead * self.S + sides)
        plane = b * 4 + facing
        start = ((plane * self.Yp)[..., None] + y[..., None] + layers) * (self.S * self.S) + corner[..., None]
        return self._cells(self.block_words[start]), self._cells(self.agent_words[plane * (self.S * self.S) + corner])

    def _cells(self, words: np.ndarray) -> np.ndarray:
        raw = words.view(np.uint8).reshape(words.shape + (self.item,))
        return as_strided(raw, words.shape + (self.rows, self.cols), raw.strides[:-1] + (self.S, 1), writeable=False)
