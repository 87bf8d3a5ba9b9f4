"""The physical part of a world file: the map frame, its layers, regions, block lists and chests, read into
block placements. Each cell is placed once; a problem with a root cause elsewhere (no map, a region already
reported) is not reported again."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from blockpact.worlds.spec.schema import ChestSpec, Region, Vec
from blockpact.worlds.spec.value_reader import ValueReader, got

AIR_CHARS = {".", " "}
MAP_KEYS = {"origin", "size", "legend", "layers"}
LAYER_KEYS = {"y", "rows", "fill"}
REGION_KEYS = {"from", "to", "words"}
BLOCKS_KEYS = {"block", "region", "positions"}
CHEST_KEYS = {"name", "position", "items", "owner"}


class MapReader(ValueReader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.chest_paths: dict[Vec, str] = {}
        # One root cause, one line: no "outside the map" errors without a map, one per placement,
        # none for a region already reported; no "unknown region" for a region that failed to read.
        self.map_ok = True
        self.outside_reported: set[str] = set()
        self.broken_regions: set[str] = set()

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
            box = Region(name, tuple(map(min, lo, hi)), tuple(map(max, lo, hi)),  # type: ignore[arg-type]
                         self.region_words(region.get("words", []), f"{path}.words"))
            inside = [all(origin[i] <= corner[i] < origin[i] + size[i] for i in range(3)) for corner in (lo, hi)]
            if not all(inside):  # said at the line of the corner that is out (`from` when both are)
                key = "from" if not inside[0] else "to"
                self.outside(f"{path}.{key}", f"region {list(box.lo)}..{list(box.hi)} is not inside the map (expected within origin {list(origin)} and size {list(size)})")
                self.outside_reported.add(f"region {name}")
            regions[name] = box
        return regions

    def region_words(self, raw: Any, path: str) -> tuple[str, ...]:
        """`words = ["north field", ...]`: what else a contract may call the region (letters, digits, spaces)."""
        if not isinstance(raw, list) or not all(isinstance(w, str) and re.fullmatch(r"[A-Za-z0-9_ ]*[A-Za-z][A-Za-z0-9_ ]*", w) for w in raw):
            self.err(path, f"{got(raw)} (expected a list of names a contract may use for the region, e.g. [\"north field\"])")
            return ()
        return tuple(" ".join(w.replace("_", " ").split()) for w in raw)

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
