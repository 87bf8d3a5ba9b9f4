"""The mutable state of one world: blocks, inventories, chests, positions and the clock's time."""

from __future__ import annotations

from collections import Counter

import numpy as np

from blockpact.worlds.spec import mcdata
from blockpact.worlds.events import Event, EventLog
from blockpact.worlds.grid import Grid
from blockpact.worlds.spec.schema import Vec, WorldSpec


def build_grid(spec: WorldSpec, data: mcdata.MinecraftData) -> Grid:
    ids = np.zeros(spec.size, dtype=np.int16)
    for (x, y, z), name in spec.blocks.items():
        ids[x - spec.origin[0], y - spec.origin[1], z - spec.origin[2]] = data.blocks[name].id
    solid = np.zeros(max(data.block_names_by_id) + 1, dtype=bool)
    for block in data.blocks.values():
        solid[block.id] = block.solid
    return Grid(spec.origin, ids, solid)


class WorldState:
    """One live copy of a world. Changes go through methods that emit events, never behind their back."""

    def __init__(self, spec: WorldSpec, seed: int = 0) -> None:
        self.spec = spec
        self.seed = seed
        self.data = mcdata.load(spec.mc_version)
        self.grid = build_grid(spec, self.data)
        self.time = 0.0
        self.log = EventLog()
        self.inventories: dict[str, Counter[str]] = {p: Counter(s.inventory) for p, s in spec.players.items()}
        self.chests: dict[Vec, Counter[str]] = {pos: Counter(c.items) for pos, c in spec.chests.items()}
        self.positions: dict[str, Vec] = {p: s.spawn for p, s in spec.players.items()}
        self.held: dict[str, str | None] = {p: None for p in spec.players}
        self.drop_draws = 0  # draws taken from the (seed, DROPS) stream (rules/rng.py)
        self.players = sorted(spec.players)

    # -- blocks ------------------------------------------------------------------------------
    def block_at(self, p: Vec) -> str:
        if not self.grid.in_bounds(p):
            return "air"
        return self.data.block_names_by_id[self.grid.get(p)]

    def block_id(self, name: str) -> int:
        return self.data.blocks[name].id

    def set_block(self, p: Vec, name: str, agent: str | None, cause: str) -> None:
        old = self.block_at(p)
        self.grid.set(p, self.block_id(name))
        if old == "chest" and p in self.chests and name != "chest":
            del self.chests[p]
        if name == "chest" and p not in self.chests:
            self.chests[p] = Counter()
        self.emit(agent, "block", pos=list(p), old=old, new=name, cause=cause)

    def count_in_region(self, block: str, region: str) -> int:
        r = self.spec.regions[region]
        o = self.spec.origin
        sub = self.grid.ids[r.lo[0] - o[0] : r.hi[0] - o[0] + 1, r.lo[1] - o[1] : r.hi[1] - o[1] + 1, r.lo[2] - o[2] : r.hi[2] - o[2] + 1]
        return int(np.count_nonzero(sub == self.block_id(block)))

    def find_blocks(self, name: str, near: Vec, max_distance: float, count: int) -> list[Vec]:
        """Cells holding `name` within `max_distance` of `near`, nearest first (ties by coordinates)."""
        if not self.data.is_block(name):
            return []
        nx, ny, nz = near
        limit = max_distance * max_distance
        found = []
        for cell in self.grid.cells_of(self.block_id(name)):
            d2 = (cell[0] - nx) ** 2 + (cell[1] - ny) ** 2 + (cell[2] - nz) ** 2
            if d2 <= limit:
                found.append((d2, cell))
        found.sort()
        return [cell for _, cell in found[:count]]

    # -- items ---------------------------------------------------------------------------------
    def give(self, player: str, item: str, count: int, cause: str) -> None:
        if count == 0:
            return
        inv = self.inventories[player]
        inv[item] += count
        if inv[item] <= 0:
            del inv[item]
        self.emit(player, "inventory", item=item, delta=count, count=inv.get(item, 0), cause=cause)

    def move_items(self, source: Counter[str], target: Counter[str], item: str, count: int) -> int:
        moved = min(count, source.get(item, 0))
        if moved > 0:
            source[item] -= moved
            if source[item] == 0:
                del source[item]
            target[item] += moved
        return moved

    def reward(self, player: str) -> float:
        """What the player's inventory is worth to it, plus its share of owned or shared chests."""
        held = sum(self.spec.value(player, item) * n for item, n in self.inventories[player].items())
        for pos, contents in self.chests.items():
            chest = self.spec.chests.get(pos)
            share = chest.share(player, len(self.spec.players)) if chest is not None else 0.0
            if share:
                held += share * sum(self.spec.value(player, item) * n for item, n in contents.items())
        return float(held)

    # -- events --------------------------------------------------------------------------------
    def emit(self, agent: str | None, kind: str, **data: object) -> Event:
        event = Event(round(self.time, 6), agent, kind, data)
        self.log.emit(event)
        return event

    def snapshot(self) -> dict[str, object]:
        """What an observer needs to replay metrics from here: inventories, chests, rule-block counts."""
        counts, boxes = {}, {}
        for rule in self.spec.rules:
            for block, region in [(rule.block, rule.region), *((c.block, c.region) for c in rule.when)]:
                counts[f"{block}@{region}"] = self.count_in_region(block, region)
                box = self.spec.regions[region]
                boxes[region] = [list(box.lo), list(box.hi)]
        return {
            "inventories": {p: dict(inv) for p, inv in sorted(self.inventories.items())},
            "chests": {",".join(map(str, pos)): dict(c) for pos, c in sorted(self.chests.items())},
            "positions": {p: list(v) for p, v in sorted(self.positions.items())},
            "rewards": {p: self.reward(p) for p in self.players},
            "region_counts": counts,
            "region_boxes": boxes,
            "chest_owners": {",".join(map(str, pos)): c.owner for pos, c in sorted(self.spec.chests.items()) if c.owner},
        }
