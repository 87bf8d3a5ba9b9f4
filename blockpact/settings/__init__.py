"""Typed settings: every settings TOML read into frozen dataclasses by one loader, mistakes reported as `file:line`.

`loader` reads a file into a dataclass (the schema); `defaults` holds the project-wide `defaults.toml`.
Each settings file's schema lives next to the code that uses it (e.g. `agents/action_settings.py`).
"""

from blockpact.settings.defaults import PACKAGE_DIR, Defaults, default_mc_version, settings
from blockpact.settings.loader import SettingsError, bounds, load_settings

__all__ = ["PACKAGE_DIR", "Defaults", "SettingsError", "bounds", "default_mc_version", "load_settings", "settings"]
