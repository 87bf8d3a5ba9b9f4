"""The world's own rules (regrowth, spawning, growth), applied once per simulated tick."""

from __future__ import annotations

import math

from blockpact.worlds.spec import GrowRule, RegrowRule, Rule, SpawnRule, Vec
from blockpact.worlds.state import WorldState


class Dynamics:
    def __init__(self, state: WorldState) -> None:
        self.state = state
        spec = state.spec
        # Regrowth restores blocks where the world file put them.
        self.original: dict[int, list[Vec]] = {}
        for i, rule in enumerate(spec.rules):
            if isinstance(rule, RegrowRule):
                region = spec.regions[rule.region]
                self.original[i] = sorted(p for p, b in spec.blocks.items() if b == rule.block and region.contains(p))

    def conditions_hold(self, rule: Rule) -> bool:
        return all(c.holds(self.state.count_in_region(c.block, c.region)) for c in rule.when)

    def probability(self, rule: RegrowRule | SpawnRule) -> float:
        """The rule's probability this second, scaled by its `probability_from` fraction if it has one."""
        scale = rule.probability_from
        if scale is None:
            return rule.probability
        fraction = self.state.count_in_region(scale.block, scale.region) / self.state.spec.regions[scale.region].volume
        return rule.probability * float(scale.factor(fraction))

    def tick(self, second: float) -> None:
        """Apply every rule for the simulated second ending at `second` (rules in file order)."""
        for i, rule in enumerate(self.state.spec.rules):
            if isinstance(rule, GrowRule):
                if not is_multiple(second, rule.every) or not self.conditions_hold(rule):
                    continue
                self._grow(rule)
            elif not self.conditions_hold(rule):
                continue
            elif isinstance(rule, RegrowRule):
                self._regrow(i, rule)
            elif isinstance(rule, SpawnRule):
                self._spawn(rule)

    def _regrow(self, i: int, rule: RegrowRule) -> None:
        empty = [p for p in self.original[i] if self.state.block_at(p) == "air"]
        if not empty:
            return
        draws = self.state.dynamics_rng.random(len(empty))
        probability = self.probability(rule)
        for p, u in zip(empty, draws):
            if u < probability:
                self.state.set_block(p, rule.block, None, cause="regrow")

    def _free_cells(self, region: str, on: tuple[str, ...]) -> list[Vec]:
        ids = {self.state.block_id(b) for b in on}
        occupied = self._occupied()
        return [p for p in self.state.spec.regions[region].cells() if self.state.grid.get(p) in ids and p not in occupied]

    def _occupied(self) -> set[Vec]:
        return {c for p in self.state.positions.values() for c in (p, (p[0], p[1] + 1, p[2]))}

    def _spawn(self, rule: SpawnRule) -> None:
        room = math.inf if rule.cap is None else rule.cap - self.state.count_in_region(rule.block, rule.region)
        if room <= 0:
            return
        rng = self.state.dynamics_rng
        free = self._free_cells(rule.region, rule.on)
        if not free:
            return
        probability = self.probability(rule)
        if rule.per == "region":
            chosen = [free[int(rng.integers(len(free)))]] if rng.random() < probability else []
        else:
            chosen = [p for p, u in zip(free, rng.random(len(free))) if u < probability]
        for p in chosen[: int(min(room, len(chosen)))]:
            self.state.set_block(p, rule.block, None, cause="spawn")

    def _grow(self, rule: GrowRule) -> None:
        count = self.state.count_in_region(rule.block, rule.region)
        target = math.floor(count * rule.factor)
        if rule.cap is not None:
            target = min(target, rule.cap)
        free = self._free_cells(rule.region, rule.on)
        n = min(max(target - count, 0), len(free))
        if n == 0:
            return
        picks = self.state.dynamics_rng.choice(len(free), size=n, replace=False)
        for k in sorted(int(i) for i in picks):
            self.state.set_block(free[k], rule.block, None, cause="grow")


def is_multiple(t: float, period: float) -> bool:
    ratio = t / period
    return abs(ratio - round(ratio)) < 1e-9 and round(ratio) > 0


def ticks_between(start: float, end: float, step: float) -> list[float]:
    """Tick times in (start, end], on the grid of multiples of `step`."""
    first = math.floor(start / step + 1e-9) + 1
    last = math.floor(end / step + 1e-9)
    return [k * step for k in range(first, last + 1)]
