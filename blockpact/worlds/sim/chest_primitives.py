"""The chest primitives of a simulated player (getItemFromChest, depositItemIntoChest, listItemsInChest), with
Voyager's feedback: opening a chest walks to it, faces it and takes a chest's time (primitives.AgentAPI, which
these are part of); what it holds afterwards is what the player has seen of it."""

from __future__ import annotations

from blockpact.worlds.rules import game as rules
from blockpact.worlds.rules.game import fmt
from blockpact.worlds.sim.primitive_error import PrimitiveError
from blockpact.worlds.spec.schema import Vec


class ChestPrimitives:
    """The chest part of `primitives.AgentAPI`, which holds the state it reads and walks the player."""

    async def _open_chest(self, position: Vec) -> Vec:
        pos = tuple(int(v) for v in position)
        block = self.state.block_at(pos)  # type: ignore[arg-type]
        if block != "chest":
            raise PrimitiveError(f"No chest at {fmt(pos)}, it is {block}")  # type: ignore[arg-type]
        if not await self._walk_to_reach(pos):  # type: ignore[arg-type]
            raise PrimitiveError("No path to the goal!")
        await self._turn_to(pos)  # type: ignore[arg-type]
        await self.sim.clock.sleep(self.name, self.timing["chest_seconds"])
        self._scheduled("chest", "chest:{},{},{}".format(*pos), pos, self.position)  # type: ignore[str-format]
        return pos  # type: ignore[return-value]

    async def get_item_from_chest(self, position: Vec, items: dict[str, int]) -> dict[str, int]:
        pos = await self._open_chest(position)
        got: dict[str, int] = {}
        for name, count in items.items():
            if not self.state.data.is_item(name):
                await self._say(f"No item named {name}")
            elif self.state.chests[pos].get(name, 0) == 0:
                await self._say(f"I don't see {name} in this chest")
            elif self.state.chests[pos][name] < count:
                await self._say(f"Not enough {name} in chest.")
            else:
                got[name] = rules.withdraw(self.state, self.name, pos, name, count)
        self.sim.observe_chest(self.name, pos)
        return got

    async def deposit_item_into_chest(self, position: Vec, items: dict[str, int]) -> dict[str, int]:
        pos = await self._open_chest(position)
        put: dict[str, int] = {}
        for name, count in items.items():
            if not self.state.data.is_item(name):
                await self._say(f"No item named {name}")
            elif self.state.inventories[self.name].get(name, 0) == 0:
                await self._say(f"No {name} in inventory")
            elif self.state.inventories[self.name][name] < count:
                await self._say(f"Not enough {name} in inventory.")
            else:
                put[name] = rules.deposit(self.state, self.name, pos, name, count)
        self.sim.observe_chest(self.name, pos)
        return put

    async def list_items_in_chest(self, position: Vec) -> dict[str, int]:
        pos = await self._open_chest(position)
        return self.sim.observe_chest(self.name, pos)

    check_item_inside_chest = list_items_in_chest
