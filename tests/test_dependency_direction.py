"""Dependencies between blockpact's subpackages point down only (cli → experiments → agents, judge → llm;
bridge → skills → worlds): every import in the package, at module level, inside functions or under
TYPE_CHECKING, is checked against the layer table below, so an upward arrow fails here with the file and
line that makes it."""

from __future__ import annotations

import ast
from pathlib import Path

import blockpact

PACKAGE = Path(blockpact.__file__).parent

# What each layer may import besides itself. `base` is the package's top-level modules (errors, config,
# settings, the TOML line index): everyone may use them, and they use nothing above them.
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "worlds": {"base"},
    "skills": {"worlds", "base"},
    "bridge": {"skills", "worlds", "base"},
    "conformance": {"bridge", "skills", "worlds", "base"},  # the backend contracts' suites, for a backend's author
    "llm": {"base"},
    "judge": {"llm", "worlds", "base"},
    "agents": {"judge", "llm", "bridge", "skills", "worlds", "base"},
    "experiments": {"agents", "judge", "llm", "bridge", "skills", "worlds", "base"},
    "cli": {"experiments", "agents", "judge", "llm", "bridge", "skills", "worlds", "base"},
}

# Modules whose layer is not their folder's (the longest prefix wins; by default a module's layer is
# the subpackage it is in, and a top-level module is `base`).
LAYER_OF: dict[str, str] = {
    "blockpact.llm": "llm",
    "blockpact.llm.repair": "llm",
    "blockpact.toml_lines": "base",
    "blockpact.settings": "base",
}


def layer(module: str) -> str:
    for prefix in sorted(LAYER_OF, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return LAYER_OF[prefix]
    parts = module.split(".")
    if len(parts) < 2 or not (PACKAGE / parts[1]).is_dir():
        return "base"
    return parts[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute or relative import of a blockpact module in `path`."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from blockpact.x import y`: y may be a module of x; its layer is x's or finer
            out += [(node.lineno, f"{base}.{a.name}" if (PACKAGE.parent / base.replace(".", "/") / a.name).exists()
                     or (PACKAGE.parent / base.replace(".", "/") / f"{a.name}.py").exists() else base)
                    for a in node.names]
    return [(line, m) for line, m in out if m == "blockpact" or m.startswith("blockpact.")]


def upward_imports() -> list[str]:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = layer(module_name(path))
        for line, target in imports(path):
            to = layer(target)
            if to != source and to not in ALLOWED[source]:
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {source} imports {target} ({to})")
    return problems


# Inside worlds/: spec/ (files, schema, validation) <- rules/ (THE rules and dynamics) <- sim/ and step/ (the two
# engines that execute them). The modules left in worlds/ itself (events, grid, state, world_files, colors,
# render) are the world model the parts above spec/ share: they may use them, and they use only spec/
# (worlds/__init__ is the facade).
WORLD_PARTS: dict[str, set[str]] = {"spec": set(), "rules": {"spec", ""}, "sim": {"rules", "spec", ""},
                                    "step": {"rules", "spec", ""}, "": {"spec"}}


def world_part(module: str) -> str | None:
    """The part of worlds/ a module is in ("" for worlds/ itself), None outside worlds/ or for the facade."""
    parts = module.split(".")
    if parts[:2] != ["blockpact", "worlds"] or len(parts) < 3:
        return None
    return parts[2] if (PACKAGE / "worlds" / parts[2]).is_dir() else ""


def upward_world_imports() -> list[str]:
    problems = []
    for path in sorted((PACKAGE / "worlds").rglob("*.py")):
        source = world_part(module_name(path))
        if source is None:
            continue
        for line, target in imports(path):
            to = world_part(target)
            if to is not None and to != source and to not in WORLD_PARTS.get(source, set()):
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line}: worlds/{source} imports {target} (worlds/{to})")
    return problems


def test_every_subpackage_has_a_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {f for f in folders if layer(f"blockpact.{f}") not in ALLOWED} == set()


def test_no_upward_imports_between_subpackages() -> None:
    assert upward_imports() == []


def test_the_parts_of_worlds_depend_in_one_direction() -> None:
    assert upward_world_imports() == []


def test_an_upward_import_is_found(tmp_path: Path, monkeypatch) -> None:
    """The check itself: a worlds module importing the experiments is reported with its file and line."""
    fake = tmp_path / "blockpact"
    (fake / "worlds").mkdir(parents=True)
    (fake / "experiments").mkdir()
    for folder in (fake, fake / "worlds", fake / "experiments"):
        (folder / "__init__.py").write_text("")
    (fake / "experiments" / "runner.py").write_text("")
    (fake / "worlds" / "grid.py").write_text("import json\n\ndef f():\n    from blockpact.experiments import runner\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert upward_imports() == ["blockpact/worlds/grid.py:4: worlds imports blockpact.experiments.runner (experiments)"]


def test_an_upward_import_inside_worlds_is_found(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "blockpact"
    for folder in (fake, fake / "worlds", fake / "worlds" / "spec", fake / "worlds" / "step"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (fake / "worlds" / "step" / "env.py").write_text("")
    (fake / "worlds" / "spec" / "loader.py").write_text("from blockpact.worlds.step import env\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert upward_world_imports() == ["blockpact/worlds/spec/loader.py:1: worlds/spec imports "
                                      "blockpact.worlds.step.env (worlds/step)"]
