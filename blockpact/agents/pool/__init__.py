"""The shared message pool: agents post chat, commands, reports and signals; each reads what is addressed to it.

`open_pool(None)` gives the in-process pool; `open_pool("mqtt://host:port/NAME", node=...)` joins
a pool through an MQTT broker. Both keep each sender's order, drop duplicates, keep the history,
and hand every message once to each function in `pool.listeners` (the run's events.jsonl writer).
"""

from __future__ import annotations

import time

from blockpact.agents.pool.core import Clock, Listener, MessagePool, PoolError, Subscription
from blockpact.agents.pool.memory import InProcessPool
from blockpact.agents.pool.message import ALL, Message, MessageError, MessageKind, team
from blockpact.agents.pool.url import BrokerURL, redact

__all__ = [
    "ALL",
    "BrokerURL",
    "InProcessPool",
    "Listener",
    "Message",
    "MessageError",
    "MessageKind",
    "MessagePool",
    "PoolError",
    "Subscription",
    "open_pool",
    "redact",
    "team",
]


def open_pool(url: str | None = None, *, node: str = "main", clock: Clock = time.time) -> MessagePool:
    """The in-process pool for no URL (or `memory://`), else an MQTT pool member named `node`.
    Call `await pool.start()` (or use `async with`) before publishing."""
    if url is None or url in ("memory://", "memory"):
        return InProcessPool(clock=clock)
    from blockpact.agents.pool.mqtt import MqttPool  # aiomqtt only when a broker is used

    return MqttPool(url, node=node, clock=clock)
