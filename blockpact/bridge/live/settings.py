"""Settings for live servers and mineflayer bodies, read from `live.toml` next to this file; the dataclasses are its schema."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from blockpact.settings import bounds, load_settings

LIVE_TOML = Path(__file__).with_name("live.toml")


@dataclass(frozen=True)
class ServerTimes:
    start_timeout: float = bounds(gt=0)
    request_timeout: float = bounds(gt=0)
    stop_timeout: float = bounds(gt=0)
    view_distance: int = bounds(ge=1)
    max_entities: int = bounds(ge=1)
    entity_range: int = bounds(ge=0)


@dataclass(frozen=True)
class BotSettings:
    spawn_timeout: float = bounds(gt=0)
    join_attempts: int = bounds(ge=1)
    join_concurrency: int = bounds(ge=1)
    settle_timeout: float = bounds(gt=0)
    keep_alive_timeout: float = bounds(gt=0)
    program_budget: float = bounds(gt=0)
    search_radius: int = bounds(ge=1)
    observe_radius: int = bounds(ge=0)
    explore_step: float = bounds(gt=0)
    explore_stride: int = bounds(ge=1)
    chat_per_second: float = bounds(gt=0)
    chat_burst: int = bounds(ge=1)
    bound_base: float = bounds(ge=0)
    bound_slack: float = bounds(ge=0)


@dataclass(frozen=True)
class WorldSetup:
    time: int = bounds(ge=0)  # ticks; 6000 = noon
    gamerules: dict[str, bool | int]


@dataclass(frozen=True)
class WorldMasterSettings:
    tick_seconds: float = bounds(gt=0)
    play_out: bool


@dataclass(frozen=True)
class EpisodeSettings:
    on_disconnect: Literal["reconnect", "retry", "fail"]
    max_reconnects: int = bounds(ge=0)
    max_retries: int = bounds(ge=0)
    lockstep: bool
    lockstep_stall_seconds: float = bounds(gt=0)


@dataclass(frozen=True)
class HumanSettings:
    join_seconds: float = bounds(gt=0)
    turn_seconds: float = bounds(gt=0)
    poll_seconds: float = bounds(gt=0)


@dataclass(frozen=True)
class ExternalSettings:
    operator: str
    dig_memory_seconds: float = bounds(ge=0)
    expect_seconds: float = bounds(gt=0)
    build_timeout: float = bounds(gt=0)
    watch_height: int = bounds(ge=1)


@dataclass(frozen=True)
class ViewerSettings:
    port: int = bounds(ge=0, le=65535)  # the first bot's page; 0: any free port
    view_distance: int = bounds(ge=1)
    first_person: bool


@dataclass(frozen=True)
class LiveSettings:
    """`live.toml`'s schema."""

    server: ServerTimes
    bots: BotSettings
    world: WorldSetup
    world_master: WorldMasterSettings
    episode: EpisodeSettings
    humans: HumanSettings
    external: ExternalSettings
    viewer: ViewerSettings


@cache
def live_settings() -> LiveSettings:
    return load_settings(LIVE_TOML, LiveSettings)
