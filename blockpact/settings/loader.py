"""One loader for settings files: a TOML file (plus optional override files) read into a frozen dataclass.

The dataclass is the schema: field names are the keys (`except_` reads the key `except`), type hints the
expected values, defaults make a key optional and `bounds(...)` adds a range. Rules that tie keys together
live in the dataclass's `settings_problems()`, which yields (key, what is wrong) pairs. Every mistake is
collected and reported at once, each as `file:line: key.path: what was expected`, so a typo in a settings
file never fails deep inside a run. An override file's mistakes name the override file.

Field types: str, int, float, bool, dataclasses (tables), `tuple[X, ...]` and `tuple[X, Y]` (arrays),
`list[X]` (arrays passed on as JSON), `dict[str, X]` (tables with free keys), `Literal[...]`, and unions
such as `X | None` or `str | list[str]`.
"""

from __future__ import annotations

import difflib

import dataclasses
import keyword
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from blockpact.errors import UserError
from blockpact.toml_lines import LineIndex

T = TypeVar("T")
Report = Callable[[str, str], None]
_NOTHING = object()  # a value that failed to convert (None may be a legal value)


class SettingsError(UserError):
    """A settings file that does not match its schema (all problems, one per line)."""


def bounds(*, ge: float | None = None, gt: float | None = None, le: float | None = None,
           default: Any = dataclasses.MISSING) -> Any:
    """A dataclass field whose number must lie in a range (checked by the loader, reported as `file:line`)."""
    return dataclasses.field(default=default, metadata={"ge": ge, "gt": gt, "le": le})


@dataclasses.dataclass
class _Source:
    path: Path
    raw: dict[str, Any]
    lines: LineIndex
    table: str = ""  # the table of the file that holds the settings ("" for the whole file)

    def line_of(self, key: str) -> int | None:
        return self.lines.line_of(_join(self.table, key))


def _read(path: Path) -> _Source:
    """A TOML file with its line index; a missing or broken file is a SettingsError."""
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except (FileNotFoundError, IsADirectoryError):
        raise SettingsError(f"{path}: settings file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    return _Source(path, raw, LineIndex(text))


def load_settings(path: Path, schema: type[T], *overrides: Path, table: str = "") -> T:
    """`path` read into `schema`, with each file of `overrides` (same schema, any subset of keys) laid on top; with
    `table`, an override file's settings are that table of it (one file overriding several settings files)."""
    sources = [_read(path)] + [_table(_read(p), table) for p in overrides]
    raw: dict[str, Any] = {}
    for source in sources:
        raw = _merge(raw, source.raw)
    problems: list[str] = []

    def report(key: str, message: str) -> None:
        source = next((s for s in reversed(sources) if _holds(s.raw, key)), sources[0])  # where the value came from
        line, shown = source.line_of(key), _join(source.table, key)
        problems.append(f"{source.path}:{line}: {shown}: {message}" if line else f"{source.path}: {shown}: {message}")

    value = _build(schema, raw, "", report)
    if problems:
        raise SettingsError("\n".join(dict.fromkeys(problems)))
    return value  # type: ignore[no-any-return]


def _table(source: _Source, table: str) -> _Source:
    """The settings in table `table` of an override file (none when it has no such table)."""
    if not table:
        return source
    raw = source.raw.get(table, {})
    if not isinstance(raw, dict):
        line = source.lines.line_of(table)
        raise SettingsError(f"{source.path}:{line}: {table}: expected a table, got {raw!r}")
    return _Source(source.path, raw, source.lines, table)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Tables merged key by key; any other value of `override` replaces the base's."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _holds(raw: Any, key: str) -> bool:
    """Whether the TOML data `raw` has the key path `key` (`a.b[2].c`; a key may hold dots: `prices.gpt-4.1`)."""
    if not key:
        return True
    if key.startswith("["):
        index, _, rest = key[1:].partition("]")
        return isinstance(raw, list) and int(index) < len(raw) and _holds(raw[int(index)], rest.removeprefix("."))
    return isinstance(raw, dict) and any(
        _holds(value, key[len(name):].removeprefix(".")) for name, value in raw.items()
        if key == name or key.startswith((f"{name}.", f"{name}[")))


def _build(schema: type, raw: Any, prefix: str, report: Report) -> Any:
    if not isinstance(raw, dict):
        report(prefix or "(top level)", f"expected a table, got {raw!r}")
        return _NOTHING
    hints = typing.get_type_hints(schema)
    fields = {_toml_key(f.name): f for f in dataclasses.fields(schema) if f.init}
    for name in sorted(set(raw) - set(fields)):
        close = difflib.get_close_matches(name, sorted(fields), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        report(_join(prefix, name), f"unknown key ({hint}expected one of: {', '.join(sorted(fields))})")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        key = _join(prefix, name)
        if name not in raw:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                report(key, f"missing (expected {_describe(hints[f.name])})")
                values[f.name] = _NOTHING
            continue
        values[f.name] = _check_bounds(f, _convert(hints[f.name], raw[name], key, report), key, report)
    if any(v is _NOTHING for v in values.values()):
        return _NOTHING
    value = schema(**values)
    for key, message in getattr(value, "settings_problems", lambda: ())():
        report(_join(prefix, key) if key else prefix or "(top level)", message)
    return value


def _toml_key(field_name: str) -> str:
    """The TOML key of a field: `except_` is `except` (a Python keyword cannot be a field name)."""
    bare = field_name[:-1]
    return bare if field_name.endswith("_") and keyword.iskeyword(bare) else field_name


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _check_bounds(f: dataclasses.Field[Any], value: Any, key: str, report: Report) -> Any:
    if value is _NOTHING or value is None or not f.metadata:
        return value
    ge, gt, le = f.metadata.get("ge"), f.metadata.get("gt"), f.metadata.get("le")
    checks = ((ge, lambda v, x: v >= x, "at least"), (gt, lambda v, x: v > x, "more than"), (le, lambda v, x: v <= x, "at most"))
    for limit, ok, words in checks:
        if limit is not None and not ok(value, limit):
            report(key, f"expected {words} {limit:g}, got {value!r}")
            return _NOTHING
    return value


def _describe(kind: Any) -> str:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if dataclasses.is_dataclass(kind):
        return f"a [{kind.__name__.lower()}] table"  # type: ignore[union-attr]
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in args if a is not type(None))
    if origin is list:
        return f"an array of {_plural(args[0])}"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"an array of {_plural(args[0])}"
        return f"an array of {len(args)} items ({', '.join(_describe(a) for a in args)})"
    if origin is dict:
        return f"a table of {_plural(args[1])}"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}[kind]


