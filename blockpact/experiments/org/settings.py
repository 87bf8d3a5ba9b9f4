"""Settings of organization runs, read from `org.toml` (package data)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.config import read_toml
from blockpact.errors import UserError

SETTINGS_FILE = Path(__file__).with_name("org.toml")


@dataclass(frozen=True)
class OrgSettings:
    stall_minutes: float
    stall_failures: int


@cache
def org_settings() -> OrgSettings:
    raw = read_toml(SETTINGS_FILE)
    try:
        return OrgSettings(float(raw["time_cost"]["stall_minutes"]), int(raw["time_cost"]["stall_failures"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{SETTINGS_FILE}: missing or malformed setting ({exc!r})") from None
