"""Settings for live servers and mineflayer bodies, read from `live.toml` next to this file."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

LIVE_TOML = Path(__file__).with_name("live.toml")


@cache
def live_settings() -> dict[str, Any]:
    with open(LIVE_TOML, "rb") as f:
        return tomllib.load(f)
