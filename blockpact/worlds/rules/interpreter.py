"""The world's dynamics rules: compiled once into flat tables and applied by one interpreter.

Each rule of the world file becomes rows of flat tables (`Rules`, built by `CompiledRules` for a grid
layout) that one compiled loop, `apply_rules`, applies to one copy of a grid: regrowth on the original
cells, spawning on free cells of a region (one a second or per cell, up to a cap), growth by a factor
every period, `when` conditions, `probability_from` scaling through the spec's own
`ProbabilityFrom.factor` (tabulated per count), rules in file order. Its random numbers are
counter-based (`rng.py`: a hash of the episode key, the tick's number, the rule and the cell), so
the step kernel (`StepDynamics`, B padded copies), the program simulator and the live world master
(`dynamics.Dynamics`, on the simulator's grid) change the same cells for the same seed. Which ticks
fall in which step, and which growth rules are due at each, is tabulated by `schedule`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from blockpact.worlds.rules.ticks import is_multiple, tick_number, ticks_between
from blockpact.worlds.spec.schema import GrowRule, RegrowRule, SpawnRule, WorldSpec
from blockpact.worlds.rules.padded_grids import PaddedGrids
from blockpact.worlds.rules.rng import below, spread_table, stream_base, word
from blockpact.worlds.rules.tables import StepTables

REGROW, SPAWN, GROW = range(3)
_LAST = np.uint64(0xFFFFFFFFFFFFFFFF)


class Rules(NamedTuple):
    kind: np.ndarray  # (R,) REGROW, SPAWN or GROW
    block: np.ndarray  # (R,) palette index the rule puts
    cells: np.ndarray  # (R,) cell list acted on: a regrow rule's original cells, else its region
    region: np.ndarray  # (R,) cell list of the rule's region (a spawn rule's cap, a grow rule's count)
    cap: np.ndarray  # (R,) -1 for none
    per_region: np.ndarray  # (R,) bool: a spawn rule draws one cell a second
    factor: np.ndarray  # (R,) a grow rule's factor
    accepts: np.ndarray  # (R, P) bool: blocks a spawn or grow rule may replace
    scale_block: np.ndarray  # (R,) probability_from's block, -1 for none
    scale_list: np.ndarray  # (R,) cell list of probability_from's region
    probability: np.ndarray  # (R, V + 1) probability by probability_from's count (column 0 without one)
    cond_start: np.ndarray  # (R + 1,) the rule's conditions: cond_start[r] .. cond_start[r + 1]
    cond_block: np.ndarray  # (C,)
    cond_list: np.ndarray  # (C,)
    cond_holds: np.ndarray  # (C, V + 1) bool: whether the condition holds at each count
    list_start: np.ndarray  # (L + 1,) cells of list l: list_start[l] .. list_start[l + 1]
    list_offset: np.ndarray  # flat offset within a copy, in Region.cells() order
    spread: np.ndarray  # (longest list,) uint64: the stream index words (rng.spread)


class Schedule(NamedTuple):
    start: np.ndarray  # (steps + 1,) the ticks of step t: start[t] .. start[t + 1]
    number: np.ndarray  # (K,) each tick's number (second / tick_seconds), the draws' step
    due: np.ndarray  # (K, R) bool: the rule applies at that tick (growth only every `every` seconds)


class CompiledRules:
    """A world file's dynamics rules as `Rules` tables over one grid layout: `block_index` maps a block name to
    the grid's value for it (`palette_size` values in all), `offsets` maps (N, 3) world coordinates to flat
    offsets of one copy of the grid. The step kernel's padded palette grid and the program simulator's
    mcdata-id grid are two layouts of the same tables, so both run `apply_rules` and draw the same numbers."""

    def __init__(self, spec: WorldSpec, block_index: Callable[[str], int], palette_size: int,
                 offsets: Callable[[np.ndarray], np.ndarray]) -> None:
        self.spec = spec
        self._block, self._palette_size, self._offsets = block_index, palette_size, offsets
        self._lists: list[list[tuple[int, int, int]]] = []
        self.region_list = {name: self._list(list(r.cells())) for name, r in spec.regions.items()}
        self.rules = self._compile()
        # `due` runs every tick: only growth rules' entries change, the rest are always True.
        self._growth = [(i, r.every) for i, r in enumerate(spec.rules) if isinstance(r, GrowRule)]
        self._always = np.array([not isinstance(r, GrowRule) for r in spec.rules], dtype=bool)

    def _list(self, cells: list[tuple[int, int, int]]) -> int:
        self._lists.append(cells)
        return len(self._lists) - 1

    def _compile(self) -> Rules:
        spec, block_of = self.spec, self._block
        R, P = len(spec.rules), self._palette_size
        V = max([r.volume for r in spec.regions.values()] or [0])
        kind, block, cells, region, cap = (np.full(R, -1, dtype=np.int64) for _ in range(5))
        per_region, factor = np.zeros(R, dtype=bool), np.zeros(R)
        accepts = np.zeros((R, P), dtype=bool)
        scale_block, scale_list = np.full(R, -1, dtype=np.int64), np.zeros(R, dtype=np.int64)
        probability = np.zeros((R, V + 1))
        cond_start, cond_block, cond_list, cond_holds = [0], [], [], []
        counts = np.arange(V + 1)
        for i, rule in enumerate(spec.rules):
            block[i], region[i] = block_of(rule.block), self.region_list[rule.region]
            if isinstance(rule, RegrowRule):
                kind[i] = REGROW
                cells[i] = self._list(sorted(p for p, b in spec.blocks.items() if b == rule.block and spec.regions[rule.region].contains(p)))
            else:
                kind[i] = SPAWN if isinstance(rule, SpawnRule) else GROW
                cells[i] = region[i]
                cap[i] = -1 if rule.cap is None else rule.cap
                accepts[i, [block_of(b) for b in rule.on]] = True
            if isinstance(rule, SpawnRule):
                per_region[i] = rule.per == "region"
            if isinstance(rule, GrowRule):
                factor[i] = rule.factor
            else:
                scale = rule.probability_from
                probability[i] = rule.probability
                if scale is not None:
                    scale_block[i], scale_list[i] = block_of(scale.block), self.region_list[scale.region]
                    probability[i] = rule.probability * scale.factor(counts / spec.regions[scale.region].volume)
            for c in rule.when:
                cond_block.append(block_of(c.block))
                cond_list.append(self.region_list[c.region])
                cond_holds.append([c.holds(n) for n in range(V + 1)])
            cond_start.append(len(cond_block))
        flat = [p for cells_ in self._lists for p in cells_]
        return Rules(
            kind=kind, block=block, cells=cells, region=region, cap=cap, per_region=per_region, factor=factor,
            accepts=accepts, scale_block=scale_block, scale_list=scale_list, probability=probability,
            cond_start=np.array(cond_start, dtype=np.int64), cond_block=np.array(cond_block, dtype=np.int64),
            cond_list=np.array(cond_list, dtype=np.int64), cond_holds=np.array(cond_holds, dtype=bool).reshape(-1, V + 1),
            list_start=np.cumsum([0] + [len(c) for c in self._lists], dtype=np.int64),
            list_offset=np.asarray(self._offsets(np.array(flat, dtype=np.int64).reshape(-1, 3)), dtype=np.int64),
            spread=spread_table(max([len(c) for c in self._lists] or [1])),
        )

    def cell_offsets(self, rule: int) -> np.ndarray:
        """Offsets of the cells rule `rule` may change, in the order it draws for them."""
        r = self.rules
        lst = r.cells[rule]
        return r.list_offset[r.list_start[lst] : r.list_start[lst + 1]]

    def due(self, second: float) -> np.ndarray:
        """(R,) bool: the rules that apply at the tick ending at `second` (growth only every `every` seconds)."""
        due = self._always.copy()
        for i, every in self._growth:
            due[i] = is_multiple(second, every)
        return due


class StepDynamics:
    """The rules over the step kernel's padded palette grids (B copies)."""

    def __init__(self, spec: WorldSpec, tables: StepTables, grids: PaddedGrids) -> None:
        self.spec, self.tables, self.grids = spec, tables, grids
        g, o = grids, spec.origin

        def offsets(a: np.ndarray) -> np.ndarray:
            x, y, z = a[:, 0] - o[0] + g.pad, a[:, 1] - o[1] + g.below, a[:, 2] - o[2] + g.pad
            return (y * g.SZ + z) * g.SX + x

        self.compiled = CompiledRules(spec, tables.block, len(tables.palette), offsets)
        self.rules = self.compiled.rules
        self._region_list = self.compiled.region_list

    def schedule(self, step_seconds: float, tick_seconds: float, steps: int) -> Schedule:
        """The dynamics ticks of steps 0 .. steps - 1 (step t covers simulated time (t, t + 1] * step_seconds)."""
        start, number, due = [0], [], []
        for t in range(steps):
            for second in ticks_between(t * step_seconds, (t + 1) * step_seconds, tick_seconds):
                number.append(tick_number(second, tick_seconds))
                due.append(self.compiled.due(second))
            start.append(len(number))
        R = len(self.spec.rules)
        return Schedule(np.array(start, dtype=np.int64), np.array(number, dtype=np.int64), np.array(due, dtype=bool).reshape(len(number), R))

    def count(self, block: str, region: str) -> np.ndarray:
        """(B,) how many cells of `region` hold `block` in each copy."""
        r, g = self.rules, self.grids
        lst = self._region_list[region]
        offsets = r.list_offset[r.list_start[lst] : r.list_start[lst + 1]]
        base = np.arange(g.ids.shape[0], dtype=np.int64)[:, None] * g.cells_per_copy
        return np.count_nonzero(g.flat[base + offsets] == self.tables.block(block), axis=1)


