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
    here = np.asarray(api.position)
    others = [
        {"name": p, "position": list(pos), "distance": round(float(np.linalg.norm(np.asarray(pos) - here)), 2)}
        for p, pos in sorted(state.positions.items())
        if p != player and float(np.linalg.norm(np.asarray(pos) - here)) <= radius
    ]
    return {
        "position": list(api.position),
        "inventory": dict(sorted(api.inventory.items())),
        "held": api.held_item,
        "health": HEALTH,
        "time": round(api.time, 6),
        "nearby_blocks": _nearby_blocks(api, api.position, radius),
        "nearby_entities": others,
        "chests": {",".join(map(str, pos)): dict(c) for pos, c in sorted(sim.known_chests[player].items())},
    }


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
