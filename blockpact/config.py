"""Project defaults from `defaults.toml`, and where the Node side lives."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
NODE_MODULES = PROJECT_ROOT / "node_modules"


@cache
def defaults() -> dict[str, Any]:
    with open(PACKAGE_DIR / "defaults.toml", "rb") as f:
        return tomllib.load(f)


def default_mc_version() -> str:
    return defaults()["minecraft"]["version"]
