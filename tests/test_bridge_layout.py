"""The bridge package's shape (issue 16): no import cycle between its modules, none over 400 lines (Python
or JavaScript), and the simulated body's calls mirror the live primitives file for file."""

from __future__ import annotations

import ast
from pathlib import Path

import blockpact.bridge

BRIDGE = Path(blockpact.bridge.__file__).parent
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(BRIDGE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(tree: ast.AST, modules: set[str], package: str) -> set[str]:
    """The bridge modules `tree` imports at run time (anywhere but under `if TYPE_CHECKING:`)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(root: Path = BRIDGE) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    modules = set(files)
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = _imports(ast.parse(path.read_text()), modules, package) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the path, 2 done
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


def test_the_bridge_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 20 and any(graph.values()), "the graph was not read"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_bridge_module_is_over_400_lines() -> None:
    sources = [p for p in BRIDGE.rglob("*") if p.suffix in (".py", ".js") and "__pycache__" not in p.parts]
    long = {str(p.relative_to(BRIDGE)): n for p in sources if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_simulated_calls_mirror_the_live_primitives_file_for_file() -> None:
    live = {p.stem for p in (BRIDGE / "js" / "mineflayer" / "primitives").glob("*.js")}
    sim = {p.stem for p in (BRIDGE / "sim").glob("*.py")}
    assert live <= sim, f"live primitive modules without a simulated twin: {sorted(live - sim)}"
