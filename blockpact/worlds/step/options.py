"""Options of the step-level API: defaults from data/step_env.toml, overridden per call."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.settings import bounds, load_settings, settings
from blockpact.worlds.spec.schema import WorldSpec

OPTIONS_FILE = Path(__file__).parent.parent / "data" / "step_env.toml"
ACTION_KINDS = ("noop", "forward", "backward", "left", "right", "turn_left", "turn_right", "dig", "dig_down", "place", "use", "craft")
CRAFT_PREFIX = "craft:"  # an action "craft:ITEM" does ITEM's recipe once


def action_kind(action: str) -> str:
    """The kind of an action name: "craft:stick" is a "craft"."""
    return "craft" if action.startswith(CRAFT_PREFIX) else action


def crafted_items(actions: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The items the actions craft, in action order."""
    return tuple(dict.fromkeys(a[len(CRAFT_PREFIX):] for a in actions if a.startswith(CRAFT_PREFIX)))


@dataclass(frozen=True)
class StepOptions:
    step_seconds: float
    window_ahead: int
    window_behind: int
    window_sides: int
    window_layers: tuple[int, ...]
    render_rgb: bool
    place_item: str
    seed: int
    actions: tuple[str, ...]


@dataclass(frozen=True)
class ActionSets:
    default: tuple[str, ...]
    worlds: dict[str, tuple[str, ...]]  # world name -> its own action set


@dataclass(frozen=True)
class StepEnvFile:
    """`data/step_env.toml`'s schema: the defaults of every option but step_seconds (one dynamics tick)."""

    window_ahead: int = bounds(ge=0)
    window_behind: int = bounds(ge=0)
    window_sides: int = bounds(ge=0)
    window_layers: tuple[int, ...]
    render_rgb: bool
    place_item: str
    seed: int
    actions: ActionSets


@cache
def step_env_file() -> StepEnvFile:
    return load_settings(OPTIONS_FILE, StepEnvFile)


def load_options(spec: WorldSpec, overrides: dict[str, Any]) -> StepOptions:
    file = step_env_file()
    merged: dict[str, Any] = {
        "step_seconds": settings().simulator.tick_seconds,
        **{f.name: getattr(file, f.name) for f in fields(file) if f.name != "actions"},
        "actions": file.actions.worlds.get(spec.name, file.actions.default),
    }
    names = {f.name for f in fields(StepOptions)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise UserError(f"unknown step-env option(s) {', '.join(unknown)} (expected: {', '.join(sorted(names))})")
    merged.update(overrides)
    bad = [a for a in merged["actions"] if action_kind(a) not in ACTION_KINDS or a == "craft"]
    if bad:
        raise UserError(f"unknown action(s) {', '.join(bad)} (expected some of: {', '.join(ACTION_KINDS[:-1])}, "
                        f"or {CRAFT_PREFIX}ITEM)")
    if merged["step_seconds"] <= 0:
        raise UserError(f"step_seconds is {merged['step_seconds']} (expected > 0)")
    if min(merged["window_ahead"], merged["window_behind"], merged["window_sides"]) < 0:
        raise UserError("window_ahead, window_behind and window_sides must be >= 0")
    merged["actions"] = tuple(merged["actions"])
    merged["window_layers"] = tuple(int(v) for v in merged["window_layers"])
    return StepOptions(**merged)
