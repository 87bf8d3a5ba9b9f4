"""Settings of the action loop, read from `action.toml` (package data); the dataclasses are the file's schema."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.settings import bounds, load_settings

SETTINGS_FILE = Path(__file__).with_name("action.toml")


@dataclass(frozen=True)
class ActionTable:
    extraction_attempts: int = bounds(ge=1)
    retrieved_skills: int = bounds(ge=1)
    chat_log_lines: int = bounds(ge=1)


@dataclass(frozen=True)
class CriticTable:
    json_attempts: int = bounds(ge=1)


@dataclass(frozen=True)
class LoopTable:
    attempts: int = bounds(ge=1)


@dataclass(frozen=True)
class ScriptedTable:
    idle_seconds: float = bounds(gt=0)


@dataclass(frozen=True)
class ActionSettings:
    action: ActionTable
    critic: CriticTable
    loop: LoopTable
    scripted: ScriptedTable


def action_settings() -> ActionSettings:
    """The package's settings under the user's override file, if one is in force (agent_settings.py)."""
    from blockpact.agents.agent_settings import override_file

    return load_action_settings(override_file())


@cache
def load_action_settings(override: Path | None = None) -> ActionSettings:
    return load_settings(SETTINGS_FILE, ActionSettings, *([override] if override else []), table="action")
