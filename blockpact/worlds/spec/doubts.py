"""Settings of a world file that load and run but likely do not mean what their author meant, said as warnings.

- a negative item value: holding the item costs the player emeralds, and welfare, Gini and every transfer count it so;
- a grow rule's `factor = 0` (or below 1): each period multiplies what is left, so it empties or shrinks the region
  instead of growing it;
- a player in two groups standing at the same time: it hands over each group's share of what it earns to each, so
  more than all of it may leave it, and the group measures count its reward in both.
"""

from __future__ import annotations

from blockpact.worlds.spec.schema import GrowRule, WorldSpec


def doubtful_settings(spec: WorldSpec) -> list[tuple[str, str]]:
    """(key path, warning) for each setting above."""
    out = []
    for name, player in sorted(spec.players.items()):
        for item, value in sorted(player.values.items()):
            if value < 0:
                out.append((f"players.{name}.values.{item}",
                            f"a negative value ({value:g}): holding {item} costs {name} emeralds at the end, and welfare, "
                            "Gini and transfers count it so (0 makes it worthless)"))
    for i, rule in enumerate(spec.rules):
        if isinstance(rule, GrowRule) and rule.factor < 1:
            what = "empties the region at every period" if rule.factor == 0 else "shrinks what is left at every period"
            out.append((f"dynamics[{i}].factor", f"factor = {rule.factor:g} {what} instead of growing it (a grow rule "
                        "multiplies the count of its block in its region)"))
    for j, group in enumerate(spec.groups):
        for other in spec.groups[:j]:
            both = [p for p in group.members if p in other.members]
            if both and _overlap(group.start, group.end, other.start, other.end):
                out.append((f"groups[{j}].members",
                            f"{', '.join(both)} also in group {other.name} while group {group.name} stands: each group "
                            "takes its share of what a member earns, so more than all of it may leave it, and the "
                            "per-group welfare counts its reward in both"))
    return out


def _overlap(a0: float, a1: float | None, b0: float, b1: float | None) -> bool:
    inf = float("inf")
    return a0 < (inf if b1 is None else b1) and b0 < (inf if a1 is None else a1)
