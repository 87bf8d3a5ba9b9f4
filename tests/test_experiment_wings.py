"""experiments/ in wings behind one face (issue 37): its top holds the face (`__init__.py`) and five wings,
plan <- log <- outputs <- play <- studies, each importing only the wings before it; no wing imports the face
(it stands above them all), and the command line imports nothing of experiments but the face. Every import
counts, as in test_import_graph.py: at module level, inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import blockpact.experiments as face
from test_import_graph import PACKAGE, find_cycle, import_graph

WINGS = ("plan", "log", "outputs", "play", "studies")  # each may import the wings before it, none after it
FACE = "blockpact.experiments"


def wing_of(module: str) -> str | None:
    """The wing a module of experiments/ is in; None for the face and for modules outside experiments/."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["blockpact", "experiments"] and len(parts) > 2 else None


def wing_problems(package: Path = PACKAGE) -> list[str]:
    """Every import of a wing's module that reaches the face or a later wing."""
    problems = []
    for source, targets in sorted(import_graph(package).items()):
        if (wing := wing_of(source)) is None:
            continue
        for target in sorted(targets):
            if target == FACE:
                problems.append(f"{source} imports the face {FACE}")
            elif (to := wing_of(target)) is not None and to != wing and to not in WINGS[:WINGS.index(wing)]:
                problems.append(f"{source} ({wing}) imports {target} ({to})")
    return problems


def wing_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for source, targets in import_graph(package).items():
        if (wing := wing_of(source)) is not None:
            graph.setdefault(wing, set()).update(w for t in targets if (w := wing_of(t)) not in (None, wing))
    return graph


def test_the_top_of_experiments_is_the_face_and_the_wings() -> None:
    top = {p.name for p in (PACKAGE / "experiments").iterdir() if p.name != "__pycache__"}
    assert top == {"__init__.py", *WINGS} and len(top) <= 8
    assert all((PACKAGE / "experiments" / wing / "__init__.py").is_file() for wing in WINGS)


def test_the_wings_depend_in_one_direction_and_never_on_the_face() -> None:
    graph = wing_graph()
    assert {"plan", "outputs"} <= graph["play"], "the graph was not read"
    assert wing_problems() == []
    assert find_cycle(graph) is None


def test_the_command_line_imports_only_the_face() -> None:
    graph = import_graph()
    cli = {m: targets for m, targets in graph.items() if m == "blockpact.cli" or m.startswith("blockpact.cli.")}
    assert sum(FACE in targets for targets in cli.values()) >= 5, "the graph was not read"
    assert [f"{m} imports {t}" for m, ts in sorted(cli.items()) for t in sorted(ts) if t.startswith(FACE + ".")] == []


def test_every_name_of_the_face_is_its_wings_own() -> None:
    import importlib

    for name in face.__all__:
        module, attribute = face.home(name)
        assert getattr(face, name) is getattr(importlib.import_module(module), attribute), name
    assert set(face.__all__) <= set(dir(face))
    with pytest.raises(AttributeError, match="no attribute 'runner'"):
        face.runner  # noqa: B018


def test_the_face_loads_a_wing_only_when_a_name_of_it_is_used() -> None:
    code = ("import sys, blockpact.experiments as e; before = sorted(m for m in sys.modules if m.startswith(e.__name__ + '.'));"
            " e.RunDir; after = sorted(m for m in sys.modules if m.startswith(e.__name__ + '.')); print(before, after)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[]", "['blockpact.experiments.log',", "'blockpact.experiments.log.rundir']"]


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "blockpact"
    for name in ["__init__.py", "experiments/__init__.py", *(f"experiments/{w}/__init__.py" for w in WINGS)]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("late_import", [
    "def f():\n    from blockpact.experiments.play.runner import Runner\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from blockpact.experiments.play import runner\n",
])
def test_an_import_of_a_later_wing_is_found(tmp_path: Path, late_import: str) -> None:
    root = _package(tmp_path, {"experiments/play/runner.py": "from blockpact.experiments.log import records\n",
                               "experiments/log/records.py": late_import})
    assert wing_problems(root) == ["blockpact.experiments.log.records (log) imports blockpact.experiments.play.runner (play)"]
    assert find_cycle(wing_graph(root)) == ["log", "play", "log"]


def test_an_import_of_the_face_from_a_wing_is_found(tmp_path: Path) -> None:
    root = _package(tmp_path, {"experiments/play/runner.py": "from blockpact.experiments import RunDir\n"})
    assert wing_problems(root) == ["blockpact.experiments.play.runner imports the face blockpact.experiments"]
