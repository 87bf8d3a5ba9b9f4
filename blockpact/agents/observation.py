"""What a player sees when it writes its next program, as Voyager gives it: position, what it holds,
time elapsed (and left, when the world tells the players its length), the blocks around it, the
chests it has seen with their contents and the other players in view (its private briefing, when the
world file has one, is in the scenario text: WorldSpec.description_for).

Rendered from a body's `observe()` dict, which the simulator's SimBody and the live MineflayerBody
produce with the same keys from the same facts, so the prompt reads the same on both backends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from blockpact.worlds.spec.schema import GroupSpec, WorldSpec

# Not worth a line in a prompt: what every world is full of.
AIR = frozenset({"air", "cave_air", "void_air"})
MAX_BLOCK_KINDS = 20


def _position(pos: Any) -> str:
    try:
        return "(" + ", ".join(f"{float(v):g}" for v in pos) + ")"
    except (TypeError, ValueError):
        return "unknown"


def _items(items: Mapping[str, Any], empty: str) -> str:
    shown = [(k, v) for k, v in sorted(items.items()) if v]
    return ", ".join(f"{k}: {v:g}" if isinstance(v, float) else f"{k}: {v}" for k, v in shown) or empty


def time_line(elapsed: float, spec: WorldSpec) -> str:
    if spec.length_known:
        left = max(spec.episode_seconds - elapsed, 0.0)
        return f"{elapsed:.0f} s elapsed of {spec.episode_seconds:g} s; {left:.0f} s left"
    return f"{elapsed:.0f} s elapsed (nobody knows how long the scenario lasts)"


def blocks_line(blocks: Mapping[str, int]) -> str:
    """Block kinds around the player, rarest first (ores before stone), at most MAX_BLOCK_KINDS."""
    kinds = sorted(((n, name) for name, n in blocks.items() if name not in AIR and n), key=lambda x: (x[0], x[1]))
    shown = ", ".join(f"{name}: {n}" for n, name in kinds[:MAX_BLOCK_KINDS])
    more = len(kinds) - MAX_BLOCK_KINDS
    return (shown + (f", and {more} more kinds" if more > 0 else "")) or "none"


def chests_line(chests: Mapping[str, Mapping[str, int]]) -> str:
    if not chests:
        return "none seen yet"
    return "; ".join(f"at ({pos.replace(',', ', ')}): {_items(items, 'empty')}" for pos, items in sorted(chests.items()))


def players_line(entities: Any) -> str:
    others = [e for e in entities or [] if isinstance(e, Mapping) and e.get("name")]
    if not others:
        return "none"
    return "; ".join(f"{e['name']} at {_position(e.get('position'))}, {float(e.get('distance', 0)):.1f} blocks away"
                     for e in others)


def render_observation(obs: Mapping[str, Any], spec: WorldSpec) -> str:
    """The observation block of the action prompt; "unknown" for what the body did not report."""
    if not obs:
        return "Nothing observed yet."
    lines = [
        f"Position: {_position(obs.get('position'))}",
        f"Holding: {obs.get('held') or 'nothing'}",
        f"Time: {time_line(float(obs.get('time') or 0.0), spec)}",
        f"Blocks around you: {blocks_line(obs.get('nearby_blocks') or {})}",
        f"Chests: {chests_line(obs.get('chests') or {})}",
        f"Other players in view: {players_line(obs.get('nearby_entities'))}",
    ]
    if obs.get("group"):
        lines.append(f"Your group members (shared observation): {group_line(obs['group'])}")
    return "\n".join(lines)


def group_line(mates: Mapping[str, Mapping[str, Any]]) -> str:
    return "; ".join(f"{name} at {_position(o.get('position'))}, holding {o.get('held') or 'nothing'}, "
                     f"inventory: {_items(o.get('inventory') or {}, 'empty')}, "
                     f"chests seen: {chests_line(o.get('chests') or {})}" for name, o in sorted(mates.items()))


def share_group_observations(observations: Mapping[str, Mapping[str, Any]], groups: Sequence[GroupSpec],
                             now: float) -> dict[str, dict[str, Any]]:
    """Each player's observation, plus under "group" what the members of its standing groups with
    `shared_observation` see and hold (AdaSociety's shared observation within a group)."""
    shared: dict[str, dict[str, Any]] = {p: dict(o) for p, o in observations.items()}
    for group in groups:
        if not group.shared_observation or not group.stands_at(now):
            continue
        for player in group.members:
            if player not in shared:
                continue
            mates = shared[player].setdefault("group", {})
            for mate in group.members:
                if mate != player and mate in observations:
                    mates[mate] = {k: observations[mate].get(k) for k in ("position", "held", "inventory", "chests")}
    return shared
