"""Which blocks can ever exist in a world, so a dynamics rule or condition on any other block is an error.

A block can exist when the map places it, a spawn rule creates it, or a player can place it: its
item is in an inventory or a chest, dropped by a block that can exist, or crafted from such items.
A rule on a block that can never exist never fires; a condition on one never changes. Both are
almost always a typo or a forgotten placement, so the loader reports them.
"""

from __future__ import annotations

from collections.abc import Iterator

from blockpact.worlds.spec.mcdata import MinecraftData as McData
from blockpact.worlds.spec.schema import SpawnRule, WorldSpec

_MAX_CRAFT_STEPS = 8  # crafting chains deeper than this are not followed


def possible_blocks(spec: WorldSpec, data: McData) -> set[str]:
    blocks = set(spec.blocks.values()) | {r.block for r in spec.rules if isinstance(r, SpawnRule)}
    items = {i for p in spec.players.values() for i in p.inventory} | {i for c in spec.chests.values() for i in c.items}
    for _ in range(_MAX_CRAFT_STEPS):
        before = (len(blocks), len(items))
        for block in list(blocks):
            drop = spec.drops.get(block)
            items.update([drop.item] if drop is not None else data.blocks[block].drops if block in data.blocks else ())
        items.update(
            result for result, recipes in data.recipes.items()
            if any(all(i in items for i in r.ingredients) for r in recipes)
        )
        blocks.update(i for i in items if data.is_block(i))
        if (len(blocks), len(items)) == before:
            break
    return blocks


def impossible_rule_blocks(spec: WorldSpec, data: McData) -> Iterator[tuple[str, str]]:
    """(path, message) for each rule, condition or probability scale naming a block that can never exist."""
    possible = possible_blocks(spec, data)
    why = "never occurs in this world and is never placed, dropped or crafted"
    for i, rule in enumerate(spec.rules):
        path = f"dynamics[{i}]"
        if rule.block not in possible:
            yield f"{path}.block", (
                f"{rule.block!r} {why}, so this {rule.kind} rule can never fire "
                "(expected a block of the map or one players can place)"
            )
        for j, condition in enumerate(rule.when):
            if condition.block not in possible:
                where = f"{path}.when" if len(rule.when) == 1 else f"{path}.when[{j}]"
                yield where, f"{condition.block!r} {why}, so the condition '{condition}' never changes (its count is always 0; expected a block of the map or one players can place)"
        scale = getattr(rule, "probability_from", None)
        if scale is not None and scale.block not in possible:
            yield f"{path}.probability_from.block", f"{scale.block!r} {why}, so the probability never changes (expected a block of the map or one players can place)"
