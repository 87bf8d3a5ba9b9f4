"""Settings of organization runs, read from `org.toml` (package data)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.errors import UserError

SETTINGS_FILE = Path(__file__).with_name("org.toml")


@dataclass(frozen=True)
class OrgSettings:
    stall_minutes: float
    stall_failures: int


@cache
def org_settings() -> OrgSettings:
    with open(SETTINGS_FILE, "rb") as f:
        raw = tomllib.load(f)
    try:
        return OrgSettings(float(raw["time_cost"]["stall_minutes"]), int(raw["time_cost"]["stall_failures"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{SETTINGS_FILE}: missing or malformed setting ({exc!r})") from None
