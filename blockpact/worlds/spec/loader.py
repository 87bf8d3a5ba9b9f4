"""Read a world file, check every part of it, and build a `WorldSpec`.

All problems are collected (not just the first) and each names its file, line and key path, so an
author can fix a world in one pass: `double_vein.toml:12: players.Gizmo.spawn: ... (expected ...)`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.config import default_mc_version
from blockpact.errors import UserError
from blockpact.settings import settings
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.drop_tables import default_drops
from blockpact.worlds.grid import within_reach
from blockpact.worlds.spec.rule_blocks import impossible_rule_blocks
from blockpact.worlds.spec.schema import (
    COMPARISONS,
    ChestSpec,
    Condition,
    Drop,
    GroupSpec,
    GrowRule,
    PlayerSpec,
    ProbabilityFrom,
    RegrowRule,
    Region,
    Rule,
    SpawnRule,
    Vec,
    WorldSpec,
)
from blockpact.toml_lines import LineIndex

BUILTIN_DIR = Path(__file__).parent.parent / "builtin"
AIR_CHARS = {".", " "}
CONDITION = re.compile(r"^\s*([a-z0-9_]+)\s+in\s+([A-Za-z0-9_-]+)\s*(<=|>=|==|!=|<|>)\s*(\d+)\s*$")

TOP_KEYS = {"world", "map", "regions", "blocks", "chests", "players", "harvest", "drops", "dynamics", "episode", "groups"}
GROUP_KEYS = {"name", "members", "share", "from", "until", "shared_observation"}
WORLD_KEYS = {"name", "title", "description", "minecraft_version"}
MAP_KEYS = {"origin", "size", "legend", "layers"}
LAYER_KEYS = {"y", "rows", "fill"}
REGION_KEYS = {"from", "to"}
BLOCKS_KEYS = {"block", "region", "positions"}
CHEST_KEYS = {"name", "position", "items", "owner"}
PLAYER_KEYS = {"spawn", "inventory", "values", "briefing"}
HARVEST_KEYS = {"tools"}
DROP_KEYS = {"item", "counts", "weights"}
EPISODE_KEYS = {"seconds", "length_known", "reference_welfare", "reference_method"}
PROBABILITY_FROM_KEYS = {"block", "region", "full_at", "zero_at"}
RULE_KEYS = {
    "regrow": {"rule", "block", "region", "probability", "probability_from", "when"},
    "spawn": {"rule", "block", "region", "probability", "probability_from", "on", "cap", "per", "when"},
    "grow": {"rule", "block", "region", "every", "factor", "cap", "on", "when"},
}


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.path}: {self.message}"


class WorldSpecError(UserError):
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("invalid world:\n" + "\n".join(str(p) for p in problems))


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def resolve_path(ref: str | Path) -> Path:
    """A built-in world name or a path to a world file."""
    path = Path(ref)
    if path.suffix == ".toml" or path.exists():
        if not path.exists():
            raise UserError(f"no world file {path}")
        return path
    builtin = BUILTIN_DIR / f"{ref}.toml"
    if builtin.exists():
        return builtin
    raise UserError(f"no world named {ref!r} (built-in worlds: {', '.join(builtin_names())}; or give a path to a .toml file)")


def validate_world(ref: str | Path, mc_version: str | None = None) -> list[Problem]:
    path = resolve_path(ref)
    try:
        _Builder(path, mc_version).build()
    except WorldSpecError as exc:
        return exc.problems
    return []


def load_world(ref: str | Path, mc_version: str | None = None) -> WorldSpec:
    """Load and check a world; raises `WorldSpecError` listing every problem."""
    return _Builder(resolve_path(ref), mc_version).build()


class _Builder:
    def __init__(self, path: Path, mc_version: str | None) -> None:
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        self.index = LineIndex(self.text)
        self.problems: list[Problem] = []
        self.chest_paths: dict[Vec, str] = {}
        self.mc_version_override = mc_version
        # One root cause, one line: no "outside the map" errors without a map, one per placement,
        # none for a region already reported; no "unknown region" for a region that failed to read.
        self.map_ok = True
        self.outside_reported: set[str] = set()
        self.broken_regions: set[str] = set()

    # -- reporting ---------------------------------------------------------------------------
    def err(self, path: str, message: str) -> None:
        self.problems.append(Problem(str(self.path), self.index.line_of(path), path, message))

    def unknown_keys(self, table: dict, allowed: set[str], path: str) -> None:
        for key in table:
            if key not in allowed:
                where = f"{path}.{key}" if path else key
                self.err(where, f"unknown key {key!r} (expected one of: {', '.join(sorted(allowed))})")

    # -- typed readers (report and return None when the value is wrong) -----------------------
    def table(self, value: Any, path: str) -> dict | None:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.err(path, f"expected a table, got {type(value).__name__}")
            return None
        return value

    def vec(self, value: Any, path: str) -> Vec | None:
        if (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            return (value[0], value[1], value[2])
        self.err(path, f"got {value!r} (expected a list of 3 integers [x, y, z])")
        return None

    def number(self, value: Any, path: str, lo: float | None = None, hi: float | None = None, what: str = "a number") -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.err(path, f"got {value!r} (expected {what})")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.err(path, f"{value} is out of range (expected {what})")
            return None
        return float(value)

    def integer(self, value: Any, path: str, lo: int | None = None, what: str = "an integer") -> int | None:
        if isinstance(value, float) and not value.is_integer():
            self.err(path, f"got {value!r}, which is not a whole number (expected {what})")
            return None
        if isinstance(value, bool) or not isinstance(value, int) or (lo is not None and value < lo):
            self.err(path, f"got {value!r} (expected {what})")
            return None
        return value

    def string(self, value: Any, path: str, what: str = "a string") -> str | None:
        if not isinstance(value, str):
            self.err(path, f"got {value!r} (expected {what})")
            return None
        return value

    def block_name(self, value: Any, path: str) -> str | None:
        name = self.string(value, path, "a block name")
        if name is not None and not self.data.is_block(name):
            self.err(path, f"unknown block {name!r} (expected a block name of Minecraft {self.data.version})")
            return None
        return name

    def item_name(self, value: Any, path: str) -> str | None:
        name = self.string(value, path, "an item name")
        if name is not None and not self.data.is_item(name):
            self.err(path, f"unknown item {name!r} (expected an item name of Minecraft {self.data.version})")
            return None
        return name

    def item_counts(self, value: Any, path: str) -> dict[str, int]:
        items: dict[str, int] = {}
        table = self.table(value, path)
        for name, count in (table or {}).items():
            if self.item_name(name, f"{path}.{name}") is None:
                continue
            n = self.integer(count, f"{path}.{name}", lo=0, what="a whole number of items >= 0")
            if n:
                items[name] = n
        return items

    # -- the world ---------------------------------------------------------------------------
    def build(self) -> WorldSpec:
        try:
            raw = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            line = re.search(r"line (\d+)", str(exc))
            self.problems.append(Problem(str(self.path), int(line.group(1)) if line else None, "(toml)", f"not valid TOML: {exc}"))
            raise WorldSpecError(self.problems) from None
        self.unknown_keys(raw, TOP_KEYS, "")
        world = self.table(raw.get("world"), "world") or {}
        self.unknown_keys(world, WORLD_KEYS, "world")
        version = self.mc_version_override or world.get("minecraft_version") or default_mc_version()
        try:
            self.data = mcdata.load(str(version))
        except UserError as exc:
            self.err("world.minecraft_version", str(exc))
            raise WorldSpecError(self.problems) from None

        name = self.string(world.get("name", self.path.stem), "world.name") or self.path.stem
        title = self.string(world.get("title", name), "world.title") or name
        description = self.string(world.get("description", ""), "world.description") or ""
        if not description.strip():
            self.err("world.description", "missing (expected the text the agents read about this world)")

        origin, size = self.read_map_frame(raw.get("map"))
        regions = self.read_regions(raw.get("regions"), origin, size)
        placements: dict[Vec, tuple[str, str]] = {}  # cell -> (block, where it was placed)
        self.read_layers(raw.get("map"), origin, size, placements)
        self.read_block_lists(raw.get("blocks"), regions, origin, size, placements)
        chests = self.read_chests(raw.get("chests"), origin, size, placements)
        players = self.read_players(raw.get("players"), origin, size)
        harvest = self.read_harvest(raw.get("harvest"))
        drops = {**default_drops(), **self.read_drops(raw.get("drops"))}  # the world's own tables win
        rules = self.read_rules(raw.get("dynamics"), regions)
        episode = self.table(raw.get("episode"), "episode") or {}
        self.unknown_keys(episode, EPISODE_KEYS, "episode")
        if "seconds" not in episode:
            self.err("episode", "missing key 'seconds' (expected the episode length in simulated seconds)")
        seconds = self.number(episode.get("seconds", 1), "episode.seconds", lo=1e-9, what="a number of seconds > 0")
        known = episode.get("length_known", True)
        if not isinstance(known, bool):
            self.err("episode.length_known", f"got {known!r} (expected true or false)")
        extra: dict[str, object] = {}
        if "reference_welfare" in episode:  # the world's own reference optimum, for GovSim's efficiency
            welfare = self.number(episode["reference_welfare"], "episode.reference_welfare", lo=1e-9,
                                  what="the best social welfare known for this world, in emeralds (> 0)")
            method = self.string(episode.get("reference_method", ""), "episode.reference_method", "how it was found")
            if welfare is not None and not (method or "").strip():
                self.err("episode.reference_welfare", "has no reference_method (expected a sentence saying how it was found)")
            extra["reference"] = {"welfare": welfare, "how": (method or "").strip()}

        blocks = {cell: block for cell, (block, _) in placements.items() if block != "air"}
        spec = WorldSpec(
            name=name, title=title, description=description.strip(), source=self.path,
            mc_version=self.data.version, origin=origin, size=size, blocks=blocks, regions=regions,
            chests=chests, players=players, harvest=harvest, drops=drops, rules=rules,
            episode_seconds=seconds or 1.0, length_known=bool(known), extra=extra,
            groups=self.read_groups(raw.get("groups"), players, seconds or 1.0),
        )
        for i, chest in enumerate(spec.chests.values()):
            if chest.owner not in (None, "shared", *players):
                where = self.chest_paths.get(chest.position, f"chests[{i}].position").replace(".position", ".owner")
                self.err(where, f"unknown owner {chest.owner!r} (expected a player, {', '.join(sorted(players))}, or \"shared\")")
        if not self.problems:
            for path, message in impossible_rule_blocks(spec, self.data):
                self.err(path, message)
        if not self.problems:
            self.check_reachability(spec)
        if self.problems:
            raise WorldSpecError(self.problems)
        return spec

    def read_groups(self, raw: Any, players: dict[str, PlayerSpec], seconds: float) -> tuple[GroupSpec, ...]:
        """[[groups]]: name, members (players), share in [0, 1], from / until in seconds."""
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.err("groups", "expected an array of tables [[groups]]")
            return ()
        groups = []
        for i, entry in enumerate(raw):
            path = f"groups[{i}]"
            if self.table(entry, path) is None:
                continue
            self.unknown_keys(entry, GROUP_KEYS, path)
            name = self.string(entry.get("name", f"group{i}"), f"{path}.name") or f"group{i}"
            members = entry.get("members")
            if not isinstance(members, list) or len(members) < 2 or not all(isinstance(m, str) for m in members):
                self.err(f"{path}.members", f"got {members!r} (expected a list of at least two player names)")
                continue
            unknown = [m for m in members if m not in players]
            if unknown and players:
                self.err(f"{path}.members", f"unknown player {', '.join(map(repr, unknown))} (expected players: {', '.join(sorted(players))})")
                continue
            share = self.number(entry.get("share", 1.0), f"{path}.share", 0.0, 1.0, "a fraction of rewards in [0, 1]")
            start = self.number(entry.get("from", 0.0), f"{path}.from", 0.0, seconds, f"a time in seconds in [0, {seconds:g}]")
            end = self.number(entry["until"], f"{path}.until", 0.0, seconds, f"a time in seconds in [0, {seconds:g}]") if "until" in entry else None
            if start is not None and end is not None and end <= start:
                self.err(f"{path}.until", f"{end:g} is not after from = {start:g} (expected a later time)")
                continue
            shared = entry.get("shared_observation", False)
            if not isinstance(shared, bool):
                self.err(f"{path}.shared_observation", f"got {shared!r} (expected true or false)")
                continue
            if share is not None and start is not None:
                groups.append(GroupSpec(name, tuple(dict.fromkeys(members)), share, start, end, shared))
        return tuple(groups)

    def read_map_frame(self, raw: Any) -> tuple[Vec, Vec]:
        table = self.table(raw, "map")
        if not table:
            self.err("map", "missing (expected [map] with origin, size and layers or [[blocks]])")
            self.map_ok = False
            return (0, 0, 0), (1, 1, 1)
        self.unknown_keys(table, MAP_KEYS, "map")
        origin = self.vec(table.get("origin"), "map.origin")
        size = self.vec(table.get("size"), "map.size")
        if size is not None and any(s <= 0 for s in size):
            self.err("map.size", f"got {list(size)} (expected positive extents along x, y, z)")
            size = None
        if origin is None or size is None:
            self.map_ok = False
        origin, size = origin or (0, 0, 0), size or (1, 1, 1)
        return origin, size

    def outside(self, where: str, message: str) -> None:
        """An "outside the map" problem, reported once per placement and never without a valid map."""
        if self.map_ok and where not in self.outside_reported:
            self.outside_reported.add(where)
            self.err(where, message)

    def place(self, placements: dict[Vec, tuple[str, str]], cell: Vec, block: str, where: str, origin: Vec, size: Vec) -> None:
        if not all(origin[i] <= cell[i] < origin[i] + size[i] for i in range(3)):
            self.outside(where, f"cell {list(cell)} is outside the map (expected within origin {list(origin)} and size {list(size)})")
            return
        if cell in placements:
            other_block, other_where = placements[cell]
            self.err(where, f"overlapping placement: cell {list(cell)} already holds {other_block} from {other_where} (expected each cell placed once)")
            return
        placements[cell] = (block, where)

    def read_layers(self, raw: Any, origin: Vec, size: Vec, placements: dict) -> None:
        table = self.table(raw, "map") or {}
        legend_raw = self.table(table.get("legend"), "map.legend") or {}
        legend: dict[str, str] = {}
        reported: set[str] = set()  # legend characters already reported as wrong: no follow-on errors
        for char, block in legend_raw.items():
            path = f"map.legend.{char}"
            if len(char) != 1:
                self.err(path, f"legend key {char!r} is not one character (expected a single character)")
                continue
            name = self.block_name(block, path)
            if name:
                legend[char] = name
            else:
                reported.add(char)
        layers = table.get("layers", [])
        if not isinstance(layers, list):
            self.err("map.layers", "expected an array of tables [[map.layers]]")
            return
        for i, layer in enumerate(layers):
            path = f"map.layers[{i}]"
            if self.table(layer, path) is None:
                continue
            self.unknown_keys(layer, LAYER_KEYS, path)
            y = self.integer(layer.get("y"), f"{path}.y", what="the layer's y coordinate (an integer)")
            if y is None:
                continue
            if ("rows" in layer) == ("fill" in layer):
                self.err(path, "expected exactly one of 'rows' (ASCII rows along z) or 'fill' (one block for the whole layer)")
                continue
            if "fill" in layer:
                block = self.block_name(layer["fill"], f"{path}.fill")
                if block:
                    for x in range(origin[0], origin[0] + size[0]):
                        for z in range(origin[2], origin[2] + size[2]):
                            self.place(placements, (x, y, z), block, f"{path}.fill", origin, size)
                continue
            rows = layer["rows"]
            if not isinstance(rows, list) or not all(isinstance(r, str) for r in rows):
                self.err(f"{path}.rows", "expected a list of strings, one per z row")
                continue
            if len(rows) > size[2]:
                self.err(f"{path}.rows", f"{len(rows)} rows but the map is {size[2]} cells along z (expected at most {size[2]})")
            for dz, row in enumerate(rows):
                row_path = f"{path}.rows[{dz}]"
                if len(row) > size[0]:
                    self.err(row_path, f"row is {len(row)} characters but the map is {size[0]} cells along x (expected at most {size[0]})")
                for dx, char in enumerate(row):
                    if (char in AIR_CHARS and char not in legend) or char in reported:
                        continue
                    if char not in legend:
                        self.err(row_path, f"character {char!r} at column {dx} is not in map.legend (expected one of: {', '.join(sorted(legend)) or 'none defined'})")
                        continue
                    if legend[char] == "air":
                        continue
                    self.place(placements, (origin[0] + dx, y, origin[2] + dz), legend[char], row_path, origin, size)

    def read_regions(self, raw: Any, origin: Vec, size: Vec) -> dict[str, Region]:
        regions: dict[str, Region] = {}
        for name, region in (self.table(raw, "regions") or {}).items():
            path = f"regions.{name}"
            if self.table(region, path) is None:
                continue
            self.unknown_keys(region, REGION_KEYS, path)
            lo = self.vec(region.get("from"), f"{path}.from")
            hi = self.vec(region.get("to"), f"{path}.to")
            if lo is None or hi is None:
                self.broken_regions.add(name)
                continue
            lo, hi = tuple(map(min, lo, hi)), tuple(map(max, lo, hi))
            box = Region(name, lo, hi)  # type: ignore[arg-type]
            if not all(origin[i] <= box.lo[i] and box.hi[i] < origin[i] + size[i] for i in range(3)):
                self.outside(path, f"region {list(box.lo)}..{list(box.hi)} is not inside the map (expected within origin {list(origin)} and size {list(size)})")
                self.outside_reported.add(f"region {name}")
            regions[name] = box
        return regions

    def read_block_lists(self, raw: Any, regions: dict[str, Region], origin: Vec, size: Vec, placements: dict) -> None:
        if raw is None:
            return
        if not isinstance(raw, list):
            self.err("blocks", "expected an array of tables [[blocks]]")
            return
        for i, entry in enumerate(raw):
            path = f"blocks[{i}]"
            if self.table(entry, path) is None:
                continue
            self.unknown_keys(entry, BLOCKS_KEYS, path)
            block = self.block_name(entry.get("block"), f"{path}.block")
            if block is None:
                continue
            if ("region" in entry) == ("positions" in entry):
                self.err(path, "expected exactly one of 'region' (fill a named region) or 'positions' (a list of [x, y, z])")
                continue
            if "region" in entry:
                region = self.region_ref(entry["region"], f"{path}.region", regions)
                if region is not None and f"region {region.name}" in self.outside_reported:
                    self.outside_reported.add(f"{path}.region")  # the region's own line says it all
                for cell in region.cells() if region else ():
                    self.place(placements, cell, block, f"{path}.region", origin, size)
            else:
                positions = entry["positions"]
                if not isinstance(positions, list):
                    self.err(f"{path}.positions", "expected a list of [x, y, z]")
                    continue
                for j, pos in enumerate(positions):
                    cell = self.vec(pos, f"{path}.positions[{j}]")
                    if cell:
                        self.place(placements, cell, block, f"{path}.positions[{j}]", origin, size)

    def region_ref(self, value: Any, path: str, regions: dict[str, Region]) -> Region | None:
        name = self.string(value, path, "a region name")
        if name is None:
            return None
        if name in self.broken_regions:
            return None  # already reported where the region is defined
        if name not in regions:
            self.err(path, f"unknown region {name!r} (expected one of: {', '.join(sorted(regions)) or 'none defined'})")
            return None
        return regions[name]

    def read_chests(self, raw: Any, origin: Vec, size: Vec, placements: dict) -> dict[Vec, ChestSpec]:
        chests: dict[Vec, ChestSpec] = {}
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            self.err("chests", "expected an array of tables [[chests]]")
            return chests
        for i, entry in enumerate(raw):
            path = f"chests[{i}]"
            if self.table(entry, path) is None:
                continue
            self.unknown_keys(entry, CHEST_KEYS, path)
            pos = self.vec(entry.get("position"), f"{path}.position")
            if pos is None:
                continue
            if pos in chests:
                self.err(f"{path}.position", f"a chest at {list(pos)} is already declared (expected one entry per chest)")
                continue
            existing = placements.get(pos)
            if existing is None:
                self.place(placements, pos, "chest", f"{path}.position", origin, size)
            elif existing[0] != "chest":
                self.err(f"{path}.position", f"overlapping placement: cell {list(pos)} already holds {existing[0]} from {existing[1]} (expected a chest or air there)")
                continue
            name = self.string(entry.get("name", f"chest{i}"), f"{path}.name") or f"chest{i}"
            owner = self.string(entry["owner"], f"{path}.owner", 'a player\'s name or "shared"') if "owner" in entry else None
            chests[pos] = ChestSpec(name, pos, self.item_counts(entry.get("items"), f"{path}.items"), owner)
            self.chest_paths[pos] = f"{path}.position"
        for cell, (block, _) in placements.items():
            if block == "chest" and cell not in chests:
                chests[cell] = ChestSpec(f"chest{len(chests)}", cell, {})
        return chests

    def read_players(self, raw: Any, origin: Vec, size: Vec) -> dict[str, PlayerSpec]:
        players: dict[str, PlayerSpec] = {}
        table = self.table(raw, "players")
        if not table:
            self.err("players", "missing (expected at least one [players.NAME] table)")
            return players
        for name, player in table.items():
            path = f"players.{name}"
            if not re.fullmatch(r"[A-Za-z0-9_]{1,16}", name):
                self.err(path, f"player name {name!r} is not a Minecraft user name (expected 1-16 letters, digits or _)")
            if self.table(player, path) is None:
                continue
            self.unknown_keys(player, PLAYER_KEYS, path)
            if "spawn" not in player:
                self.err(path, "player has no spawn (expected spawn = [x, y, z])")
                continue
            spawn = self.vec(player["spawn"], f"{path}.spawn")
            if spawn is None:
                continue
            if not all(origin[i] <= spawn[i] < origin[i] + size[i] for i in range(3)):
                self.outside(f"{path}.spawn", f"spawn {list(spawn)} is outside the map (expected within origin {list(origin)} and size {list(size)})")
                continue
            values: dict[str, float] = {}
            for item, v in (self.table(player.get("values"), f"{path}.values") or {}).items():
                if self.item_name(item, f"{path}.values.{item}") is not None:
                    value = self.number(v, f"{path}.values.{item}", what="a value in emeralds")
                    if value is not None:
                        values[item] = value
            briefing = self.string(player.get("briefing", ""), f"{path}.briefing", "the text only this player reads") or ""
            players[name] = PlayerSpec(name, spawn, self.item_counts(player.get("inventory"), f"{path}.inventory"), values,
                                       briefing.strip())
        return players

    def read_harvest(self, raw: Any) -> dict[str, frozenset[str]]:
        harvest: dict[str, frozenset[str]] = {}
        for block, entry in (self.table(raw, "harvest") or {}).items():
            path = f"harvest.{block}"
            if self.block_name(block, path) is None or self.table(entry, path) is None:
                continue
            self.unknown_keys(entry, HARVEST_KEYS, path)
            tools = entry.get("tools")
            if not isinstance(tools, list):
                self.err(f"{path}.tools", "expected a list of tool item names ([] = any tool or a bare hand)")
                continue
            names = [self.item_name(t, f"{path}.tools[{j}]") for j, t in enumerate(tools)]
            harvest[block] = frozenset(n for n in names if n)
        return harvest

    def read_drops(self, raw: Any) -> dict[str, Drop]:
        drops: dict[str, Drop] = {}
        for block, entry in (self.table(raw, "drops") or {}).items():
            path = f"drops.{block}"
            if self.block_name(block, path) is None or self.table(entry, path) is None:
                continue
            self.unknown_keys(entry, DROP_KEYS, path)
            item = self.item_name(entry.get("item"), f"{path}.item")
            counts = entry.get("counts", [1])
            # Without weights every count is equally likely.
            weights = entry.get("weights", [1.0 / len(counts)] * len(counts) if isinstance(counts, list) and counts else [])
            if not isinstance(counts, list) or not all(isinstance(c, int) and c >= 0 for c in counts) or not counts:
                self.err(f"{path}.counts", f"got {counts!r} (expected a non-empty list of counts >= 0)")
                continue
            if not isinstance(weights, list) or len(weights) != len(counts):
                self.err(f"{path}.weights", f"got {weights!r} (expected one probability per count, {len(counts)} in all)")
                continue
            probs = [self.number(w, f"{path}.weights[{j}]", 0.0, 1.0, "a probability in [0, 1]") for j, w in enumerate(weights)]
            if any(p is None for p in probs):
                continue
            if abs(sum(probs) - 1.0) > 1e-6:  # type: ignore[arg-type]
                self.err(f"{path}.weights", f"probabilities sum to {sum(probs):g} (expected 1)")  # type: ignore[arg-type]
                continue
            if item:
                drops[block] = Drop(item, tuple(counts), tuple(probs))  # type: ignore[arg-type]
        return drops

    def read_conditions(self, raw: Any, path: str, regions: dict[str, Region]) -> tuple[Condition, ...]:
        if raw is None:
            return ()
        texts = [raw] if isinstance(raw, str) else raw
        if not isinstance(texts, list):
            self.err(path, "expected a condition string or a list of them, like \"slime_block in river <= 7\"")
            return ()
        out = []
        for j, text in enumerate(texts):
            where = path if isinstance(raw, str) else f"{path}[{j}]"
            m = CONDITION.match(text) if isinstance(text, str) else None
            if not m:
                self.err(where, f"cannot read condition {text!r} (expected \"BLOCK in REGION OP COUNT\" with OP one of {' '.join(COMPARISONS)})")
                continue
            block = self.block_name(m.group(1), where)
            region = self.region_ref(m.group(2), where, regions)
            if block and region:
                out.append(Condition(block, region.name, m.group(3), int(m.group(4))))
        return tuple(out)

    def read_rules(self, raw: Any, regions: dict[str, Region]) -> list[Rule]:
        rules: list[Rule] = []
        if raw is None:
            return rules
        if not isinstance(raw, list):
            self.err("dynamics", "expected an array of tables [[dynamics]]")
            return rules
        for i, entry in enumerate(raw):
            path = f"dynamics[{i}]"
            if self.table(entry, path) is None:
                continue
            kind = entry.get("rule")
            if kind not in RULE_KEYS:
                self.err(f"{path}.rule", f"got {kind!r} (expected one of: {', '.join(RULE_KEYS)})")
                continue
            self.unknown_keys(entry, RULE_KEYS[kind], path)
            block = self.block_name(entry.get("block"), f"{path}.block")
            region = self.region_ref(entry.get("region"), f"{path}.region", regions)
            when = self.read_conditions(entry.get("when"), f"{path}.when", regions)
            if kind in ("regrow", "spawn"):
                prob = self.number(entry.get("probability"), f"{path}.probability", 0.0, 1.0, "a probability per second in [0, 1]")
                scale = self.read_probability_from(entry.get("probability_from"), f"{path}.probability_from", regions)
            if kind in ("spawn", "grow"):
                on_raw = entry.get("on", ["air"])
                on_list = on_raw if isinstance(on_raw, list) else [on_raw]
                on_paths = [f"{path}.on[{j}]" for j in range(len(on_list))] if isinstance(on_raw, list) else [f"{path}.on"]
                on = tuple(n for b, where in zip(on_list, on_paths) if (n := self.block_name(b, where)))
                cap = None if "cap" not in entry else self.integer(entry["cap"], f"{path}.cap", lo=0, what="a whole number of blocks >= 0")
            if block is None or region is None:
                continue
            if kind == "regrow" and prob is not None:
                rules.append(RegrowRule(block, region.name, prob, when, probability_from=scale))
            elif kind == "spawn" and prob is not None:
                per = entry.get("per", "region")
                if per not in ("region", "cell"):
                    self.err(f"{path}.per", f"got {per!r} (expected \"region\" or \"cell\")")
                    continue
                rules.append(SpawnRule(block, region.name, prob, on, cap, per, when, probability_from=scale))
            elif kind == "grow":
                every = self.number(entry.get("every"), f"{path}.every", lo=1e-9, what="a period in seconds > 0")
                factor = self.number(entry.get("factor"), f"{path}.factor", lo=0.0, what="a growth factor >= 0")
                if every is not None and factor is not None:
                    rules.append(GrowRule(block, region.name, every, factor, cap, on, when))
        return rules

    def read_probability_from(self, raw: Any, path: str, regions: dict[str, Region]) -> ProbabilityFrom | None:
        """`{ block, region, full_at, zero_at }`: the probability falls linearly as the block's fraction of the region goes from full_at to zero_at."""
        if raw is None:
            return None
        table = self.table(raw, path)
        if table is None:
            return None
        self.unknown_keys(table, PROBABILITY_FROM_KEYS, path)
        block = self.block_name(table.get("block"), f"{path}.block")
        region = self.region_ref(table.get("region"), f"{path}.region", regions)
        ends = [self.number(table.get(k), f"{path}.{k}", 0.0, 1.0, "a fraction of the region in [0, 1]") for k in ("full_at", "zero_at")]
        if ends[0] is not None and ends[0] == ends[1]:
            self.err(f"{path}.zero_at", f"equals full_at {ends[0]:g} (expected a different fraction, where the probability reaches 0)")
            return None
        if block is None or region is None or ends[0] is None or ends[1] is None:
            return None
        return ProbabilityFrom(block, region.name, ends[0], ends[1])

    def check_reachability(self, spec: WorldSpec) -> None:
        """Players must stand somewhere sensible, and every chest must be reachable by some player."""
        from blockpact.worlds.state import build_grid

        reach = settings().simulator.reach
        grid = build_grid(spec, self.data)
        walkable: set[Vec] = set()
        for name, player in spec.players.items():
            if not grid.standable(player.spawn):
                self.err(f"players.{name}.spawn", f"cannot stand at {list(player.spawn)} (expected two free cells above solid ground)")
                continue
            walkable.update(grid.distances(player.spawn))
        for pos, chest in spec.chests.items():
            near = (c for c in walkable if abs(c[0] - pos[0]) <= 5 and abs(c[2] - pos[2]) <= 5 and abs(c[1] - pos[1]) <= 5)
            if walkable and not any(within_reach(c, pos, reach) for c in near):
                self.err(self.chest_paths.get(pos, "chests"), f"chest {chest.name!r} at {list(pos)} cannot be reached by any player (expected a standable cell within {reach} blocks)")
