"""Where the package and the Node side live, and reading a TOML data file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from blockpact.errors import UserError

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
NODE_MODULES = PROJECT_ROOT / "node_modules"


def read_toml(path: Path, error: type[UserError] = UserError) -> dict[str, Any]:
    """A configuration file; a mistake in it (they are meant to be edited) is one clear `error`, not a traceback."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise error(f"{path}: configuration file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
