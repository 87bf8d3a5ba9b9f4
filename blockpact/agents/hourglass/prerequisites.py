"""The scripted action planner's knowledge: a job's prerequisite chain, derived from minecraft-data
recipes and the harvest rules (`blockpact.worlds.rules.game`), never from a hand-written list.

For "collect 5 cobblestone" with an empty inventory in a world with trees and stone this gives:
mine 2 oak_log, craft oak_planks x2, craft stick, craft crafting_table, place it, craft
wooden_pickaxe, mine 5 stone. Each item is made the cheapest way the world allows (a block in
sight that drops it, or a recipe whose ingredients can be had), demands are added up before any
step is written, and steps come out in dependency order (tools before the blocks they dig).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from blockpact.worlds.rules import game as rules
from blockpact.worlds.spec.mcdata import MinecraftData, Recipe
from blockpact.worlds.spec.schema import Vec, WorldSpec

TABLE = "crafting_table"
PLACED_TABLE = "@crafting_table"  # the pseudo-item "a crafting table stands nearby"
MAX_DEPTH = 8  # recipe chains deeper than this are not considered


class NoWayToMake(Exception):
    """Neither a block in sight nor a recipe yields the item; the message says which."""


@dataclass(frozen=True)
class Step:
    action: str  # mine | craft | place_table | place
    item: str  # mine: the block; craft: the item made; place: the block placed
    count: int  # blocks to mine, times to craft, blocks to place
    yields: str | None = None  # mine: the item the block drops
    positions: tuple[Vec, ...] = ()

    def text(self) -> str:
        if self.action == "mine":
            return f"mine {self.count} {self.item}"
        if self.action == "craft":
            return f"craft {self.item}" + (f" {self.count} times" if self.count > 1 else "")
        if self.action == "place_table":
            return "place a crafting_table nearby"
        return f"place {self.item} at " + ", ".join(f"({x}, {y}, {z})" for x, y, z in self.positions)


@dataclass(frozen=True)
class _RuleView:
    """What `rules.harvest_tools` and `rules.expected_drops` read from a world state."""

    spec: WorldSpec
    data: MinecraftData


@dataclass(frozen=True)
class _Method:
    kind: str  # have | mine | craft | place_table
    block: str | None = None
    recipe: Recipe | None = None


class PrerequisitePlanner:
    """Plans for one agent from what it perceives: its inventory and the blocks in sight."""

    def __init__(self, spec: WorldSpec, data: MinecraftData, inventory: Mapping[str, int], blocks_in_sight: Mapping[str, int]) -> None:
        self.view = _RuleView(spec, data)
        self.data = data
        self.inventory = {k: v for k, v in inventory.items() if v > 0}
        self.in_sight = {b for b, n in blocks_in_sight.items() if n > 0}
        self._costs: dict[str, float] = {}

    # -- how to get an item -----------------------------------------------------------------------
    @cached_property
    def _sources(self) -> dict[str, list[str]]:
        """Item -> blocks in sight that drop it when harvested."""
        found: dict[str, list[str]] = {}
        for block in sorted(self.in_sight):
            if block not in self.data.blocks:
                continue
            for item, n in rules.expected_drops(self.view, block).items():  # type: ignore[arg-type]
                if n > 0:
                    found.setdefault(item, []).append(block)
        return found

    def _tools_for(self, block: str) -> frozenset[str]:
        return rules.harvest_tools(self.view, block)  # type: ignore[arg-type]

    def _has_tool(self, block: str) -> bool:
        tools = self._tools_for(block)
        return not tools or any(self.inventory.get(t, 0) > 0 for t in tools)

    def cost(self, item: str, visiting: frozenset[str] = frozenset()) -> float:
        """Rough number of steps to get one `item` (inf: impossible from here)."""
        if self.inventory.get(item, 0) > 0 or (item == PLACED_TABLE and TABLE in self.in_sight):
            return 0.0
        if item in visiting or len(visiting) > MAX_DEPTH:
            return math.inf
        if not visiting and item in self._costs:
            return self._costs[item]
        best = min((c for _, c in self._options(item, visiting | {item})), default=math.inf)
        if not visiting:
            self._costs[item] = best
        return best

    def _options(self, item: str, visiting: frozenset[str]) -> list[tuple[_Method, float]]:
        if item == PLACED_TABLE:
            return [(_Method("place_table"), 1 + self.cost(TABLE, visiting))]
        options = [(_Method("mine", block=b), 1 + self._tool_cost(b, visiting)) for b in self._sources.get(item, [])]
        for recipe in self.data.recipes.get(item, []):
            total = sum(self.cost(i, visiting) * n for i, n in recipe.ingredients.items()) / recipe.count
            if recipe.needs_table:
                total += self.cost(PLACED_TABLE, visiting)
            options.append((_Method("craft", recipe=recipe), 0.5 + total))
        return options

    def _tool_cost(self, block: str, visiting: frozenset[str]) -> float:
        if self._has_tool(block):
            return 0.0
        return min((self.cost(t, visiting) for t in sorted(self._tools_for(block))), default=math.inf)

    def _method(self, item: str) -> _Method:
        if self.inventory.get(item, 0) > 0 and item != PLACED_TABLE:
            return _Method("have")
        if item == PLACED_TABLE and TABLE in self.in_sight:
            return _Method("have")
        options = [(m, c) for m, c in self._options(item, frozenset({item})) if c < math.inf]
        if not options:
            raise NoWayToMake(f"I see no block that drops {item} and have nothing to craft it from")
        return min(options, key=lambda o: o[1])[0]

    def _tool(self, block: str) -> str | None:
        if self._has_tool(block):
            return None
        return min(sorted(self._tools_for(block)), key=lambda t: self.cost(t))

    # -- the chain ----------------------------------------------------------------------------------
    def chain(self, item: str, count: int, *, gain: bool) -> list[Step]:
        """Steps that end with `count` more `item` (gain=True: what is held already does not count)
        or with `count` held (gain=False, e.g. blocks to place)."""
        methods: dict[str, _Method] = {}
        order: list[str] = []

        def deps(name: str) -> list[str]:
            method = methods[name]
            if method.kind == "mine":
                tool = self._tool(method.block)  # type: ignore[arg-type]
                return [tool] if tool else []
            if method.kind == "craft":
                assert method.recipe is not None
                return sorted(method.recipe.ingredients) + ([PLACED_TABLE] if method.recipe.needs_table else [])
            if method.kind == "place_table":
                return [TABLE]
            return []

        def visit(name: str) -> None:  # depth-first: an item after everything it needs
            if name in methods:
                return
            methods[name] = self._goal_method(name, count, gain) if name == item else self._method(name)
            for dep in deps(name):
                visit(dep)
            order.append(name)

        visit(item)
        demand: Counter[str] = Counter({item: count})
        made: dict[str, int] = {}
        for name in reversed(order):  # everything that needs `name` has added its demand
            method = methods[name]
            held = 0 if (name == item and gain) else self.inventory.get(name, 0)
            need = demand[name] - held
            if method.kind == "have" or need <= 0:
                continue
            if method.kind == "mine":
                made[name] = need
                tool = self._tool(method.block)  # type: ignore[arg-type]
                if tool:
                    demand[tool] = max(demand[tool], 1)
            elif method.kind == "craft":
                recipe = method.recipe
                assert recipe is not None
                times = math.ceil(need / recipe.count)
                made[name] = times
                for ingredient, n in recipe.ingredients.items():
                    demand[ingredient] += n * times
                if recipe.needs_table:
                    demand[PLACED_TABLE] = max(demand[PLACED_TABLE], 1)
            else:  # place_table
                made[name] = 1
                demand[TABLE] += 1
        steps = []
        for name in order:
            if name not in made:
                continue
            method = methods[name]
            if method.kind == "mine":
                steps.append(Step("mine", method.block, made[name], yields=name))  # type: ignore[arg-type]
            elif method.kind == "craft":
                steps.append(Step("craft", name, made[name]))
            else:
                steps.append(Step("place_table", TABLE, 1))
        return steps

    def _goal_method(self, item: str, count: int, gain: bool) -> _Method:
        """The goal is made even when some is held (only the rest is made)."""
        if not gain and self.inventory.get(item, 0) >= count:
            return _Method("have")
        options = [(m, c) for m, c in self._options(item, frozenset({item})) if c < math.inf]
        if not options:
            raise NoWayToMake(f"I see no block that drops {item} and have nothing to craft it from")
        return min(options, key=lambda o: o[1])[0]
