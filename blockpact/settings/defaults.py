"""`blockpact/defaults.toml`: project-wide defaults (Minecraft version, server, simulator, programs, skills)."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

from blockpact.settings.loader import load_settings

PACKAGE_DIR = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class Minecraft:
    version: str  # one version for the simulator's block/item/recipe data and the embedded server


@dataclasses.dataclass(frozen=True)
class Server:
    host: str
    port: int


@dataclasses.dataclass(frozen=True)
class Simulator:
    tick_seconds: float
    walk_speed: float
    reach: float
    search_radius: float
    step_up_seconds: float
    craft_seconds: float
    chest_seconds: float
    place_seconds: float
    chat_seconds: float
    turn_speed: float


@dataclasses.dataclass(frozen=True)
class Programs:
    sim_budget_seconds: float
    compute_budget_seconds: float
    max_calls_per_instant: int
    explore_check_seconds: float


@dataclasses.dataclass(frozen=True)
class Skills:
    bm25_k1: float
    bm25_b: float


@dataclasses.dataclass(frozen=True)
class Defaults:
    """`blockpact/defaults.toml`: project-wide defaults that commands' options override."""

    minecraft: Minecraft
    server: Server
    simulator: Simulator
    programs: Programs
    skills: Skills


@cache
def settings() -> Defaults:
    return load_settings(PACKAGE_DIR / "defaults.toml", Defaults)


def default_mc_version() -> str:
    """The project's one Minecraft version (defaults.toml [minecraft] version)."""
    return settings().minecraft.version
