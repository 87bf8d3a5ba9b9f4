"""The world's own rules (regrowth, spawning, growth) on the program simulator's grid, once per tick.

The rules are not restated here: the world file's rules are compiled into the same tables the step
kernel runs (`interpreter.CompiledRules`, laid out over this grid's mcdata block ids) and applied by
the same interpreter with the same counter-based random stream, keyed by (seed, episode 0, tick,
rule, cell). So a seed regrows the same cells in the simulator, the step API (copy 0 of
`reset(seed=...)`) and the live world master. What this class adds is the event log: each rule runs on
its own, and every cell it changed is put back and set again through `WorldState.set_block`, which
logs the change with the rule's kind as its cause and keeps chests in step.
"""

from __future__ import annotations

import numpy as np

from blockpact.settings import settings
from blockpact.worlds.spec.schema import RegrowRule, SpawnRule
from blockpact.worlds.state import WorldState
from blockpact.worlds.rules.interpreter import CompiledRules, apply_rules
from blockpact.worlds.rules.rng import episode_key
from blockpact.worlds.rules.ticks import tick_number

CAUSES = ("regrow", "spawn", "grow")  # by the rule kinds REGROW, SPAWN, GROW


class Dynamics:
    def __init__(self, state: WorldState, tick_seconds: float | None = None) -> None:
        self.state = state
        self.tick_seconds = settings().simulator.tick_seconds if tick_seconds is None else float(tick_seconds)
        ids = state.grid.ids
        shape, origin = np.array(ids.shape, dtype=np.int64), np.array(state.spec.origin, dtype=np.int64)

        def offsets(a: np.ndarray) -> np.ndarray:
            local = a - origin
            return (local[:, 0] * shape[1] + local[:, 1]) * shape[2] + local[:, 2]

        palette = max(state.data.block_names_by_id) + 1
        self.compiled = CompiledRules(state.spec, state.block_id, palette, offsets)
        self._key = np.uint64(episode_key(state.seed, 0))  # numba hands a Python int back: keep the uint64 type
        self._occupied = np.zeros(ids.size, dtype=np.bool_)
        self._air = state.block_id("air")
        # The grid's block ids as one flat view (the interpreter changes the grid in place; the grid
        # keeps its array for life), and each rule's one-hot `due` mask: both made once, not per tick.
        self._flat = ids.reshape(-1)
        assert np.shares_memory(self._flat, ids)
        self._only = np.eye(len(state.spec.rules), dtype=bool)

    def probability(self, rule: RegrowRule | SpawnRule) -> float:
        """The rule's probability this second, scaled by its `probability_from` fraction if it has one."""
        scale = rule.probability_from
        if scale is None:
            return rule.probability
        fraction = self.state.count_in_region(scale.block, scale.region) / self.state.spec.regions[scale.region].volume
        return rule.probability * float(scale.factor(fraction))

    def tick(self, second: float) -> None:
        """Apply every due rule, in file order, for the simulated second ending at `second`."""
        rules, flat = self.compiled.rules, self._flat
        due = self.compiled.due(second)
        if not due.any():
            return
        feet = self._occupied_cells()
        self._occupied[feet] = True
        try:
            number = tick_number(second, self.tick_seconds)
            for i in np.flatnonzero(due):
                cells = self.compiled.cell_offsets(i)
                before = flat[cells]  # fancy indexing: a copy
                apply_rules(flat, 0, number, self._only[i], self._key, self._occupied, rules, self._air)
                changed = np.flatnonzero(flat[cells] != before)
                if changed.size:
                    self._log(flat, cells[changed], before[changed], CAUSES[rules.kind[i]])
        finally:
            self._occupied[feet] = False

    def _log(self, flat: np.ndarray, offsets: np.ndarray, old: np.ndarray, cause: str) -> None:
        """Put the changed cells back and set them again through the state, which logs each change."""
        new = flat[offsets].copy()
        flat[offsets] = old
        names = self.state.data.block_names_by_id
        local = np.column_stack(np.unravel_index(offsets, self.state.grid.ids.shape)) + np.array(self.state.spec.origin)
        for p, block in zip(local.tolist(), new.tolist()):
            self.state.set_block((p[0], p[1], p[2]), names[block], None, cause=cause)

    def _occupied_cells(self) -> np.ndarray:
        """Offsets of the cells players' feet and heads are in (nothing spawns or grows there); plain
        arithmetic rather than np.ravel_multi_index per cell, as it runs every tick."""
        (ox, oy, oz), (X, Y, Z) = self.state.grid.origin, self.state.grid.ids.shape
        out = []
        for x, y, z in self.state.positions.values():
            lx, lz = x - ox, z - oz
            if 0 <= lx < X and 0 <= lz < Z:
                out += [(lx * Y + ly) * Z + lz for ly in (y - oy, y + 1 - oy) if 0 <= ly < Y]
        return np.array(out, dtype=np.int64)
