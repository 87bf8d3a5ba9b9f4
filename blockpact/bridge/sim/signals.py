"""Signals between players on the simulator (live: `bridge/js/mineflayer/primitives/signals.js`)."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.sim.common import Handler, number
from blockpact.worlds.sim.primitives import PrimitiveError


def sender(value: Any) -> str:
    """waitSignal's `sender`: a player's name, or '' (or null) for any player."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise PrimitiveError("sender for waitSignal must be a player's name (a string) or ''")
    return value


PRIMITIVES: dict[str, Handler] = {
    "sendSignal": lambda api, a: api.send_signal(str(a[0])),
    "waitSignal": lambda api, a: api.wait_signal(str(a[0]), number(a[1], "timeout for waitSignal must be a number"),
                                                 sender(a[2])),
}
