"""The arrays the compiled step (kernel.py) works on: `Static`, what a run does not change (the rule tables,
the layout, the initial state, the options); and `State`, what a step changes in place. core.py fills them from a world; they are NamedTuples so numba
compiles attribute access."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Static(NamedTuple):
    """What does not change during a run: the rule tables, the layout, the initial state, the options."""

    kinds: np.ndarray  # (A,) action index -> ACTION_KINDS index
    craft_recipe: np.ndarray  # (A,) recipe of a "craft:ITEM" action, -1 for other actions
    recipe_in: np.ndarray  # (R, I), see StepTables
    recipe_out: np.ndarray
    recipe_count: np.ndarray
    recipe_table: np.ndarray
    table_block: int  # palette index of crafting_table, -1 if the world has none
    solid: np.ndarray  # (P,) bool; the per-block and per-item tables: see StepTables
    diggable: np.ndarray
    replaceable: np.ndarray
    harvest: np.ndarray
    dig_seconds: np.ndarray
    tool_rank: np.ndarray
    tool_slot: np.ndarray
    fixed_drops: np.ndarray
    drop_slot: np.ndarray
    drop_cdf: np.ndarray
    drop_counts: np.ndarray
    place_block: np.ndarray
    values: np.ndarray
    chest_index: np.ndarray  # (cells per copy,) chest number of a cell, -1 if none
    chest_share: np.ndarray  # (C, N) the part of chest c's contents that counts for player n (owner 1, shared 1/N)
    colors: np.ndarray  # (P, 3) uint8
    template: np.ndarray  # (Yp * SZ * SX,) one copy's initial grid
    spawn: np.ndarray  # (N, 3) padded x, y, z
    inventory0: np.ndarray  # (N, I)
    chest0: np.ndarray  # (C, I)
    layers: np.ndarray  # (L,) window layers relative to the feet
    SX: int  # PaddedGrids' dimensions
    SZ: int
    Yp: int
    floor: int  # padded y of the map's lowest layer
    height: int
    ahead: int
    sides: int
    rows: int
    cols: int
    place_slot: int  # slot of the item "place" puts, -1: the first block item held
    chest_block: int  # palette index of chest, -1 if the world has none
    air: int
    step_seconds: float
    rgb: bool


class State(NamedTuple):
    """Everything a step changes, (B, ...) arrays updated in place."""

    flat: np.ndarray  # PaddedGrids.flat
    agents: np.ndarray  # PaddedGrids.agents_flat
    x: np.ndarray  # (B, N) padded coordinates
    y: np.ndarray
    z: np.ndarray
    facing: np.ndarray
    inventory: np.ndarray  # (B, N, I)
    chests: np.ndarray  # (B, C, I)
    dig_cell: np.ndarray  # (B, N) cell being dug (offset within the copy), -1 for none
    dig_block: np.ndarray
    dig_progress: np.ndarray  # seconds dug so far
    value: np.ndarray  # (B, N) emerald value of the inventory
    seeds: np.ndarray  # (B,)
    episodes: np.ndarray  # (B,)
    keys: np.ndarray  # (B,) uint64 episode keys
