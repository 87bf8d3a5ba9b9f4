"""Per-block and per-item lookup tables for the step-level API, compiled from `rules/game.py` and the spec.

The step API never restates a game rule: which blocks can be dug, how long digging takes with which
tool, what is harvested and dropped, where a block may be placed and which tool a player reaches for
are all obtained here by calling the functions of `game.py` once per block of the world, so that
the vectorised step applies them with numpy indexing instead of Python calls.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from blockpact.errors import UserError
from blockpact.worlds.rules import game as rules
from blockpact.worlds.spec.schema import GrowRule, Vec, WorldSpec
from blockpact.worlds.state import WorldState

WALL = "barrier"  # what lies beyond the map's sides and below it: solid and unbreakable, as in grid.py
NOT_CHEST = "chest"  # chests only exist where the world file puts them, so chest items are not placed


@dataclass(frozen=True)
class StepTables:
    palette: tuple[str, ...]  # block name of each palette index (what the grid and observations hold)
    items: tuple[str, ...]  # item name of each inventory slot
    tools: tuple[str | None, ...]  # None (the hand) and the tool items of `items`
    tool_slot: np.ndarray  # (T,) inventory slot of each tool, -1 for the hand
    solid: np.ndarray  # (P,) bool
    diggable: np.ndarray  # (P,) bool: rules.dig accepts the block
    replaceable: np.ndarray  # (P,) bool: rules.place may put a block in its cell
    harvest: np.ndarray  # (P, T) bool: rules.can_harvest
    dig_seconds: np.ndarray  # (P, T) float: rules.dig_seconds (inf: unbreakable)
    tool_rank: np.ndarray  # (P, T) int: rules.best_tool's preference, 0 first
    fixed_drops: np.ndarray  # (P, I) int: drops that always come (minecraft-data's)
    drop_slot: np.ndarray  # (P,) int: slot of the world file's random drop, -1 if none
    drop_cdf: np.ndarray  # (P, K) float: cumulative weights of its counts
    drop_counts: np.ndarray  # (P, K) int
    place_block: np.ndarray  # (I,) int: palette index an item places, -1 if it cannot be placed
    values: np.ndarray  # (N, I) float: emeralds per item for each player (sorted names)
    recipe_in: np.ndarray  # (R, I) int: what one run of each crafted item's recipe takes
    recipe_out: np.ndarray  # (R,) int: slot of the item it makes
    recipe_count: np.ndarray  # (R,) int: how many it makes
    recipe_table: np.ndarray  # (R,) bool: it needs a crafting table

    def block(self, name: str) -> int:
        return self.palette.index(name)

    def slot(self, name: str) -> int:
        return self.items.index(name)

    def expected_drops(self, block: int) -> dict[str, float]:
        """Mean yield of harvesting palette block `block`, from the tables (tests compare it with game.py)."""
        out = {self.items[i]: float(n) for i, n in enumerate(self.fixed_drops[block]) if n}
        if self.drop_slot[block] >= 0:
            weights = np.diff(self.drop_cdf[block], prepend=0.0)
            out[self.items[self.drop_slot[block]]] = float(weights @ self.drop_counts[block])
        return out


def world_blocks(spec: WorldSpec) -> set[str]:
    """Every block that can appear without players placing items: the map, the rules' blocks, walls."""
    names = {"air", WALL, *spec.blocks.values()}
    for rule in spec.rules:
        names.add(rule.block)
        names.update(c.block for c in rule.when)
        if not isinstance(rule, GrowRule) and rule.probability_from is not None:
            names.add(rule.probability_from.block)
        if hasattr(rule, "on"):
            names.update(rule.on)
    return names


