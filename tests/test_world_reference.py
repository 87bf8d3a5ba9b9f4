"""The world reference (blockpact/worlds/spec/reference.toml, shown in docs/worlds.md) names exactly the keys the
loader accepts: the loader is watched while it reads a world holding every table, and the keys it allows at
each table are compared with the reference's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from blockpact.worlds.spec import value_reader
from blockpact.worlds.spec.reference import markdown, top_level_keys, world_format
from blockpact.worlds.world_files import load_world

EVERY_KEY = Path(__file__).parent / "worlds" / "every_key.toml"
NAMED = {"regions", "players", "harvest", "drops"}  # tables whose second part is a name the author chooses
PLACEHOLDER = {"regions": "NAME", "players": "NAME", "harvest": "BLOCK", "drops": "BLOCK"}


def _reference_path(loader_path: str) -> str:
    """`players.Ada` -> `players.NAME`, `dynamics[2].probability_from` -> `dynamics[].probability_from`."""
    path = re.sub(r"\[\d+\]", "[]", loader_path)
    head, _, rest = path.partition(".")
    if head in NAMED and rest:
        name, _, tail = rest.partition(".")
        path = ".".join(p for p in (head, PLACEHOLDER[head], tail) if p)
    return path


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str | None], set[str]]:
    """Every (table path, rule kind) the loader checks for unknown keys, with the keys it allows there."""
    seen: dict[tuple[str, str | None], set[str]] = {}
    original = value_reader.ValueReader.unknown_keys

    def watch(self, table: dict, allowed: set[str], path: str) -> None:
        rule = table.get("rule") if path.startswith("dynamics[") and path.endswith("]") else None
        seen.setdefault((_reference_path(path), rule), set()).update(allowed)
        original(self, table, allowed, path)

    monkeypatch.setattr(value_reader.ValueReader, "unknown_keys", watch)
    load_world(EVERY_KEY)
    return seen


def test_reference_names_every_key_the_loader_accepts(checked: dict) -> None:
    tables = {t.path: t for t in world_format()}
    for (path, rule), allowed in checked.items():
        if path == "":
            documented = top_level_keys()
        else:
            assert path in tables, f"the loader checks the keys of [{path}], which reference.toml does not describe"
            documented = tables[path].key_names(rule)
        what = f"[{path or 'top level'}]" + (f" (rule = {rule!r})" if rule else "")
        assert allowed - documented == set(), f"{what}: accepted by the loader, missing from reference.toml: {sorted(allowed - documented)}"
        assert documented - allowed == set(), f"{what}: in reference.toml, refused by the loader: {sorted(documented - allowed)}"


def test_every_table_of_the_reference_is_checked_by_the_loader(checked: dict) -> None:
    """A table the reference describes but the world above lacks would go unchecked: the world has them all
    (but the legend, whose keys are characters the author chooses)."""
    keyed = {t.path for t in world_format() if t.keys}
    assert keyed - {path for path, _ in checked} == set()
    rules = {r for k in next(t for t in world_format() if t.path == "dynamics[]").keys for r in k.rules}
    assert rules == {rule for path, rule in checked if path == "dynamics[]"}


def test_the_every_key_world_uses_every_documented_key() -> None:
    """So that the loader really read each key above (and accepted it: the world loads without a problem)."""
    raw = tomllib.loads(EVERY_KEY.read_text())

    def values_at(path: str) -> list[dict]:
        nodes: list = [raw]
        for part in path.split("."):
            name, array = part.removesuffix("[]"), part.endswith("[]")
            nodes = [v for n in nodes for v in (n.values() if name in ("NAME", "BLOCK") else [n.get(name)]) if v is not None]
            if array:
                nodes = [entry for n in nodes for entry in n]
        return [n for n in nodes if isinstance(n, dict)]

    for table in world_format():
        present = set().union(*(entry.keys() for entry in values_at(table.path))) if values_at(table.path) else set()
        assert table.key_names() - present == set(), f"every_key.toml lacks [{table.path}] {sorted(table.key_names() - present)}"


def test_the_reference_is_markdown_with_every_key() -> None:
    text = markdown()
    for table in world_format():
        assert f"### `{table.header}`" in text
        for key in table.keys:
            assert f"| `{key.name}` |" in text
            assert key.type and key.default and key.about, f"{table.path}.{key.name} lacks a type, default or meaning"
