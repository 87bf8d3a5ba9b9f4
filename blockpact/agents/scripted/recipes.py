"""How a player makes an item from what it holds: the recipe tree, worked out on the world's own recipe data.

The planner reads the recipes of the world's Minecraft version (minecraft-data, as the simulator reads them) and
the furnace table (worlds/data/smelting.toml), and turns "craft an iron_pickaxe" into the steps a program does:
craft planks from logs, sticks from planks, a crafting_table from planks, place it when no table stands on the map,
smelt raw_iron into ingots (crafting and placing a furnace first when there is none), craft the pickaxe. Every
step is checked against a working inventory, so the plan is one the simulator's rules accept in that order.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from blockpact.worlds.rules import game as rules
from blockpact.worlds.spec.mcdata import MinecraftData, smelting_table

MAX_DEPTH = 6  # recipe levels below the item asked for (log -> planks -> stick -> pickaxe is 3)


@dataclass(frozen=True)
class MakeStep:
    """One step of making: `craft` (`count` recipe runs), `smelt` (`count` items with `fuel`) or `place` (one block)."""

    kind: str
    item: str
    count: int
    fuel: str | None = None

    def describe(self) -> str:
        if self.kind == "craft":
            return f"craft {self.item} ({self.count} time{'s' if self.count != 1 else ''})"
        if self.kind == "smelt":
            return f"smelt {self.count} {self.item} with {self.fuel}"
        return f"place a {self.item}"


@dataclass
class _Work:
    inventory: Counter[str]
    table: bool
    furnace: bool
    steps: list[MakeStep] = field(default_factory=list)

    def copy(self) -> _Work:
        return _Work(Counter(self.inventory), self.table, self.furnace, list(self.steps))


@dataclass(frozen=True)
class MakePlan:
    steps: tuple[MakeStep, ...]
    used: dict[str, int]  # held items consumed (ingredients at the bottom of the tree, fuel)

    def places(self) -> list[str]:
        return [s.item for s in self.steps if s.kind == "place"]


def _fuels(data: MinecraftData) -> list[str]:
    """Fuels, those burning longest first (coal before planks before sticks), logs last: a log makes four planks."""
    fuels = smelting_table()["fuels"]
    return sorted((f for f in fuels if data.is_item(f)), key=lambda f: (f.endswith("_log"), -float(fuels[f]), f))


class RecipePlanner:
    """Plans making items from held items, for one Minecraft version's data."""

    def __init__(self, data: MinecraftData) -> None:
        self.data = data
        self.smelts_into: dict[str, list[str]] = {}
        for raw, out in smelting_table()["outputs"].items():
            self.smelts_into.setdefault(out, []).append(raw)

    def plan(self, item: str, count: int, holdings: Counter[str], *, table: bool, furnace: bool) -> MakePlan | None:
        """The steps that make `count` more `item` from `holdings` (a crafting table / furnace on the map when
        `table` / `furnace`), or None when they cannot be made from what is held."""
        work = _Work(Counter(holdings), table, furnace)
        work.inventory[item] = 0  # make `count` new ones, whatever is held already
        if not self._obtain(item, count, work, 0, frozenset()):
            return None
        used = {i: n - work.inventory[i] for i, n in holdings.items() if i != item and work.inventory[i] < n}
        return MakePlan(tuple(work.steps), used)

    def _obtain(self, item: str, n: int, work: _Work, depth: int, making: frozenset[str]) -> bool:
        held = min(work.inventory[item], n)
        work.inventory[item] -= held
        n -= held
        if n <= 0:
            return True
        if depth >= MAX_DEPTH or item in making:
            return False
        for attempt in (self._craft, self._smelt):
            trial = work.copy()
            if attempt(item, n, trial, depth, making | {item}):
                work.__dict__.update(trial.__dict__)
                return True
        return False

    def _craft(self, item: str, n: int, work: _Work, depth: int, making: frozenset[str]) -> bool:
        for recipe in self.data.recipes.get(item, []):
            runs = math.ceil(n / recipe.count)
            ingredients = sorted(recipe.ingredients.items())
            for order in (ingredients, ingredients[::-1]):  # one ingredient's sub-tree may starve another's
                trial = work.copy()
                if recipe.needs_table and not trial.table and not self._place("crafting_table", trial, depth, making):
                    break
                if all(self._obtain(i, c * runs, trial, depth + 1, making) for i, c in order):
                    trial.steps.append(MakeStep("craft", item, runs))
                    trial.inventory[item] += recipe.count * runs - n
                    work.__dict__.update(trial.__dict__)
                    return True
        return False

    def _smelt(self, item: str, n: int, work: _Work, depth: int, making: frozenset[str]) -> bool:
        for raw in self.smelts_into.get(item, []):
            trial = work.copy()
            if not trial.furnace and not self._place("furnace", trial, depth, making):
                continue
            if not self._obtain(raw, n, trial, depth + 1, making):
                continue
            for fuel in sorted(_fuels(self.data), key=lambda f: trial.inventory[f] == 0):  # held fuels first
                if trial.inventory[fuel] == 0 and fuel in self.smelts_into:
                    continue  # no furnace chain for fuel (charcoal from logs): a log burns as it is, or as planks
                burn = trial.copy()
                units = math.ceil(n / rules.fuel_value(fuel))
                if fuel != raw and self._obtain(fuel, units, burn, depth + 1, making):
                    burn.steps.append(MakeStep("smelt", raw, n, fuel))
                    work.__dict__.update(burn.__dict__)
                    return True
        return False

    def _place(self, block: str, work: _Work, depth: int, making: frozenset[str]) -> bool:
        """Make (unless held) and place `block` (a crafting table or furnace) so the recipes above can use it."""
        if block in making:
            return False
        if not self._obtain(block, 1, work, depth + 1, making):
            return False
        work.steps.append(MakeStep("place", block, 1))
        setattr(work, "table" if block == "crafting_table" else "furnace", True)
        return True
