"""The world's dynamics rules for a batch of grids, compiled from the same spec rules as `dynamics.py`.

`Dynamics` walks cells in Python and logs an event per change, which is right for the program
simulator and far too slow for millions of RL steps. This applies each rule of the world file to all
copies at once with the same semantics: regrowth on the original cells, spawning on free cells of a
region (one a second or per cell, up to a cap), growth by a factor every period, `when` conditions,
`probability_from` scaling through the spec's own `ProbabilityFrom.factor`, rules in file order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from blockpact.worlds.dynamics import is_multiple
from blockpact.worlds.spec import Condition, GrowRule, RegrowRule, SpawnRule, WorldSpec
from blockpact.worlds.step_grid import RotatedGrids
from blockpact.worlds.step_rng import below, bits
from blockpact.worlds.step_tables import StepTables

_LAST = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True)
class _Cells:
    y: np.ndarray  # padded coordinates, in Region.cells() order
    x: np.ndarray
    z: np.ndarray
    offset: np.ndarray  # flat index within a copy's rotation 0


class StepDynamics:
    def __init__(self, spec: WorldSpec, tables: StepTables, grids: RotatedGrids) -> None:
        self.spec, self.tables, self.grids = spec, tables, grids
        self.base = np.arange(grids.ids.shape[0], dtype=np.int64) * 4 * grids.cells_per_copy
        self.regions = {name: self._cells(list(r.cells())) for name, r in spec.regions.items()}
        self.original = {
            i: self._cells(sorted(p for p, b in spec.blocks.items() if b == rule.block and spec.regions[rule.region].contains(p)))
            for i, rule in enumerate(spec.rules) if isinstance(rule, RegrowRule)
        }
        self.occupied = np.zeros((grids.ids.shape[0], grids.cells_per_copy), dtype=bool)

    def _cells(self, cells: list[tuple[int, int, int]]) -> _Cells:
        g, o = self.grids, self.spec.origin
        a = np.array(cells, dtype=np.int64).reshape(-1, 3)
        x, y, z = a[:, 0] - o[0] + g.pad, a[:, 1] - o[1] + g.below, a[:, 2] - o[2] + g.pad
        return _Cells(y, x, z, (y * g.S + z) * g.S + x)

    def _values(self, cells: _Cells) -> np.ndarray:
        return self.grids.flat[self.base[:, None] + cells.offset]

    def count(self, block: str, region: str) -> np.ndarray:
        return np.count_nonzero(self._values(self.regions[region]) == self.tables.block(block), axis=1)

    def _holds(self, when: tuple[Condition, ...]) -> np.ndarray:
        ok = np.ones(len(self.base), dtype=bool)
        for c in when:
            ok &= c.holds(self.count(c.block, c.region))
        return ok

    def _probability(self, rule: RegrowRule | SpawnRule) -> np.ndarray:
        scale = rule.probability_from
        if scale is None:
            return np.full((len(self.base), 1), rule.probability)
        fraction = self.count(scale.block, scale.region) / self.spec.regions[scale.region].volume
        return (rule.probability * scale.factor(fraction))[:, None]

    def tick(self, second: float, tick: int, keys: np.ndarray, players: np.ndarray) -> None:
        """Apply every rule for the second ending at `second`; `players` are (B, M) flat offsets of feet and head cells."""
        rows = np.arange(len(self.base))[:, None]
        self.occupied[rows, players] = True
        for i, rule in enumerate(self.spec.rules):
            if isinstance(rule, GrowRule) and not is_multiple(second, rule.every):
                continue
            holds = self._holds(rule.when)
            if not holds.any():
                continue
            stream = 8 * i
            if isinstance(rule, RegrowRule):
                self._regrow(i, rule, holds, tick, stream, keys)
            elif isinstance(rule, SpawnRule):
                self._spawn(rule, holds, tick, stream, keys)
            else:
                self._grow(rule, holds, tick, stream, keys)
        self.occupied[rows, players] = False

    def _apply(self, fire: np.ndarray, cells: _Cells, block: str) -> None:
        b, c = np.nonzero(fire)
        if len(b):
            self.grids.set(b, cells.y[c], cells.x[c], cells.z[c], self.tables.block(block))

    def _regrow(self, i: int, rule: RegrowRule, holds: np.ndarray, tick: int, stream: int, keys: np.ndarray) -> None:
        cells = self.original[i]
        if not len(cells.offset):
            return
        empty = self._values(cells) == self.tables.block("air")
        fire = empty & holds[:, None] & below(bits(keys, tick, stream, len(cells.offset)), self._probability(rule))
        self._apply(fire, cells, rule.block)

    def _free(self, cells: _Cells, on: tuple[str, ...]) -> np.ndarray:
        accepts = np.zeros(len(self.tables.palette), dtype=bool)
        accepts[[self.tables.block(b) for b in on]] = True
        return accepts[self._values(cells)] & ~self.occupied[:, cells.offset]

    def _spawn(self, rule: SpawnRule, holds: np.ndarray, tick: int, stream: int, keys: np.ndarray) -> None:
        cells = self.regions[rule.region]
        room = np.full(len(self.base), np.inf) if rule.cap is None else rule.cap - self.count(rule.block, rule.region)
        free = self._free(cells, rule.on) & (holds & (room > 0))[:, None]
        n = len(cells.offset)
        if rule.per == "region":
            fire_b = below(bits(keys, tick, stream, 1), self._probability(rule))[:, 0] & free.any(axis=1)
            pick = np.where(free, bits(keys, tick, stream + 1, n), _LAST).argmin(axis=1)
            fire = np.zeros_like(free)
            fire[np.nonzero(fire_b)[0], pick[fire_b]] = True
        else:
            fire = free & below(bits(keys, tick, stream, n), self._probability(rule))
            if rule.cap is not None:
                fire &= np.cumsum(fire, axis=1) <= room[:, None]
        self._apply(fire, cells, rule.block)

    def _grow(self, rule: GrowRule, holds: np.ndarray, tick: int, stream: int, keys: np.ndarray) -> None:
        cells = self.regions[rule.region]
        count = self.count(rule.block, rule.region)
        target = np.floor(count * rule.factor).astype(np.int64)
        if rule.cap is not None:
            target = np.minimum(target, rule.cap)
        free = self._free(cells, rule.on)
        n = np.minimum(np.maximum(target - count, 0), free.sum(axis=1)) * holds
        keyed = np.where(free, bits(keys, tick, stream, len(cells.offset)), _LAST)
        ranks = np.argsort(np.argsort(keyed, axis=1, kind="stable"), axis=1)
        self._apply(free & (ranks < n[:, None]), cells, rule.block)

