"""The sandbox's synchronous bot queries (bot.entity.position, bot.findBlock(...)) answered from the
simulator's state (live: `bridge/js/mineflayer/queries.js`), in the shapes primitives.toml documents."""

from __future__ import annotations

from typing import Any

import numpy as np

from blockpact.bridge.sim.common import vec
from blockpact.bridge.sim.observe import FOOD, HEALTH
from blockpact.worlds.rules.game import TICKS_PER_SECOND
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError
from blockpact.worlds.spec.schema import Vec

TICKS_PER_DAY = 24000


def answer(api: AgentAPI, name: str, args: list[Any]) -> Any:
    """The value of query `name` for `api`'s player (PrimitiveError for an unknown query or bad arguments)."""
    state = api.state
    if name == "username":
        return api.name
    if name == "entity.position":
        return api.position
    if name == "health":
        return HEALTH
    if name == "food":
        return FOOD
    if name == "heldItem":
        held = api.held_item
        return None if held is None else _item(api, held, 1)
    if name == "time":
        age = int(round(api.time * TICKS_PER_SECOND))
        return {"age": age, "timeOfDay": age % TICKS_PER_DAY, "day": age // TICKS_PER_DAY}
    if name == "players":
        return {p: {"username": p, "entity": {"position": pos}} for p, pos in sorted(state.positions.items())}
    if name == "inventory.items":
        return [_item(api, item, n) for item, total in sorted(api.inventory.items()) for n in _stacks(api, item, total)]
    if name == "blockAt":
        pos = vec(args[0] if args else None, "bot.blockAt needs a Vec3 position")
        return _block(api, pos) if state.grid.in_bounds(pos) else None
    if name in ("findBlock", "findBlocks"):
        found = _find(api, args[0] if args else None, count_default=1)
        if name == "findBlocks":
            return found
        return _block(api, found[0]) if found else None
    raise PrimitiveError(f"unknown query: {name}")


def _find(api: AgentAPI, options: Any, count_default: int) -> list[Vec]:
    if not isinstance(options, dict) or "matching" not in options:
        raise PrimitiveError("findBlock needs { matching: name, id or a list of them, maxDistance }")
    state = api.state
    matching = options["matching"]
    wanted = matching if isinstance(matching, list) else [matching]
    names = set()
    for m in wanted:
        if isinstance(m, int) and not isinstance(m, bool):
            name = state.data.block_names_by_id.get(m)
        elif isinstance(m, str):
            name = m
        else:
            raise PrimitiveError("matching must be a block name, a block id or a list of them (functions cannot be sent to the game)")
        if name is not None:
            names.add(name)
    distance = float(options.get("maxDistance") or 16)
    count = int(options.get("count") or count_default)
    here = np.asarray(api.position)
    found = [p for n in sorted(names) for p in state.find_blocks(n, api.position, distance, count)]
    found.sort(key=lambda p: (float(((np.asarray(p) - here) ** 2).sum()), p))
    return found[:count]


def _block(api: AgentAPI, pos: Vec) -> dict[str, Any]:
    name = api.state.block_at(pos)
    return {"name": name, "type": api.state.block_id(name), "position": pos}


def _item(api: AgentAPI, name: str, count: int) -> dict[str, Any]:
    data = api.state.data
    return {"name": name, "count": count, "type": data.items.get(name), "stackSize": data.stack_sizes.get(name, 64)}


def _stacks(api: AgentAPI, item: str, total: int) -> list[int]:
    size = api.state.data.stack_sizes.get(item, 64)
    return [min(size, total - i) for i in range(0, total, size)]
