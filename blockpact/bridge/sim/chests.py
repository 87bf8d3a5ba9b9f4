"""Chests on the simulator (live: `bridge/js/mineflayer/primitives/chests.js`)."""

from __future__ import annotations

from blockpact.bridge.sim.common import Handler, item_counts, vec

PRIMITIVES: dict[str, Handler] = {
    "getItemFromChest": lambda api, a: api.get_item_from_chest(
        vec(a[0], "chestPosition for getItemFromChest must be a Vec3"), item_counts(a[1], "itemsToGet")),
    "depositItemIntoChest": lambda api, a: api.deposit_item_into_chest(
        vec(a[0], "chestPosition for depositItemIntoChest must be a Vec3"), item_counts(a[1], "itemsToDeposit")),
    "checkItemInsideChest": lambda api, a: api.check_item_inside_chest(
        vec(a[0], "chestPosition for checkItemInsideChest must be a Vec3")),
}
