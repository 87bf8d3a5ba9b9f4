"""Every simulated primitive, host call and awaited bot method, by the name a program calls
(live: `bridge/js/mineflayer/primitives/index.js`)."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.sim import blocks, chests, combat, crafting, groups, movement, signals
from blockpact.bridge.sim.bounds import BOT_CALLS, check_text_arguments
from blockpact.bridge.sim.common import Handler, with_defaults
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError

PRIMITIVE_HANDLERS: dict[str, Handler] = {
    name: handler
    for group in (blocks, crafting, chests, combat, movement, signals, groups)
    for name, handler in group.PRIMITIVES.items()
}
PRELUDE_PRIMITIVES = movement.PRELUDE_PRIMITIVES
HOST_CALLS: dict[str, Handler] = dict(movement.HOST_CALLS)


def implemented_primitives() -> set[str]:
    return set(PRIMITIVE_HANDLERS) | set(PRELUDE_PRIMITIVES)


async def call(api: AgentAPI, name: str, args: list[Any]) -> Any:
    """Run one of the program's calls (not chat) for the player of `api`."""
    check_text_arguments(name, args)
    if name in HOST_CALLS:
        return await HOST_CALLS[name](api, args)
    if name in BOT_CALLS:
        return await BOT_CALLS[name](api, args)
    if name not in PRIMITIVE_HANDLERS:
        raise PrimitiveError(f"{name} is not available on the simulator")
    return await PRIMITIVE_HANDLERS[name](api, with_defaults(name, args))
