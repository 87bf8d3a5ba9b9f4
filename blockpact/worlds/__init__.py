"""blockpact.worlds"""

from __future__ import annotations

from typing import Any

__all__ = ["batched_env", "parallel_env"]


def __getattr__(name: str) -> Any:
    """The step API is imported on first use, so the CLI and the simulator do not load PettingZoo."""
    if name in __all__:
        from blockpact.worlds.step import env as step_env

        return getattr(step_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
