"""Settings for live servers and mineflayer bodies, read from `live.toml` next to this file."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from blockpact.config import read_toml

LIVE_TOML = Path(__file__).with_name("live.toml")


@cache
def live_settings() -> dict[str, Any]:
    return read_toml(LIVE_TOML)
