"""The crafting primitives of a simulated player (craftItem, smeltItem), with Voyager's feedback: the world's
rules (rules/game.py) decide what a recipe takes and makes; walking to the table or furnace and the time it takes
are the player's (primitives.AgentAPI, which these are part of)."""

from __future__ import annotations

from blockpact.worlds.rules import game as rules
from blockpact.worlds.sim.primitive_error import PrimitiveError


class CraftPrimitives:
    """The crafting part of `primitives.AgentAPI`, which holds the state it reads and walks the player."""

    async def craft_item(self, name: str, count: int = 1) -> int:
        """Do the recipe for `name` `count` times (Voyager/mineflayer semantics). Returns items made."""
        if not isinstance(name, str) or not self.state.data.is_item(name):
            raise PrimitiveError(f"No item named {name}")
        if not isinstance(count, int) or count < 1:
            raise PrimitiveError("count for craftItem must be a positive number")
        table = self._nearest("crafting_table")
        if table is None:
            await self._say("Craft without a crafting table")
        elif not await self._walk_to_reach(table):
            table = None
        if name not in self.state.data.recipes:
            await self._say(f"I cannot make {name}: it has no crafting recipe")
            return 0
        plan = rules.plan_craft(self.state, self.name, name, count, table_nearby=table is not None)
        if plan.recipe is None:
            needs = [f"{n} more {item}" for item, n in sorted(plan.missing.items()) if item != "crafting_table"]
            if "crafting_table" in plan.missing:
                needs.append("a crafting_table nearby")
            await self._say(f"I cannot make {name} because I need: {', '.join(needs)}")
            return 0
        await self._say(f"I can make {name}")
        await self.sim.clock.sleep(self.name, self.timing["craft_seconds"] * count)
        try:
            rules.craft(self.state, self.name, plan.recipe, count)
        except rules.RuleError:
            await self._say(f"I cannot do the recipe for {name} {count} times")
            return 0
        await self._say(f"I did the recipe for {name} {count} times")
        return plan.recipe.count * count

    async def smelt_item(self, item: str, fuel: str, count: int = 1) -> int:
        for n in (item, fuel):
            if not isinstance(n, str) or not self.state.data.is_item(n):
                raise PrimitiveError(f"No item named {n}")
        furnace = self._nearest("furnace")
        if furnace is None:
            raise PrimitiveError("No furnace nearby")
        if not await self._walk_to_reach(furnace):
            raise PrimitiveError("No path to the goal!")
        inv = self.state.inventories[self.name]
        if inv.get(item, 0) < 1:
            await self._say(f"No {item} to smelt in inventory")
            return 0
        if inv.get(fuel, 0) < 1:
            await self._say(f"No {fuel} as fuel in inventory")
            return 0
        if rules.smelt_output(item) is None:
            raise PrimitiveError(f"{item} is not a valid input")
        if rules.fuel_value(fuel) <= 0:
            raise PrimitiveError(f"{fuel} is not a valid fuel")
        n = rules.smelt_capacity(self.state, self.name, item, fuel, count)
        await self.sim.clock.sleep(self.name, n * rules.smelt_seconds_per_item())
        done, _ = rules.smelt(self.state, self.name, item, fuel, count)
        await self._say(f"Smelted {done} {item}." if done else f"Failed to smelt {item}, please check the fuel and input.")
        return done