def compile_tables(spec: WorldSpec, crafts: tuple[str, ...] = ()) -> StepTables:
    """The tables of `spec`; `crafts`: the items the env's "craft:ITEM" actions make (their first
    recipe in minecraft-data, the one rules.plan_craft tries first)."""
    state = _scratch(spec)
    missing = [c for c in crafts if not state.data.recipes.get(c)]
    if missing:
        raise UserError(f"no crafting recipe for {', '.join(missing)} (expected craft:ITEM with a craftable item)")
    recipes = [state.data.recipes[c][0] for c in crafts]
    blocks, items = _closure(spec, state, {i for r in recipes for i in (r.result, *r.ingredients)})
    palette = ("air", *sorted(blocks - {"air"}))
    item_names = tuple(sorted(items))
    tools: tuple[str | None, ...] = (None, *sorted(i for i in item_names if i in state.data.tools()))
    P, I, T = len(palette), len(item_names), len(tools)
    solid = np.array([state.data.blocks[b].solid for b in palette])
    harvest = np.array([[rules.can_harvest(state, b, t) for t in tools] for b in palette], dtype=bool)
    seconds = np.array([[rules.dig_seconds(state, b, t) for t in tools] for b in palette], dtype=float)
    rank = np.array([_tool_ranks(state, b, tools) for b in palette], dtype=np.int64)
    fixed = np.zeros((P, I), dtype=np.int64)
    drop_slot = np.full(P, -1, dtype=np.int64)
    K = max([len(d.counts) for d in spec.drops.values()] or [1])
    cdf = np.ones((P, K))
    counts = np.zeros((P, K), dtype=np.int64)
    for p, b in enumerate(palette):
        drop = spec.drops.get(b)
        if drop is None:
            for item in state.data.blocks[b].drops:
                fixed[p, item_names.index(item)] += 1
            continue
        drop_slot[p] = item_names.index(drop.item)
        k = len(drop.counts)
        cdf[p, :k] = drop.cdf
        counts[p, :k] = drop.counts
        counts[p, k:] = drop.counts[-1]
    place_block = np.array([palette.index(i) if i in palette and i != NOT_CHEST else -1 for i in item_names], dtype=np.int64)
    players = sorted(spec.players)
    values = np.array([[spec.value(p, i) for i in item_names] for p in players], dtype=float).reshape(len(players), I)
    return StepTables(
        palette=palette, items=item_names, tools=tools,
        tool_slot=np.array([-1 if t is None else item_names.index(t) for t in tools], dtype=np.int64),
        solid=solid, diggable=np.array([_diggable(state, b) for b in palette]),
        replaceable=np.array([_replaceable(state, b) for b in palette]),
        harvest=harvest, dig_seconds=seconds, tool_rank=rank, fixed_drops=fixed, drop_slot=drop_slot,
        drop_cdf=cdf, drop_counts=counts, place_block=place_block, values=values,
        recipe_in=np.array([[r.ingredients.get(i, 0) for i in item_names] for r in recipes], dtype=np.int64).reshape(len(recipes), I),
        recipe_out=np.array([item_names.index(r.result) for r in recipes], dtype=np.int64),
        recipe_count=np.array([r.count for r in recipes], dtype=np.int64),
        recipe_table=np.array([r.needs_table for r in recipes], dtype=bool),
    )


def _scratch(spec: WorldSpec) -> WorldState:
    """A throwaway copy of the world on which game.py is asked about each block."""
    state = WorldState(spec, seed=0)
    state.positions = {}
    state.inventories = {"_probe": Counter()}
    return state


def _closure(spec: WorldSpec, state: WorldState, crafted: set[str] = frozenset()) -> tuple[set[str], set[str]]:  # type: ignore[assignment]
    """Blocks and items reachable by digging, placing and the env's crafts, starting from the world file's."""
    data = state.data
    blocks = world_blocks(spec)
    items = {"emerald", *crafted}
    for p in spec.players.values():
        items.update(p.inventory, p.values)
    for c in spec.chests.values():
        items.update(c.items)
    while True:
        before = (len(blocks), len(items))
        for b in list(blocks):
            drop = spec.drops.get(b)
            items.update([drop.item] if drop else data.blocks[b].drops)
        blocks.update(i for i in items if data.is_block(i) and i != NOT_CHEST)
        if (len(blocks), len(items)) == before:
            return blocks, items


def _probe_cell(state: WorldState) -> Vec:
    o, s = state.spec.origin, state.spec.size
    return (o[0], o[1] + min(1, s[1] - 1), o[2])


def _diggable(state: WorldState, block: str) -> bool:
    pos = _probe_cell(state)
    state.grid.set(pos, state.block_id(block))
    state.chests.pop(pos, None)
    try:
        rules.dig(state, "_probe", pos, None)
    except rules.RuleError:
        return False
    return True


def _replaceable(state: WorldState, block: str) -> bool:
    pos = _probe_cell(state)
    below = (pos[0], pos[1] - 1, pos[2])
    if state.grid.in_bounds(below):
        state.grid.set(below, state.block_id("stone"))
    state.grid.set(pos, state.block_id(block))
    state.inventories["_probe"] = Counter({"dirt": 1})
    try:
        rules.place(state, "_probe", "dirt", pos)
    except rules.RuleError:
        return False
    return True


def _tool_ranks(state: WorldState, block: str, tools: tuple[str | None, ...]) -> list[int]:
    """Each tool's place in rules.best_tool's order for `block`: ask it again with the chosen one removed."""
    left = [t for t in tools if t is not None]
    rank = {}
    while True:
        state.inventories["_probe"] = Counter({t: 1 for t in left})
        best = rules.best_tool(state, "_probe", block)
        rank[best] = len(rank)
        if best is None:
            break
        left.remove(best)
    return [rank.get(t, len(tools)) for t in tools]
