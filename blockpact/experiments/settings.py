"""The run defaults in run.toml (package data), read once."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

RUN_TOML = Path(__file__).with_name("run.toml")
TEMPLATES = Path(__file__).with_name("templates")


@cache
def run_settings() -> dict[str, Any]:
    with open(RUN_TOML, "rb") as f:
        return tomllib.load(f)
