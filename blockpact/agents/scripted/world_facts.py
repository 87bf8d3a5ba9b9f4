"""What a scripted player reads off a world spec: block values, tools in chests, what grows back.

Everything world-specific comes from the spec (and the Minecraft data it names), so the scripted
players work on any world file, not only the built-in ones.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from blockpact.agents.scripted.recipes import RecipePlanner
from blockpact.worlds.rules import game as rules
from blockpact.worlds.spec.schema import GrowRule, Vec, WorldSpec
from blockpact.worlds.state import WorldState


@dataclass(frozen=True)
class ChestTool:
    chest: Vec
    item: str


class WorldFacts:
    def __init__(self, spec: WorldSpec) -> None:
        self.spec = spec
        self._state = WorldState(spec)  # for the rules' harvest and drop tables; never played

    @cached_property
    def block_counts(self) -> Counter[str]:
        return Counter(self.spec.blocks.values())

    @cached_property
    def renewing_blocks(self) -> frozenset[str]:
        """Blocks some dynamics rule brings back (regrowth, spawning, growth)."""
        return frozenset(rule.block for rule in self.spec.rules)

    def block_values(self, player: str) -> dict[str, float]:
        """Expected emeralds to `player` for one harvested block of each kind that is worth anything."""
        out: dict[str, float] = {}
        for block in sorted(self.block_counts):
            value = sum(self.spec.value(player, item) * n for item, n in rules.expected_drops(self._state, block).items())
            if value > 0:
                out[block] = value
        return out

    def blocks_dropping(self, item: str) -> list[str]:
        """Block kinds in the world whose harvest yields `item`."""
        return [b for b in sorted(self.block_counts) if rules.expected_drops(self._state, b).get(item, 0) > 0]

    def tools(self) -> frozenset[str]:
        """Every tool item of the Minecraft version."""
        return self._state.data.tools()

    def chest_tools(self) -> list[ChestTool]:
        tools = self._state.data.tools()
        return [ChestTool(pos, item) for pos, chest in sorted(self.spec.chests.items()) for item in sorted(chest.items) if item in tools]

    def chest_named(self, name: str) -> Vec | None:
        """The chest a contract names ("" the first chest), by its name in the world file (any case)."""
        for pos, chest in sorted(self.spec.chests.items()):
            if not name or chest.name.lower() == name.lower():
                return pos
        return None

    def max_drop(self, block: str, item: str) -> int:
        """The most `item`s one harvest of `block` can yield (at least 1)."""
        drop = self.spec.drops.get(block)
        if drop is not None and drop.item == item:
            return max(max(drop.counts), 1)
        return max(1, math.ceil(rules.expected_drops(self._state, block).get(item, 1)))

    def recipe_runs(self, item: str, count: int) -> int:
        """How many times to do `item`'s recipe to make `count` of it."""
        recipes = self._state.data.recipes.get(item)
        return max(1, math.ceil(count / recipes[0].count)) if recipes else max(count, 1)

    def ingredients(self, item: str, runs: int) -> dict[str, int]:
        """What `runs` runs of `item`'s first recipe take (nothing for an item without a recipe)."""
        recipes = self._state.data.recipes.get(item)
        return {i: n * runs for i, n in recipes[0].ingredients.items()} if recipes else {}

    def chest_with(self, item: str, player: str | None = None) -> Vec | None:
        """The first chest holding `item`; with `player`, only a chest that player may draw on freely (its own,
        a shared one, or one nobody owns: another owner's contents count for him at the end)."""
        for pos, chest in sorted(self.spec.chests.items()):
            if chest.items.get(item) and (player is None or chest.owner in (None, "shared", player)):
                return pos
        return None

    def grows_on_free_cells(self, block: str) -> bool:
        """Whether a grow rule multiplies `block` onto the free cells of a region (a player standing there takes one)."""
        return any(isinstance(rule, GrowRule) and rule.block == block for rule in self.spec.rules)

    def on_map(self, block: str) -> bool:
        return block in self.block_counts

    @cached_property
    def planner(self) -> RecipePlanner:
        return RecipePlanner(self._state.data)

    def free_cells_near(self, centre: Vec, count: int = 8) -> list[Vec]:
        """Cells where a block can be placed near `centre`: air on solid ground, with air above, off the chests,
        the spawns and the regions the world's rules renew (a placed block there would take a resource's cell)."""
        spec = self.spec
        ruled = [spec.regions[r.region] for r in spec.rules if r.region in spec.regions]
        spawns = {p.spawn for p in spec.players.values()}
        out: list[tuple[int, Vec]] = []
        x0, y0, z0 = centre
        for dx in range(-3, 4):
            for dz in range(-3, 4):
                cell = (x0 + dx, y0, z0 + dz)
                below, above = (cell[0], y0 - 1, cell[2]), (cell[0], y0 + 1, cell[2])
                if (max(abs(dx), abs(dz)) == 0 or not spec.in_bounds(cell) or cell in spec.blocks or above in spec.blocks
                        or below not in spec.blocks or cell in spawns or any(r.contains(cell) for r in ruled)):
                    continue
                out.append((max(abs(dx), abs(dz)) * 100 + abs(dx) + abs(dz), cell))
        return [cell for _, cell in sorted(out)][:count]

    def needs_tool(self, block: str) -> bool:
        return not rules.can_harvest(self._state, block, None)

    def harvests(self, tool: str, block: str) -> bool:
        return rules.can_harvest(self._state, block, tool)

    def capability(self, tool: str) -> int:
        """How many kinds of block in the world `tool` harvests (a measure of how good a tool it is)."""
        return sum(self.harvests(tool, b) for b in self.block_counts)

    def tool_options(self, blocks: list[str], *, prefer_weakest: bool, exclude: frozenset[str] = frozenset()) -> list[ChestTool]:
        """Chest tools that harvest some of `blocks`, best first: most of `blocks` covered, then the
        strongest (a greedy player) or the weakest (a cooperative one, leaving better tools to others)."""
        if not any(self.needs_tool(b) for b in blocks):
            return []
        options = [t for t in self.chest_tools() if t.item not in exclude and any(self.harvests(t.item, b) for b in blocks)]

        def rank(option: ChestTool) -> tuple[int, int, str]:
            covered = sum(self.harvests(option.item, b) for b in blocks)
            capability = self.capability(option.item)
            return (-covered, capability if prefer_weakest else -capability, option.item)

        return sorted(options, key=rank)
