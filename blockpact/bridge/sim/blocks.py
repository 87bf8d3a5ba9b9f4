"""Mining and placing blocks on the simulator (live: `bridge/js/mineflayer/primitives/blocks.js`)."""

from __future__ import annotations

from blockpact.bridge.sim.common import Handler, vec

PRIMITIVES: dict[str, Handler] = {
    "mineBlock": lambda api, a: api.mine_block(a[0], a[1]),
    "placeItem": lambda api, a: api.place_item(a[0], vec(a[1], "position for placeItem must be a Vec3")),
}
