"""Pool and broker settings from `pool.toml`, so tuning never means editing code."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.config import read_toml

SETTINGS_FILE = Path(__file__).with_name("pool.toml")


@dataclass(frozen=True)
class MqttSettings:
    topic_root: str
    default_pool: str
    qos: int
    keepalive_seconds: int
    connect_timeout_seconds: float
    ack_timeout_seconds: float
    reconnect_min_seconds: float
    reconnect_max_seconds: float
    close_flush_seconds: float


@dataclass(frozen=True)
class BrokerSettings:
    host: str
    port: int
    kind: str
    start_timeout_seconds: float
    stop_timeout_seconds: float
    max_queued_messages: int


@dataclass(frozen=True)
class PoolSettings:
    gap_hold_seconds: float
    mqtt: MqttSettings
    broker: BrokerSettings


@cache
def pool_settings() -> PoolSettings:
    data = read_toml(SETTINGS_FILE)
    return PoolSettings(
        gap_hold_seconds=float(data["pool"]["gap_hold_seconds"]),
        mqtt=MqttSettings(**data["mqtt"]),
        broker=BrokerSettings(**data["broker"]),
    )
