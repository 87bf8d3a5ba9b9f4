"""The world file format as its readers see it (reference.toml): every table and key with its type, default
and meaning, and the Markdown reference the documentation shows (docs/worlds.md)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REFERENCE_FILE = Path(__file__).with_name("reference.toml")


@dataclass(frozen=True)
class Key:
    name: str
    type: str
    default: str
    about: str
    rules: tuple[str, ...] = ()  # [[dynamics]] only: the rule kinds that take it


@dataclass(frozen=True)
class Table:
    path: str  # "players.NAME", "dynamics[]"
    about: str
    keys: tuple[Key, ...]
    free: str = ""  # keys the author chooses: what they are

    def key_names(self, rule: str | None = None) -> set[str]:
        """The keys of this table (of one rule kind's entries, for [[dynamics]])."""
        return {k.name for k in self.keys if rule is None or not k.rules or rule in k.rules}

    @property
    def header(self) -> str:
        """How the table is written in a file: `[players.NAME]`, `[[chests]]`."""
        return f"[[{self.path[:-2]}]]" if self.path.endswith("[]") else f"[{self.path}]"


@cache
def world_format() -> tuple[Table, ...]:
    raw = tomllib.loads(REFERENCE_FILE.read_text(encoding="utf-8"))
    return tuple(
        Table(t["path"], t["about"], tuple(Key(k["name"], k["type"], k["default"], k["about"], tuple(k.get("rules", ())))
                                           for k in t.get("key", ())), t.get("free", ""))
        for t in raw["table"]
    )


def top_level_keys() -> set[str]:
    """The tables a world file may have at its top: the first part of every table's path."""
    return {t.path.split(".")[0].removesuffix("[]") for t in world_format()}


def markdown() -> str:
    """The reference: one section per table, one row per key."""
    parts = []
    for table in world_format():
        parts.append(f"### `{table.header}`\n\n{table.about}\n")
        if table.free:
            parts.append(f"Keys: {table.free}.\n")
        if table.keys:
            rules = any(k.rules for k in table.keys)
            head = "| key | type | default | rules | meaning |\n|---|---|---|---|---|" if rules else \
                "| key | type | default | meaning |\n|---|---|---|---|"
            rows = [f"| `{k.name}` | {_cell(k.type)} | {_cell(k.default)} |"
                    + (f" {', '.join(k.rules)} |" if rules else "") + f" {_cell(k.about)} |" for k in table.keys]
            parts.append("\n".join([head, *rows]) + "\n")
    return "\n".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
