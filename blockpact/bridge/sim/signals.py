"""Signals between players on the simulator (live: `bridge/js/mineflayer/primitives/signals.js`)."""

from __future__ import annotations

from blockpact.bridge.sim.common import Handler, number

PRIMITIVES: dict[str, Handler] = {
    "sendSignal": lambda api, a: api.send_signal(str(a[0])),
    "waitSignal": lambda api, a: api.wait_signal(str(a[0]), number(a[1], "timeout for waitSignal must be a number")),
}
