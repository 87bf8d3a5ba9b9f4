"""The package's import graph (issue 16): no cycle between its modules, none between its folders, no module
over 400 lines and no class over 250 (a class that big holds more than one job; a module under the cap may still). Every import counts: at module level, inside functions and under TYPE_CHECKING (two modules
that name each other cannot be read one before the other, whenever the import runs). Which way the arrows may
point between subpackages is test_dependency_direction.py's business."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import blockpact

PACKAGE = Path(blockpact.__file__).parent
MAX_LINES = 400
MAX_CLASS_LINES = 250


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, here: str, modules: set[str]) -> set[str]:
    """The package's modules `path` (module `here`) imports; `from a import b` is module a.b when there is one,
    else a (the package's __init__)."""
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package `level - 1` levels up
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
    return found - {here}


def sources(package: Path) -> dict[str, Path]:
    return {module_name(p, package): p for p in sorted(package.rglob("*.py")) if "__pycache__" not in p.parts}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    files = sources(package)
    return {name: imported_modules(path, name, set(files)) for name, path in files.items()}


def folder_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Folder (package) -> the other folders its modules import. A folder's __init__ is its facade, which may
    re-export what its subfolders define, so what it imports does not count as its folder's dependency."""
    files = sources(package)
    folder = {name: name if path.name == "__init__.py" else name.rpartition(".")[0] for name, path in files.items()}
    graph: dict[str, set[str]] = {f: set() for f in folder.values()}
    for name, targets in import_graph(package).items():
        if files[name].name != "__init__.py":
            graph[folder[name]].update(folder[t] for t in targets if folder[t] != folder[name])
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := walk(nxt)) is not None:
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)) is not None:
            return cycle
    return None


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph()
    assert len(graph) > 200 and sum(map(len, graph.values())) > 500, "the graph was not read"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_import_cycle_between_folders() -> None:
    graph = folder_graph()
    assert {"blockpact.worlds", "blockpact.worlds.spec", "blockpact.agents.org"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "folder cycle: " + " -> ".join(cycle)


def test_no_module_over_400_lines() -> None:
    files = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js") and "__pycache__" not in p.parts]
    long = {str(p.relative_to(PACKAGE)): n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def long_classes(package: Path = PACKAGE) -> dict[str, int]:
    """`module:Class` -> its lines, from `class` to its last line, for every class (nested ones too) over MAX_CLASS_LINES."""
    found = {}
    for name, path in sources(package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and (n := node.end_lineno - node.lineno + 1) > MAX_CLASS_LINES:  # type: ignore[operator]
                found[f"{name}:{node.name}"] = n
    return found


def test_no_class_over_250_lines() -> None:
    long = long_classes()
    assert not long, f"classes over {MAX_CLASS_LINES} lines (split one by what its parts do): {long}"


def test_the_class_measure_finds_a_long_class(tmp_path: Path) -> None:
    body = "".join(f"    def m{i}(self) -> None:\n        pass\n" for i in range(MAX_CLASS_LINES // 2))
    root = _package(tmp_path, {"big.py": f"class Big:\n{body}", "small.py": "class Small:\n    pass\n"})
    assert long_classes(root) == {"blockpact.big:Big": MAX_CLASS_LINES + 1}


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "blockpact"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("late_import", [
    "def f():\n    from blockpact import a\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from blockpact.a import A\n",
    "from . import a\n",
])
def test_a_cycle_through_any_import_is_found(tmp_path: Path, late_import: str) -> None:
    root = _package(tmp_path, {"a.py": "import blockpact.b\n", "b.py": late_import})
    assert find_cycle(import_graph(root)) == ["blockpact.a", "blockpact.b", "blockpact.a"]


def test_a_folder_cycle_is_found_and_a_facade_makes_none(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "world/__init__.py": "from blockpact.world.spec.loader import load\n",  # a facade: no folder edge
        "world/grid.py": "from blockpact.world.spec.schema import Vec\n",
        "world/spec/__init__.py": "",
        "world/spec/schema.py": "",
        "world/spec/loader.py": "",
    })
    assert find_cycle(import_graph(root)) is None
    assert find_cycle(folder_graph(root)) is None
    (root / "world/spec/loader.py").write_text("def check():\n    from blockpact.world.grid import within_reach\n")
    assert find_cycle(import_graph(root)) is None
    assert find_cycle(folder_graph(root)) == ["blockpact.world", "blockpact.world.spec", "blockpact.world"]
