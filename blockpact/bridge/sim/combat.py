"""Fighting mobs on the simulator (live: `bridge/js/mineflayer/primitives/combat.js`)."""

from __future__ import annotations

from blockpact.bridge.sim.common import Handler, number

PRIMITIVES: dict[str, Handler] = {
    "killMob": lambda api, a: api.kill_mob(a[0], number(a[1], "timeout for killMob must be a number")),
}