def _plural(kind: Any) -> str:
    text = _describe(kind)
    return {"a string": "strings", "an integer": "integers", "a number": "numbers", "true or false": "booleans"}.get(text, text)


def _convert(kind: Any, value: Any, key: str, report: Report) -> Any:
    """`value` as `kind`, or _NOTHING after reporting why not."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if dataclasses.is_dataclass(kind):
        return _build(kind, value, key, report)  # type: ignore[arg-type]
    if origin in (typing.Union, types.UnionType):
        return _convert_union(kind, args, value, key, report)
    if origin is typing.Literal:
        if value in args and not isinstance(value, bool):
            return value
    elif origin is tuple and isinstance(value, list):
        kinds = [args[0]] * len(value) if len(args) == 2 and args[1] is Ellipsis else list(args)
        if len(kinds) == len(value):
            items = [_convert(k, v, f"{key}[{i}]", report) for i, (k, v) in enumerate(zip(kinds, value))]
            return _NOTHING if any(v is _NOTHING for v in items) else tuple(items)
    elif origin is list and isinstance(value, list):
        items = [_convert(args[0], v, f"{key}[{i}]", report) for i, v in enumerate(value)]
        return _NOTHING if any(v is _NOTHING for v in items) else items
    elif origin is dict and isinstance(value, dict):
        items = {str(k): _convert(args[1], v, _join(key, str(k)), report) for k, v in value.items()}
        return _NOTHING if any(v is _NOTHING for v in items.values()) else items
    elif origin is None and _scalar_ok(kind, value):
        return float(value) if kind is float else value
    report(key, f"expected {_describe(kind)}, got {value!r}")
    return _NOTHING


def _convert_union(kind: Any, args: tuple[Any, ...], value: Any, key: str, report: Report) -> Any:
    """The first alternative that takes `value` (None is never a TOML value: it is a default)."""
    for alternative in (a for a in args if a is not type(None)):
        quiet: list[tuple[str, str]] = []
        result = _convert(alternative, value, key, lambda k, m: quiet.append((k, m)))
        if result is not _NOTHING:
            return result
        shaped = (dataclasses.is_dataclass(alternative) and isinstance(value, dict)
                  or typing.get_origin(alternative) in (tuple, list) and isinstance(value, list))
        if shaped:  # the value has this alternative's shape: its own problems say most
            for k, m in quiet:
                report(k, m)
            return _NOTHING
    report(key, f"expected {_describe(kind)}, got {value!r}")
    return _NOTHING


def _scalar_ok(kind: Any, value: Any) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)
