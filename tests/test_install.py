"""The environment is the locked one: every package requirements.lock pins for this Python and platform is
installed at exactly that version, and the lock covers every dependency pyproject.toml declares."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def locked() -> dict[str, str]:
    """name -> version for the lines of requirements.lock whose marker holds here."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = PIN.match(line)
        if match and (match.group(3) is None or Marker(match.group(3)).evaluate()):
            pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def test_every_locked_package_is_installed_at_its_locked_version() -> None:
    pins = locked()
    assert "numpy" in pins and "pytest" in pins, "requirements.lock was not read"
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    wrong = {name: (version, installed.get(name)) for name, version in pins.items() if installed.get(name) != version}
    assert not wrong, f"locked vs installed (run `make setup`): {wrong}"


def test_the_lock_covers_every_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]
    pins = locked()
    missing = [str(r) for r in declared if canonicalize_name(r.name) not in pins]
    assert not missing, f"declared in pyproject.toml but not in requirements.lock (run `make lock`): {missing}"
    unmet = [f"{r} (locked {pins[canonicalize_name(r.name)]})" for r in declared
             if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)]
    assert not unmet, f"requirements.lock pins versions pyproject.toml excludes (run `make lock`): {unmet}"
