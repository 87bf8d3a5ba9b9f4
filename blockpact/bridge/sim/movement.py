"""Walking and exploring on the simulator (live: `bridge/js/mineflayer/primitives/movement.js`). exploreUntil's
loop and callback run in the sandbox prelude (js/sim/sim_prelude.js); each stretch of it is one host call."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.sim.common import Handler, number, vec
from blockpact.settings import settings
from blockpact.worlds.sim.primitives import AgentAPI


async def _explore_step(api: AgentAPI, args: list[Any]) -> dict[str, Any]:
    """One stretch of exploreUntil."""
    direction = vec(args[0], "direction for exploreUntil must be a Vec3 only with values of -1, 0 or 1")
    remaining = number(args[1], "maxTime must be a number")
    seconds = min(remaining, settings().programs.explore_check_seconds)
    start = api.time
    await api.explore_until(direction, seconds)
    elapsed = api.time - start
    return {"elapsed": elapsed, "blocked": elapsed < seconds - 1e-9}


PRIMITIVES: dict[str, Handler] = {
    "moveTo": lambda api, a: api.move_to(vec(a[0], "position for moveTo must be a Vec3"),
                                         number(a[1], "radius for moveTo must be a number")),
}
PRELUDE_PRIMITIVES = ("exploreUntil",)  # written in the sandbox prelude (callbacks cannot cross to Python)
HOST_CALLS: dict[str, Handler] = {"exploreStep": _explore_step}
