"""Read a world file, check every part of it, and build a `WorldSpec` (the map in map_reader.py, the dynamics in
dynamics_reader.py, typed values in value_reader.py; the checks that need the world model, and finding the file,
in worlds/world_files.py).

All problems are collected (not just the first) and each names its file, line and key path, so an
author can fix a world in one pass: `double_vein.toml:12: players.Gizmo.spawn: ... (expected ...)`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from blockpact.settings import default_mc_version
from blockpact.errors import UserError
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.drop_tables import default_drops
from blockpact.worlds.spec.dynamics_reader import DynamicsReader
from blockpact.worlds.spec.institution import KEYS as INSTITUTION_KEYS, InstitutionSpec, parse_institution
from blockpact.worlds.spec.place_names import clashing_names
from blockpact.worlds.spec.rule_blocks import impossible_rule_blocks
from blockpact.worlds.spec.schema import Drop, GroupSpec, PlayerSpec, Vec, WorldSpec
from blockpact.worlds.spec.value_reader import Problem, WorldSpecError, got

class _InstitutionProblem(Exception):
    """(key, message) of the first thing wrong in [institution], reported as one of the world's problems."""


TOP_KEYS = {"world", "map", "regions", "blocks", "chests", "players", "harvest", "drops", "dynamics", "episode", "groups",
            "institution"}
GROUP_KEYS = {"name", "members", "share", "from", "until", "shared_observation"}
WORLD_KEYS = {"name", "title", "description", "minecraft_version"}
PLAYER_KEYS = {"spawn", "inventory", "values", "briefing"}
HARVEST_KEYS = {"tools"}
DROP_KEYS = {"item", "counts", "weights"}
EPISODE_KEYS = {"seconds", "length_known", "reference_welfare", "reference_method"}


class WorldReader(DynamicsReader):
    """One world file read into a `WorldSpec`; `problems` lists what is wrong with it."""

    def __init__(self, path: Path, mc_version: str | None) -> None:
        super().__init__(path)
        self.mc_version_override = mc_version

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
            self.err("episode.length_known", f"{got(known)} (expected true or false)")
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
            institution=self.read_institution(raw.get("institution"), sorted(players)),
        )
        for place, message in clashing_names(regions, list(chests.values())):
            kind, name = place.split(" ", 1)
            pos = next((c.position for c in chests.values() if c.name == name), None)
            self.err(self.chest_paths.get(pos, "chests").replace(".position", ".name") if kind == "chest" else f"regions.{name}", message)
        for i, chest in enumerate(spec.chests.values()):
            if chest.owner not in (None, "shared", *players):
                where = self.chest_paths.get(chest.position, f"chests[{i}].position").replace(".position", ".owner")
                self.err(where, f"unknown owner {chest.owner!r} (expected a player, {', '.join(sorted(players))}, or \"shared\")")
        if not self.problems:
            for path, message in impossible_rule_blocks(spec, self.data):
                self.err(path, message)
        if self.problems:
            raise WorldSpecError(self.problems)
        return spec

    def read_institution(self, raw: Any, players: list[str]) -> InstitutionSpec | None:
        """[institution] (worlds/spec/institution.py): its shape, and the players it names are the world's."""
        if isinstance(raw, dict):  # unknown keys said as for every table; the known ones read on
            self.unknown_keys(raw, set(INSTITUTION_KEYS), "institution")
            raw = {k: v for k, v in raw.items() if k in INSTITUTION_KEYS}
        try:
            institution = parse_institution(raw, _InstitutionProblem)
        except _InstitutionProblem as problem:
            self.err(*problem.args)
            return None
        if institution is not None:
            for key, names in (("institution.leader", [institution.leader] if institution.leader else []),
                               ("institution.weights", sorted(institution.weights)),
                               ("institution.veto", list(institution.veto)),
                               ("institution.candidates", list(institution.candidates))):
                unknown = [n for n in names if n not in players]
                if unknown:
                    self.err(key, f"no player {', '.join(map(repr, unknown))} (players: {', '.join(players)})")
        return institution

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
                self.err(f"{path}.members", f"{got(members)} (expected a list of at least two player names)")
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
                self.err(f"{path}.shared_observation", f"{got(shared)} (expected true or false)")
                continue
            if share is not None and start is not None:
                groups.append(GroupSpec(name, tuple(dict.fromkeys(members)), share, start, end, shared))
        return tuple(groups)

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
            spawn = self.read_spawn(player, path, origin, size)  # a bad spawn still lets the player's other errors be said
            values: dict[str, float] = {}
            for item, v in (self.table(player.get("values"), f"{path}.values") or {}).items():
                if self.item_name(item, f"{path}.values.{item}") is not None:
                    value = self.number(v, f"{path}.values.{item}", what="a value in emeralds")
                    if value is not None:
                        values[item] = value
            briefing = self.string(player.get("briefing", ""), f"{path}.briefing", "the text only this player reads") or ""
            inventory = self.item_counts(player.get("inventory"), f"{path}.inventory")
            if spawn is not None:
                players[name] = PlayerSpec(name, spawn, inventory, values, briefing.strip())
        return players

    def read_spawn(self, player: dict[str, Any], path: str, origin: Vec, size: Vec) -> Vec | None:
        if "spawn" not in player:
            self.err(path, "player has no spawn (expected spawn = [x, y, z])")
            return None
        spawn = self.vec(player["spawn"], f"{path}.spawn")
        if spawn is not None and not all(origin[i] <= spawn[i] < origin[i] + size[i] for i in range(3)):
            self.outside(f"{path}.spawn", f"spawn {list(spawn)} is outside the map (expected within origin {list(origin)} and size {list(size)})")
            return None
        return spawn

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
                self.err(f"{path}.counts", f"{got(counts)} (expected a non-empty list of counts >= 0)")
                continue
            if not isinstance(weights, list) or len(weights) != len(counts):
                self.err(f"{path}.weights", f"{got(weights)} (expected one probability per count, {len(counts)} in all)")
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