@njit(cache=True, inline="always")
def _count(flat: np.ndarray, copy: int, ru: Rules, block: int, lst: int) -> int:
    n = 0
    for c in range(ru.list_start[lst], ru.list_start[lst + 1]):
        n += flat[copy + ru.list_offset[c]] == block
    return n


@njit(cache=True, inline="always")
def apply_rules(flat: np.ndarray, copy: int, tick: int, due: np.ndarray, key: np.uint64, occupied: np.ndarray, ru: Rules, air: int) -> None:
    """Every due rule, in file order, for the second numbered `tick` of the copy starting at offset
    `copy` of `flat`; `occupied` marks the cells players' feet and heads are in (offsets within the
    copy), where nothing spawns or grows."""
    for i in range(len(ru.kind)):
        if not due[i]:
            continue
        holds = True
        for c in range(ru.cond_start[i], ru.cond_start[i + 1]):
            if not ru.cond_holds[c, _count(flat, copy, ru, ru.cond_block[c], ru.cond_list[c])]:
                holds = False
        if not holds:
            continue
        stream = 8 * i
        lo, hi = ru.list_start[ru.cells[i]], ru.list_start[ru.cells[i] + 1]
        p = ru.probability[i, 0] if ru.scale_block[i] < 0 else ru.probability[i, _count(flat, copy, ru, ru.scale_block[i], ru.scale_list[i])]
        kind, block = ru.kind[i], ru.block[i]
        if kind == REGROW:
            base = stream_base(key, tick, stream)
            for c in range(lo, hi):
                if flat[copy + ru.list_offset[c]] == air and below(word(base, ru.spread[c - lo]), p):
                    flat[copy + ru.list_offset[c]] = block
        elif kind == SPAWN:
            room = ru.cap[i] - _count(flat, copy, ru, block, ru.region[i]) if ru.cap[i] >= 0 else hi - lo + 1
            if room <= 0:
                continue
            base = stream_base(key, tick, stream)
            if ru.per_region[i]:
                fire = below(word(base, ru.spread[0]), p)
                pick_base = stream_base(key, tick, stream + 1)
                pick, best, any_free = lo, _LAST, False
                for c in range(lo, hi):  # argmin over the cells' words, non-free cells counting as _LAST
                    if ru.accepts[i, flat[copy + ru.list_offset[c]]] and not occupied[ru.list_offset[c]]:
                        any_free = True
                        w = word(pick_base, ru.spread[c - lo])
                        if w < best:
                            pick, best = c, w
                if fire and any_free:
                    flat[copy + ru.list_offset[pick]] = block
            else:
                fired = 0
                for c in range(lo, hi):
                    if ru.accepts[i, flat[copy + ru.list_offset[c]]] and not occupied[ru.list_offset[c]] and below(word(base, ru.spread[c - lo]), p):
                        fired += 1
                        if fired > room:
                            break
                        flat[copy + ru.list_offset[c]] = block
        else:
            count = _count(flat, copy, ru, block, ru.region[i])
            target = int(np.floor(count * ru.factor[i]))
            if ru.cap[i] >= 0:
                target = min(target, ru.cap[i])
            base = stream_base(key, tick, stream)
            keyed = np.full(hi - lo, _LAST)
            free = np.zeros(hi - lo, dtype=np.bool_)
            for c in range(lo, hi):
                if ru.accepts[i, flat[copy + ru.list_offset[c]]] and not occupied[ru.list_offset[c]]:
                    free[c - lo] = True
                    keyed[c - lo] = word(base, ru.spread[c - lo])
            n = min(max(target - count, 0), free.sum())
            order = np.argsort(keyed, kind="mergesort")  # stable: the n smallest words, ties by cell order
            for r in range(n):
                c = lo + order[r]
                if free[c - lo]:
                    flat[copy + ru.list_offset[c]] = block
