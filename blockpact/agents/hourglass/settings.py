"""Settings of hourglass agents, read from `hourglass.toml` (package data); the dataclasses are its schema."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.agents.hourglass.latency import LatencyModel
from blockpact.settings import bounds, load_settings

SETTINGS_FILE = Path(__file__).with_name("hourglass.toml")


@dataclass(frozen=True)
class CycleTable:
    idle_wait_seconds: float = bounds(gt=0)
    remote_idle_wait_seconds: float = bounds(gt=0)


@dataclass(frozen=True)
class ScriptedTable:
    place_passes: int = bounds(ge=1)
    mine_chunk: int = bounds(ge=1)
    table_offsets: tuple[tuple[int, int], ...]  # (dx, dz) from the agent, tried in order


@dataclass(frozen=True)
class LLMTable:
    json_attempts: int = bounds(ge=1)
    action_attempts: int = bounds(ge=1)
    message_lines: int = bounds(ge=1)


@dataclass(frozen=True)
class HourglassSettings:
    cycle: CycleTable
    scripted: ScriptedTable
    llm: LLMTable
    latency: LatencyModel


@cache
def hourglass_settings() -> HourglassSettings:
    return load_settings(SETTINGS_FILE, HourglassSettings)
