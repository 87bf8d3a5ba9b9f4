"""What a player sees before the episode starts, from the world spec alone: the same keys as a body's
`observe()` (SimBody, MineflayerBody). A live world gives it before its bots join, so that reading
the first prompt's observation does not start the live episode's clock while the agents think."""

from __future__ import annotations

from collections import Counter
from typing import Any

from blockpact.settings import settings
from blockpact.worlds.spec.schema import WorldSpec

AIR = frozenset({"air", "cave_air", "void_air"})


def search_radius() -> float:
    """How far a body looks around (the simulator's and Voyager's findBlock radius)."""
    return settings().simulator.search_radius


def _distance(a: Any, b: Any) -> float:
    return float(sum((float(x) - float(y)) ** 2 for x, y in zip(a, b)) ** 0.5)


def first_look(spec: WorldSpec, player: str, radius: float | None = None) -> dict[str, Any]:
    """`player`'s observation at its spawn point at time 0 (no chest opened yet)."""
    r = search_radius() if radius is None else radius
    here = spec.players[player].spawn
    blocks = Counter(name for pos, name in spec.blocks.items() if name not in AIR and _distance(pos, here) <= r)
    others = [{"name": p, "position": list(s.spawn), "distance": round(_distance(s.spawn, here), 2)}
              for p, s in sorted(spec.players.items()) if p != player and _distance(s.spawn, here) <= r]
    return {
        "position": list(here),
        "inventory": dict(sorted(spec.players[player].inventory.items())),
        "held": None,
        "health": 20.0,  # full, as a player spawns (the simulator's observation has it too)
        "time": 0.0,
        "nearby_blocks": dict(sorted(blocks.items())),
        "nearby_entities": others,
        "chests": {},
    }
