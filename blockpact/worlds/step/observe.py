"""What each agent sees after a step, compiled with the step (kernel.py inlines `observe_copy`): an
egocentric window of palette block indices per layer, where the players stand, the inventory, and
optionally an RGB picture of the window's top blocks."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from blockpact.worlds.rules.padded_grids import window_origin
from blockpact.worlds.step.arrays import State, Static


class Observation(NamedTuple):
    blocks: np.ndarray  # (B, N, L, rows, cols) palette indices, row 0 farthest ahead
    agents: np.ndarray  # (B, N, rows, cols) 1 where a player stands
    inventory: np.ndarray  # (B, N, I)
    rgb: np.ndarray  # (B, N, rows, cols, 3), or (0, 0, 0, 0, 3) without render_rgb


@njit(cache=True, inline="always")
def observe_copy(b: int, st: State, tb: Static, blocks: np.ndarray, agents: np.ndarray, inventory: np.ndarray, rgb: np.ndarray) -> None:
    """Copy b's observations into the flat (1-d) views of an `Observation`'s arrays."""
    L, plane, rows, cols = tb.layers.shape[0], tb.SZ * tb.SX, tb.rows, tb.cols
    N, I, window = st.x.shape[1], st.inventory.shape[2], tb.rows * tb.cols
    flat, marks = st.flat, st.agents
    for n in range(N):
        f, x, z = st.facing[b, n], st.x[b, n], st.z[b, n]
        origin, row_step, col_step = window_origin(tb.SX, f, x, z, tb.ahead, tb.sides)
        agent = b * N + n
        for l in range(L):
            start = (b * tb.Yp + st.y[b, n] + tb.layers[l]) * plane + origin
            to = (agent * L + l) * window
            for r in range(rows):
                src, dst = start + r * row_step, to + r * cols
                for c in range(cols):  # unsigned indices: no negative-index wraparound test per byte
                    blocks[np.uint64(dst + c)] = flat[np.uint64(src + c * col_step)]
        start, to = b * plane + origin, agent * window
        for r in range(rows):
            src, dst = start + r * row_step, to + r * cols
            for c in range(cols):
                agents[np.uint64(dst + c)] = marks[np.uint64(src + c * col_step)]
        for i in range(I):
            inventory[agent * I + i] = st.inventory[b, n, i]
        if tb.rgb:
            for w in range(window):
                top = L - 1
                while top > 0 and blocks[(agent * L + top) * window + w] == 0:
                    top -= 1
                shown = blocks[(agent * L + top) * window + w]  # the highest non-air layer (air if none)
                for k in range(3):
                    rgb[(agent * window + w) * 3 + k] = 255 if agents[agent * window + w] > 0 else tb.colors[shown, k]


@njit(cache=True, inline="always")
def empty_observation(st: State, tb: Static) -> Observation:
    B, N = st.x.shape
    shown = B if tb.rgb else 0
    return Observation(
        np.empty((B, N, tb.layers.shape[0], tb.rows, tb.cols), dtype=np.uint8),
        np.empty((B, N, tb.rows, tb.cols), dtype=np.uint8),
        np.empty((B, N, st.inventory.shape[2]), dtype=np.int64),
        np.empty((shown, N if tb.rgb else 0, tb.rows if tb.rgb else 0, tb.cols if tb.rgb else 0, 3), dtype=np.uint8),
    )


@njit(cache=True)
def observe_all(st: State, tb: Static) -> Observation:
    out = empty_observation(st, tb)
    blocks, agents, inventory, rgb = out.blocks.reshape(-1), out.agents.reshape(-1), out.inventory.reshape(-1), out.rgb.reshape(-1)
    for b in range(st.x.shape[0]):
        observe_copy(b, st, tb, blocks, agents, inventory, rgb)
    return out
