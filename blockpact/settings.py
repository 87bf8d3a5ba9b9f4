"""Typed settings: a TOML file read into frozen dataclasses, every mistake reported as `file:line: key: ...`.

One loader for settings files (`load_settings`): the dataclass's fields and type hints are the schema,
so a key is declared once, with its type, and read as an attribute (`settings().simulator.tick_seconds`)
instead of a string lookup that fails deep inside a run. `defaults.toml` is the first file read this way.
"""

from __future__ import annotations

import dataclasses
import tomllib
import typing
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from blockpact.errors import UserError
from blockpact.toml_lines import LineIndex

T = TypeVar("T")
PACKAGE_DIR = Path(__file__).resolve().parent


class SettingsError(UserError):
    """A settings file that does not match its schema (all problems, one per line)."""


@dataclasses.dataclass(frozen=True)
class Minecraft:
    version: str  # one version for the simulator's block/item/recipe data and the embedded server


@dataclasses.dataclass(frozen=True)
class Server:
    host: str
    port: int


@dataclasses.dataclass(frozen=True)
class Simulator:
    tick_seconds: float
    walk_speed: float
    reach: float
    search_radius: float
    step_up_seconds: float
    craft_seconds: float
    chest_seconds: float
    place_seconds: float
    chat_seconds: float


@dataclasses.dataclass(frozen=True)
class Programs:
    sim_budget_seconds: float
    compute_budget_seconds: float
    max_calls_per_instant: int
    explore_check_seconds: float


@dataclasses.dataclass(frozen=True)
class Skills:
    bm25_k1: float
    bm25_b: float


@dataclasses.dataclass(frozen=True)
class Defaults:
    """`blockpact/defaults.toml`: project-wide defaults that commands' options override."""

    minecraft: Minecraft
    server: Server
    simulator: Simulator
    programs: Programs
    skills: Skills


@cache
def settings() -> Defaults:
    return load_settings(PACKAGE_DIR / "defaults.toml", Defaults)


def load_settings(path: Path, schema: type[T]) -> T:
    """`path` read into `schema` (a frozen dataclass whose fields are str, int, float, bool or dataclasses)."""
    try:
        text = path.read_text()
        raw = tomllib.loads(text)
    except FileNotFoundError:
        raise SettingsError(f"{path}: settings file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    problems: list[str] = []
    lines = LineIndex(text)

    def report(key: str, message: str) -> None:
        line = lines.line_of(key)
        problems.append(f"{path}:{line}: {key}: {message}" if line else f"{path}: {key}: {message}")

    value = _build(schema, raw, "", report)
    if problems:
        raise SettingsError("\n".join(problems))
    return value  # type: ignore[return-value]


def _build(schema: type, raw: Any, prefix: str, report: typing.Callable[[str, str], None]) -> Any:
    where = prefix or "(top level)"
    if not isinstance(raw, dict):
        report(where, f"expected a table, got {type(raw).__name__}")
        return None
    hints = typing.get_type_hints(schema)
    fields = {f.name for f in dataclasses.fields(schema)}
    for key in sorted(set(raw) - fields):
        report(f"{prefix}.{key}" if prefix else key, f"unknown key (expected one of: {', '.join(sorted(fields))})")
    values = {}
    for name in fields:
        key = f"{prefix}.{name}" if prefix else name
        if name not in raw:
            report(key if prefix else name, f"missing (expected {_describe(hints[name])})")
            continue
        values[name] = _convert(hints[name], raw[name], key, report)
    if len(values) < len(fields) or any(v is None for v in values.values()):
        return None
    return schema(**values)


def _describe(kind: type) -> str:
    return f"a [{kind.__name__.lower()}] table" if dataclasses.is_dataclass(kind) else {str: "a string", int: "an integer", float: "a number", bool: "true or false"}[kind]


def _convert(kind: type, value: Any, key: str, report: typing.Callable[[str, str], None]) -> Any:
    if dataclasses.is_dataclass(kind):
        return _build(kind, value, key, report)  # type: ignore[arg-type]
    ok = (isinstance(value, bool) if kind is bool
          else isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float
          else isinstance(value, kind) and not isinstance(value, bool))
    if not ok:
        report(key, f"expected {_describe(kind)}, got {value!r}")
        return None
    return float(value) if kind is float else value
