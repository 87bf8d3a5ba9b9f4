"""The game rules, in one place: digging, harvesting and drops, crafting, smelting, placing, chests.

Both the program primitives (macro-actions with simulated durations) and the step-level API call
these functions, so a world behaves the same whichever way agents act on it.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from blockpact.worlds.spec.mcdata import Recipe, smelting_table
from blockpact.worlds.state import WorldState
from blockpact.worlds.spec.schema import Vec

TICKS_PER_SECOND = 20  # Minecraft's game ticks: dig times and bot.waitForTicks are counted in them
UNBREAKABLE = math.inf


class RuleError(Exception):
    """An action the rules forbid; the message is the feedback the agent reads."""


def harvest_tools(state: WorldState, block: str) -> frozenset[str]:
    if block in state.spec.harvest:
        return state.spec.harvest[block]
    return state.data.blocks[block].harvest_tools


def can_harvest(state: WorldState, block: str, tool: str | None) -> bool:
    tools = harvest_tools(state, block)
    return not tools or tool in tools


def dig_seconds(state: WorldState, block: str, tool: str | None) -> float:
    """Minecraft's dig time: tool speed over hardness, /30 when harvestable and /100 when not, in whole ticks."""
    info = state.data.blocks[block]
    if info.hardness is None:
        return UNBREAKABLE
    if info.hardness == 0:
        return 0.0
    speed = state.data.tool_speed(info.material, tool)
    damage = speed / info.hardness / (30 if can_harvest(state, block, tool) else 100)
    if damage > 1:
        return 0.0
    return math.ceil(1 / damage) / TICKS_PER_SECOND


def best_tool(state: WorldState, player: str, block: str) -> str | None:
    """The held-in-hand choice mineflayer-tool would make: a harvesting tool first, then the fastest."""
    options: list[str | None] = [None, *sorted(t for t in state.inventories[player] if t in state.data.tools())]
    return min(options, key=lambda t: (not can_harvest(state, block, t), dig_seconds(state, block, t), t or ""))


def expected_drops(state: WorldState, block: str) -> dict[str, float]:
    """Mean yield of harvesting `block` once, per item."""
    drop = state.spec.drops.get(block)
    if drop is not None:
        return {drop.item: drop.expected}
    return {item: 1.0 for item in state.data.blocks[block].drops}


def roll_drops(state: WorldState, block: str) -> dict[str, int]:
    """What harvesting `block` yields; a drop table's count is the next draw of the (seed, DROPS) stream,
    the draw the live server's plugin makes for the same dig of an episode with the same seed."""
    drop = state.spec.drops.get(block)
    if drop is not None:
        # Imported here: rng.py loads numba (~0.4 s of CPU), which every process importing the game rules
        # (reports, comparisons, the negotiators' world facts) would pay without ever drawing.
        from blockpact.worlds.rules.rng import DROPS, stream_unit

        n = drop.count_at(stream_unit(state.seed, DROPS, state.drop_draws))
        state.drop_draws += 1
        return {drop.item: n} if n else {}
    return {item: 1 for item in state.data.blocks[block].drops}


def dig(state: WorldState, player: str, pos: Vec, tool: str | None) -> dict[str, int]:
    """Break the block at `pos`; its drops go to `player` when `tool` can harvest it."""
    block = state.block_at(pos)
    if block in ("air", "water", "lava"):
        raise RuleError(f"There is no block to mine at {fmt(pos)}")
    if state.data.blocks[block].hardness is None:
        raise RuleError(f"I cannot mine {block}: it is unbreakable")
    drops = roll_drops(state, block) if can_harvest(state, block, tool) else {}
    gained = Counter(drops)
    gained.update(state.chests.get(pos, {}))  # a broken chest spills its contents
    state.set_block(pos, "air", player, cause="dig")
    state.held[player] = tool
    for item, n in sorted(gained.items()):
        state.give(player, item, n, cause=f"dig:{block}")
    return drops


def place(state: WorldState, player: str, item: str, pos: Vec) -> None:
    if state.inventories[player].get(item, 0) < 1:
        raise RuleError(f"No {item} in inventory")
    if not state.data.is_block(item):
        raise RuleError(f"{item} is not a block and cannot be placed")
    if not state.grid.in_bounds(pos):
        raise RuleError(f"Cannot place {item} at {fmt(pos)}: outside the world")
    if state.block_at(pos) not in ("air", "water"):
        raise RuleError(f"Cannot place {item} at {fmt(pos)}: {state.block_at(pos)} is there")
    if not any(state.grid.solid(n) for n in neighbours(pos)):
        raise RuleError(f"No block to place {item} on. You cannot place a floating block.")
    if state.data.blocks[item].solid and any(pos in (p, (p[0], p[1] + 1, p[2])) for p in state.positions.values()):
        raise RuleError(f"Cannot place {item} at {fmt(pos)}: a player is standing there")
    state.give(player, item, -1, cause="place")
    state.held[player] = item
    state.set_block(pos, item, player, cause="place")


