"""Settings of organization runs, read from `org.toml` (package data); the dataclasses are its schema."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.settings import bounds, load_settings

SETTINGS_FILE = Path(__file__).with_name("org.toml")


@dataclass(frozen=True)
class OrgSettings:
    stall_minutes: float = bounds(gt=0)
    stall_failures: int = bounds(ge=0)


@dataclass(frozen=True)
class OrgFile:
    time_cost: OrgSettings


@cache
def org_settings() -> OrgSettings:
    return load_settings(SETTINGS_FILE, OrgFile).time_cost
