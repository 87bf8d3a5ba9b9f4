"""Joining, leaving and forming reward-sharing groups on the simulator (worlds/membership.py; live:
`bridge/js/mineflayer/primitives/groups.js`)."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.sim.common import Handler, number
from blockpact.worlds.sim.primitives import PrimitiveError


def group(value: Any, primitive: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PrimitiveError(f"group for {primitive} must be a group's name (a non-empty string)")
    return value


PRIMITIVES: dict[str, Handler] = {
    "joinGroup": lambda api, a: api.change_group("join", group(a[0], "joinGroup")),
    "leaveGroup": lambda api, a: api.change_group("leave", group(a[0], "leaveGroup")),
    "formGroup": lambda api, a: api.change_group("form", group(a[0], "formGroup"),
                                                 number(a[1], "share for formGroup must be a fraction of rewards in [0, 1]")),
}
