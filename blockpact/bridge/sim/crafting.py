"""Crafting and smelting on the simulator (live: `bridge/js/mineflayer/primitives/crafting.js`)."""

from __future__ import annotations

from blockpact.bridge.sim.common import Handler

PRIMITIVES: dict[str, Handler] = {
    "craftItem": lambda api, a: api.craft_item(a[0], a[1]),
    "smeltItem": lambda api, a: api.smelt_item(a[0], a[1], a[2]),
}
