"""What a simulated player sees (live: `bridge/js/mineflayer/observe.js`): the observation's keys are the
same on both backends (the action prompt reads them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from blockpact.worlds.sim.primitives import AgentAPI

HEALTH = 20.0
FOOD = 20


def observe(api: AgentAPI) -> dict[str, Any]:
    """The observation of `api`'s player now."""
    sim, state, player = api.sim, api.state, api.name
    radius = float(sim.timing["search_radius"])
    return {
        "position": list(api.position),
        "inventory": dict(sorted(api.inventory.items())),
        "held": api.held_item,
        "health": HEALTH,
        "time": round(api.time, 6),
        "nearby_blocks": _nearby_blocks(api, api.position, radius),
        "nearby_entities": _nearby_players(api, radius),
        "chests": {",".join(map(str, pos)): dict(c) for pos, c in sorted(sim.known_chests[player].items())},
    }


def _nearby_players(api: AgentAPI, radius: float) -> list[dict[str, Any]]:
    """The other players within `radius`, by name. All distances at once: one norm per pair, each a numpy call, took
    most of an observation with 256 players."""
    named = sorted((p, pos) for p, pos in api.state.positions.items() if p != api.name)
    if not named:
        return []
    distances = np.linalg.norm(np.asarray([pos for _, pos in named], dtype=float) - np.asarray(api.position, dtype=float), axis=1)
    return [{"name": p, "position": list(pos), "distance": round(float(d), 2)}
            for (p, pos), d in zip(named, distances) if float(d) <= radius]


def _nearby_blocks(api: AgentAPI, position: Any, radius: float) -> dict[str, int]:
    grid, state = api.state.grid, api.state
    X, Y, Z = grid.shape
    lx, ly, lz = grid.local(position)
    xs, ys, zs = np.ogrid[:X, :Y, :Z]
    inside = (xs - lx) ** 2 + (ys - ly) ** 2 + (zs - lz) ** 2 <= radius * radius
    ids, counts = np.unique(grid.ids[inside], return_counts=True)
    names = state.data.block_names_by_id
    return {names[int(i)]: int(n) for i, n in sorted(zip(ids, counts), key=lambda t: names[int(t[0])])
            if names[int(i)] not in ("air", "cave_air", "void_air")}
