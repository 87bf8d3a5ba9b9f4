"""Typed reads of a world file's TOML values. A wrong value is not an exception but a `Problem` naming the
file, line and key path, collected so that an author sees every problem of a world at once."""

from __future__ import annotations

import difflib

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.toml_lines import LineIndex
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.schema import Vec


def got(value: Any) -> str:
    """How a problem names the value found: TOML has no null, so None is a key that is not there (often misspelt)."""
    return "missing" if value is None else f"got {value!r}"


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


class ValueReader:
    """The problems found in one world file so far, and readers that report (and return None for) wrong values."""

    data: mcdata.MinecraftData  # the world's Minecraft version, known once [world] is read

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        self.index = LineIndex(self.text)
        self.problems: list[Problem] = []

    # -- reporting ---------------------------------------------------------------------------
    def err(self, path: str, message: str) -> None:
        self.problems.append(Problem(str(self.path), self.index.line_of(path), path, message))

    def unknown_keys(self, table: dict, allowed: set[str], path: str) -> None:
        for key in table:
            if key not in allowed:
                where = f"{path}.{key}" if path else key
                close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.err(where, f"unknown key {key!r} ({hint}expected one of: {', '.join(sorted(allowed))})")

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
        self.err(path, f"{got(value)} (expected a list of 3 integers [x, y, z])")
        return None

    def number(self, value: Any, path: str, lo: float | None = None, hi: float | None = None, what: str = "a number") -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.err(path, f"{got(value)} (expected {what})")
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
            self.err(path, f"{got(value)} (expected {what})")
            return None
        return value

    def string(self, value: Any, path: str, what: str = "a string") -> str | None:
        if not isinstance(value, str):
            self.err(path, f"{got(value)} (expected {what})")
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
