"""Pool and broker settings from `pool.toml`, so tuning never means editing code; the dataclasses are its schema."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from blockpact.settings import bounds, load_settings

SETTINGS_FILE = Path(__file__).with_name("pool.toml")


@dataclass(frozen=True)
class PoolTable:
    gap_hold_seconds: float = bounds(ge=0)


@dataclass(frozen=True)
class MqttSettings:
    topic_root: str
    default_pool: str
    qos: Literal[0, 1, 2]
    keepalive_seconds: int = bounds(ge=0)
    connect_timeout_seconds: float = bounds(gt=0)
    ack_timeout_seconds: float = bounds(gt=0)
    reconnect_min_seconds: float = bounds(gt=0)
    reconnect_max_seconds: float = bounds(gt=0)
    close_flush_seconds: float = bounds(ge=0)


@dataclass(frozen=True)
class BrokerSettings:
    host: str
    port: int = bounds(ge=0, le=65535)
    kind: Literal["auto", "mosquitto", "amqtt"]
    start_timeout_seconds: float = bounds(gt=0)
    stop_timeout_seconds: float = bounds(gt=0)
    max_queued_messages: int = bounds(ge=0)


@dataclass(frozen=True)
class PoolSettings:
    pool: PoolTable
    mqtt: MqttSettings
    broker: BrokerSettings


@cache
def pool_settings() -> PoolSettings:
    return load_settings(SETTINGS_FILE, PoolSettings)
