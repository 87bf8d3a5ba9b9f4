"""What every simulated primitive shares (as `bridge/js/mineflayer/primitives/common.js` for the live ones):
values crossing from JavaScript, their checks, and Voyager-style default arguments."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from blockpact.skills.reference import primitives
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError
from blockpact.worlds.spec.schema import Vec

VEC3_TAG = "$vec3"

# A primitive, host call or awaited bot method: (the player's AgentAPI, the program's arguments) -> its value.
Handler = Callable[[AgentAPI, list[Any]], Awaitable[Any]]


class ProgramFailed(PrimitiveError):
    """Ends the simulator's record of a program with the program's own error message."""


def decode(value: Any) -> Any:
    """JSON from the sandbox: Vec3 arrive tagged and become (x, y, z) tuples."""
    if isinstance(value, dict):
        tagged = value.get(VEC3_TAG)
        if len(value) == 1 and isinstance(tagged, list) and len(tagged) == 3:
            return tuple(tagged)
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def encode(value: Any) -> Any:
    """Positions (3-tuples) become Vec3 in the program; everything else is plain JSON."""
    if isinstance(value, tuple) and len(value) == 3 and all(isinstance(v, int | float) for v in value):
        return {VEC3_TAG: list(value)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def vec(value: Any, message: str) -> Vec:
    if not (isinstance(value, tuple) and len(value) == 3):
        raise PrimitiveError(message)
    return tuple(math.floor(v) for v in value)  # type: ignore[return-value]


def number(value: Any, message: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrimitiveError(message)
    return float(value)


def item_counts(value: Any, what: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in value.values()):
        raise PrimitiveError(f"{what} must be an object of item names to positive counts, e.g. {{ raw_iron: 3 }}")
    return value


def with_defaults(name: str, args: list[Any]) -> list[Any]:
    """Voyager-style arguments: missing or undefined ones take the documented defaults."""
    spec = primitives()[name]
    filled = []
    for i, param in enumerate(spec.params):
        value = args[i] if i < len(args) else None
        if value is None:
            value = spec.defaults.get(param)
        filled.append(value)
    return filled