def neighbours(p: Vec) -> list[Vec]:
    x, y, z = p
    return [(x + 1, y, z), (x - 1, y, z), (x, y + 1, z), (x, y - 1, z), (x, y, z + 1), (x, y, z - 1)]


@dataclass(frozen=True)
class CraftPlan:
    recipe: Recipe | None
    missing: dict[str, int]  # for the closest recipe when none can be made


def plan_craft(state: WorldState, player: str, item: str, times: int, table_nearby: bool) -> CraftPlan:
    """The first recipe (minecraft-data order) the player can make `times` times, else what is missing."""
    variants = state.data.recipes.get(item, [])
    inv = state.inventories[player]
    best_missing: dict[str, int] | None = None
    for recipe in variants:
        missing = {n: c * times - inv.get(n, 0) for n, c in recipe.ingredients.items() if c * times > inv.get(n, 0)}
        if recipe.needs_table and not table_nearby:
            missing = {**missing, "crafting_table": 1}
        if not missing:
            return CraftPlan(recipe, {})
        if best_missing is None or sum(missing.values()) < sum(best_missing.values()):
            best_missing = missing
    return CraftPlan(None, best_missing or {})


def craft(state: WorldState, player: str, recipe: Recipe, times: int) -> None:
    for name, count in sorted(recipe.ingredients.items()):
        if state.inventories[player].get(name, 0) < count * times:
            raise RuleError(f"I cannot do the recipe for {recipe.result} {times} times")
    for name, count in sorted(recipe.ingredients.items()):
        state.give(player, name, -count * times, cause=f"craft:{recipe.result}")
    state.give(player, recipe.result, recipe.count * times, cause="craft")
    state.emit(player, "craft", item=recipe.result, times=times, made=recipe.count * times)


def smelt_output(item: str) -> str | None:
    return smelting_table()["outputs"].get(item)


def fuel_value(item: str) -> float:
    return float(smelting_table()["fuels"].get(item, 0.0))


def smelt_seconds_per_item() -> float:
    return float(smelting_table()["seconds_per_item"])


def _smelt_steps(inv: Counter[str], item: str, fuel: str, count: int) -> list[bool]:
    """The furnace's rule, worked out on the counts in `inv` (not changed): for each of up to `count` items smelted
    in turn, whether a fuel is burnt first (a fuel smelts `fuel_value` items, fractions carried over). The fuel may
    be the item itself (a log burns to smelt another log, as in Minecraft): it comes from the same stack, and is
    burnt only when an item is left to smelt, so one log alone smelts nothing."""
    per_fuel = fuel_value(fuel)
    held = Counter({item: inv.get(item, 0), fuel: inv.get(fuel, 0)})
    steps: list[bool] = []
    fuel_left = 0.0
    while len(steps) < count and held[item] > 0:
        refuel = fuel_left < 1 - 1e-9
        if refuel:
            if per_fuel <= 0 or held[fuel] < 1 + (fuel == item):
                break
            held[fuel] -= 1
            fuel_left += per_fuel
        held[item] -= 1
        fuel_left -= 1
        steps.append(refuel)
    return steps


def smelt_capacity(state: WorldState, player: str, item: str, fuel: str, count: int) -> int:
    """How many of `item` the player's input and fuel suffice for, up to `count`."""
    return len(_smelt_steps(state.inventories[player], item, fuel, count))


def smelt(state: WorldState, player: str, item: str, fuel: str, count: int) -> tuple[int, float]:
    """Smelt up to `count` items; returns (how many, seconds it took)."""
    output = smelt_output(item)
    if output is None:
        raise RuleError(f"{item} is not a valid input")
    if fuel_value(fuel) <= 0:
        raise RuleError(f"{fuel} is not a valid fuel")
    steps = _smelt_steps(state.inventories[player], item, fuel, count)
    for refuel in steps:
        if refuel:
            state.give(player, fuel, -1, cause="smelt:fuel")
        state.give(player, item, -1, cause=f"smelt:{output}")
        state.give(player, output, 1, cause="smelt")
    done = len(steps)
    seconds = done * smelt_seconds_per_item()
    if done:
        state.emit(player, "smelt", item=item, output=output, count=done)
    return done, seconds


def withdraw(state: WorldState, player: str, chest: Vec, item: str, count: int) -> int:
    got = state.move_items(state.chests[chest], Counter(), item, count)
    if got:
        state.give(player, item, got, cause="chest:withdraw")
        state.emit(player, "chest", pos=list(chest), item=item, delta=-got, count=state.chests[chest].get(item, 0))
    return got


def deposit(state: WorldState, player: str, chest: Vec, item: str, count: int) -> int:
    put = min(count, state.inventories[player].get(item, 0))
    if put:
        state.give(player, item, -put, cause="chest:deposit")
        state.chests[chest][item] += put
        state.emit(player, "chest", pos=list(chest), item=item, delta=put, count=state.chests[chest][item])
    return put


def fmt(p: Vec) -> str:
    return f"({p[0]}, {p[1]}, {p[2]})"
