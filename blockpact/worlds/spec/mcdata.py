"""Block, item, recipe and tool data for one Minecraft version, from minecraft-data (a shipped extract of it
for the pinned version, see `mcdata_extract`; the npm package for any other version).

The simulator and the embedded server read the same JSON, so a rule such as "a stone pickaxe cannot
harvest diamond ore" or the dig time of iron ore is never restated by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from blockpact.config import NODE_MODULES, read_toml
from blockpact.errors import UserError
from blockpact.worlds.spec.mcdata_extract import EXTRACT_DIR, NODE_DATA_ROOT, extract_path, node_data_paths, read_node_raw


@dataclass(frozen=True)
class Block:
    id: int
    name: str
    hardness: float | None  # None: unbreakable
    material: str
    harvest_tools: frozenset[str]  # item names; empty: anything (even a hand) harvests it
    drops: tuple[str, ...]  # item names dropped when harvested without silk touch
    solid: bool  # has a full collision box (walls, floors)


@dataclass(frozen=True)
class Recipe:
    result: str
    count: int
    ingredients: dict[str, int]  # item name -> count per craft
    width: int  # grid size it needs: 1-2 fit the inventory grid, 3 needs a crafting table
    height: int

    @property
    def needs_table(self) -> bool:
        return self.width > 2 or self.height > 2


@dataclass
class MinecraftData:
    version: str
    blocks: dict[str, Block]
    block_names_by_id: dict[int, str]
    items: dict[str, int]  # name -> item id
    stack_sizes: dict[str, int]
    recipes: dict[str, list[Recipe]]  # result item name -> recipes in minecraft-data order
    tool_speeds: dict[str, dict[str, float]]  # material -> tool item name -> speed multiplier
    _material_cache: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)
    _tools: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def block(self, name: str) -> Block:
        return self.blocks[name]

    def is_item(self, name: str) -> bool:
        return name in self.items

    def is_block(self, name: str) -> bool:
        return name in self.blocks

    def tool_speed(self, material: str, tool: str | None) -> float:
        """Speed multiplier of `tool` on blocks of `material` (1 for a hand or the wrong tool)."""
        if tool is None:
            return 1.0
        speeds = self._material_cache.get(material)
        if speeds is None:
            speeds = {}
            # Compound materials ("plant;mineable/axe") take the best of their parts.
            for part in material.split(";"):
                for t, s in self.tool_speeds.get(part, {}).items():
                    speeds[t] = max(speeds.get(t, 1.0), s)
            self._material_cache[material] = speeds
        return speeds.get(tool, 1.0)

    def tools(self) -> frozenset[str]:
        """Every tool item; computed once (the simulator asks at every dig, ~16k times a run)."""
        if self._tools is None:
            self._tools = frozenset(t for speeds in self.tool_speeds.values() for t in speeds)
        return self._tools


def available_versions() -> list[str]:
    """Versions with data: the shipped extracts, plus whatever minecraft-data in node_modules knows."""
    shipped = {p.stem for p in EXTRACT_DIR.glob("*.json")}
    try:
        return sorted(shipped | set(node_data_paths()))
    except UserError:
        return sorted(shipped)


def _read_raw(version: str) -> dict:
    """The raw blocks/items/materials/recipes of `version`: the shipped extract when there is one
    (so an installed wheel needs no Node), else minecraft-data from node_modules."""
    path = extract_path(version)
    if path.exists():
        with open(path) as f:
            return json.load(f)
    if not NODE_DATA_ROOT.exists():
        shipped = ", ".join(sorted(p.stem for p in EXTRACT_DIR.glob("*.json"))) or "none"
        raise UserError(
            f"no data for Minecraft version {version!r}: blockpact ships {shipped}, and minecraft-data is not "
            f"installed ({NODE_DATA_ROOT} is missing; run `npm ci` in {NODE_MODULES.parent} for other versions)"
        )
    return read_node_raw(version)


@cache
def load(version: str) -> MinecraftData:
    """Data for `version` (cached: the JSON is read once per process)."""
    raw = _read_raw(version)
    raw_items = raw["items"]
    item_names = {i["id"]: i["name"] for i in raw_items}
    raw_blocks = raw["blocks"]
    blocks: dict[str, Block] = {}
    for b in raw_blocks:
        hardness = b.get("hardness")
        blocks[b["name"]] = Block(
            id=b["id"],
            name=b["name"],
            hardness=None if hardness is None or hardness < 0 else float(hardness),
            material=b.get("material", "default"),
            harvest_tools=frozenset(item_names[int(i)] for i in b.get("harvestTools", {})),
            drops=tuple(item_names[d] for d in b.get("drops", []) if d in item_names and d != 0),
            solid=b.get("boundingBox") == "block",
        )
    raw_materials = raw["materials"]
    tool_speeds = {m: {item_names[int(t)]: float(s) for t, s in speeds.items()} for m, speeds in raw_materials.items()}
    recipes: dict[str, list[Recipe]] = {}
    for result_id, variants in raw["recipes"].items():
        for v in variants:
            recipe = _parse_recipe(v, item_names)
            if recipe is not None:
                recipes.setdefault(recipe.result, []).append(recipe)
    return MinecraftData(
        version=version,
        blocks=blocks,
        block_names_by_id={b.id: b.name for b in blocks.values()},
        items={i["name"]: i["id"] for i in raw_items},
        stack_sizes={i["name"]: i.get("stackSize", 64) for i in raw_items},
        recipes=recipes,
        tool_speeds=tool_speeds,
    )


def _parse_recipe(raw: dict, item_names: dict[int, str]) -> Recipe | None:
    result = raw["result"]
    result_id = result["id"] if isinstance(result, dict) else result
    count = result.get("count", 1) if isinstance(result, dict) else 1
    ingredients: dict[str, int] = {}

    def add(entry: object) -> bool:
        item_id = entry["id"] if isinstance(entry, dict) else entry
        if item_id is None or item_id == -1:
            return True
        if item_id not in item_names:
            return False
        name = item_names[item_id]
        ingredients[name] = ingredients.get(name, 0) + 1
        return True

    if "inShape" in raw:
        rows = raw["inShape"]
        height = len(rows)
        width = max((len(r) for r in rows), default=0)
        if not all(add(cell) for row in rows for cell in row):
            return None
    else:
        entries = raw.get("ingredients", [])
        if not all(add(e) for e in entries):
            return None
        n = len(entries)
        width = height = 1 if n <= 1 else 2 if n <= 4 else 3
    if result_id not in item_names or not ingredients:
        return None
    return Recipe(result=item_names[result_id], count=count, ingredients=ingredients, width=width, height=height)


def smelting_table() -> dict:
    """Furnace inputs and fuels (minecraft-data has no smelting recipes): blockpact's own data file."""
    return read_toml(Path(__file__).parent.parent / "data" / "smelting.toml")
