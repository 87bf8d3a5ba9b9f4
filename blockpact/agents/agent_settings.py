"""A user's override of the agents' settings files: one TOML file whose table `[action]` holds any of
`action.toml`'s keys and `[negotiation]` any of `negotiation.toml`'s (e.g. fewer attempts and rounds for a
small local model). Named by `--agent-settings FILE` or $BLOCKPACT_AGENT_SETTINGS, so worker processes of a
sweep or suite read the same file; every run records it (run_start's `agent_settings`)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from blockpact.settings import SettingsError

ENV = "BLOCKPACT_AGENT_SETTINGS"
TABLES = ("action", "negotiation")  # one per settings file it may override


def override_file() -> Path | None:
    """The override file in force, if any."""
    named = os.environ.get(ENV, "").strip()
    return Path(named) if named else None


def checked_tables(path: Path) -> Path:
    """`path`, resolved, once it is a TOML file of known tables (the tables' keys are checked by their loaders)."""
    path = path.resolve()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, IsADirectoryError):
        raise SettingsError(f"{path}: agent settings file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    unknown = sorted(set(raw) - set(TABLES))
    if unknown:
        raise SettingsError(f"{path}: unknown table(s) {', '.join(unknown)} (expected [action] for action.toml's "
                            "keys and [negotiation] for negotiation.toml's)")
    return path


def override_record() -> dict[str, Any] | None:
    """What a run records of the override: the file's path and full text (None without one)."""
    path = override_file()
    if path is None:
        return None
    return {"path": str(path), "text": path.read_text(encoding="utf-8")}
