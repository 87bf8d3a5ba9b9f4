"""Settings of hourglass agents, read from `hourglass.toml` (package data)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.agents.hourglass.latency import LatencyModel, latency_from_table
from blockpact.config import read_toml
from blockpact.errors import UserError

SETTINGS_FILE = Path(__file__).with_name("hourglass.toml")


@dataclass(frozen=True)
class HourglassSettings:
    idle_wait_seconds: float
    remote_idle_wait_seconds: float
    place_passes: int
    mine_chunk: int
    table_offsets: tuple[tuple[int, int], ...]
    json_attempts: int
    action_attempts: int
    message_lines: int
    latency: LatencyModel


@cache
def hourglass_settings() -> HourglassSettings:
    raw = read_toml(SETTINGS_FILE)
    try:
        settings = HourglassSettings(
            idle_wait_seconds=float(raw["cycle"]["idle_wait_seconds"]),
            remote_idle_wait_seconds=float(raw["cycle"]["remote_idle_wait_seconds"]),
            place_passes=int(raw["scripted"]["place_passes"]),
            mine_chunk=int(raw["scripted"]["mine_chunk"]),
            table_offsets=tuple((int(dx), int(dz)) for dx, dz in raw["scripted"]["table_offsets"]),
            json_attempts=int(raw["llm"]["json_attempts"]),
            action_attempts=int(raw["llm"]["action_attempts"]),
            message_lines=int(raw["llm"]["message_lines"]),
            latency=latency_from_table(raw.get("latency"), str(SETTINGS_FILE)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{SETTINGS_FILE}: missing or malformed setting ({exc!r})") from None
    if settings.idle_wait_seconds <= 0 or settings.place_passes < 1 or settings.mine_chunk < 1 or settings.json_attempts < 1:
        raise UserError(f"{SETTINGS_FILE}: waits, passes and attempts must be positive")
    return settings
