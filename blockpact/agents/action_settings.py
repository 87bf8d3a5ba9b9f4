"""Settings of the action loop, read from `action.toml` (package data)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.config import read_toml
from blockpact.errors import UserError

SETTINGS_FILE = Path(__file__).with_name("action.toml")


@dataclass(frozen=True)
class ActionSettings:
    extraction_attempts: int
    retrieved_skills: int
    chat_log_lines: int
    critic_json_attempts: int
    loop_attempts: int
    scripted_idle_seconds: float


def _positive(table: dict, section: str, key: str) -> float:
    try:
        value = table[section][key]
    except KeyError:
        raise UserError(f"{SETTINGS_FILE}: missing '{section}.{key}'") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise UserError(f"{SETTINGS_FILE}: '{section}.{key}' must be a positive number, got {value!r}")
    return value


@cache
def action_settings() -> ActionSettings:
    raw = read_toml(SETTINGS_FILE)
    return ActionSettings(
        extraction_attempts=int(_positive(raw, "action", "extraction_attempts")),
        retrieved_skills=int(_positive(raw, "action", "retrieved_skills")),
        chat_log_lines=int(_positive(raw, "action", "chat_log_lines")),
        critic_json_attempts=int(_positive(raw, "critic", "json_attempts")),
        loop_attempts=int(_positive(raw, "loop", "attempts")),
        scripted_idle_seconds=float(_positive(raw, "scripted", "idle_seconds")),
    )
