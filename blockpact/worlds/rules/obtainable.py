"""What players of a world can come to hold, and which values name something they never can.

A player's `values` entry for an item no block of the world drops, no chest or inventory holds, and no recipe or
furnace makes from what can be had is worth nothing in play: a slip in a world file (a value on `melon`
where melon blocks drop `melon_slice`) that loads, runs and reports zeros without saying why.
"""

from __future__ import annotations

from blockpact.toml_lines import LineIndex
from blockpact.worlds.rules import game
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.state import WorldState


def obtainable_items(spec: WorldSpec, furnaces: bool = True) -> set[str]:
    """Items players can hold: in chests and starting inventories, dropped by the world's blocks (its map's and
    those its rules bring), then what recipes and (unless not `furnaces`) furnaces make from those, to a fixed
    point. As in play (worlds/sim/primitives.py): a 3x3 recipe needs a crafting table and smelting a furnace, each
    on the map or made and placed, and smelting burns a fuel, which may be the item smelted itself (a log burns to
    smelt another log: game.py's furnace rule, as in Minecraft)."""
    state = WorldState(spec)
    have = {item for chest in spec.chests.values() for item in chest.items}
    have |= {item for player in spec.players.values() for item in player.inventory}
    blocks = set(spec.blocks.values()) | {rule.block for rule in spec.rules}
    have |= {item for block in blocks if block in state.data.blocks for item in game.expected_drops(state, block)}
    smelted = mcdata.smelting_table()["outputs"] if furnaces else {}
    while True:
        table = "crafting_table" in blocks | have
        made = {result for result, recipes in state.data.recipes.items()
                if result not in have and any((table or not r.needs_table) and all(i in have for i in r.ingredients)
                                              for r in recipes)}
        if "furnace" in blocks | have and any(game.fuel_value(item) > 0 for item in have):
            made |= {out for raw, out in smelted.items() if raw in have and out not in have}
        if not made:
            return have
        have |= made


def unobtainable_values(spec: WorldSpec) -> list[tuple[str, str]]:
    """(key path, warning) for each player's value on an item nobody in the world can come to hold."""
    have = obtainable_items(spec)
    return [(f"players.{name}.values.{item}",
             f"no block of this world drops {item}, no chest or inventory holds it, and no recipe or furnace makes it"
             " (a 3x3 recipe needs a crafting table; smelting, a furnace and fuel): it is worth nothing in play")
            for name, player in sorted(spec.players.items()) for item in sorted(player.values)
            if item != "emerald" and item not in have]


def world_warnings(spec: WorldSpec) -> list[str]:
    """The unobtainable values and the doubtful settings (worlds/spec/doubts.py) as `FILE:LINE: key.path: warning`
    lines (the file as loaded; no place without one): for stderr, `world validate`, and the run's log, from which
    metrics.json and the report show them."""
    from blockpact.worlds.spec.doubts import doubtful_settings

    index = LineIndex(spec.source.read_text(encoding="utf-8")) if spec.source is not None else None
    out = []
    for path, warning in [*unobtainable_values(spec), *doubtful_settings(spec)]:
        line = index.line_of(path) if index is not None else None
        where = f"{spec.source}:{line}: " if line is not None else f"{spec.source}: " if spec.source is not None else ""
        out.append(f"{where}{path}: {warning}")
    return out


def smelting_uses(spec: WorldSpec) -> list[str]:
    """What in a world's play takes a furnace: furnace blocks on its map, and values on items only a furnace
    makes (from what can be had). A server that cannot smelt must say so before such a world is played."""
    uses = [f"a furnace at {list(pos)}" for pos, block in sorted(spec.blocks.items()) if block == "furnace"]
    only_smelted = obtainable_items(spec) - obtainable_items(spec, furnaces=False)
    valued = sorted({item for player in spec.players.values() for item in player.values if item in only_smelted})
    return uses + [f"{item} is valued and only a furnace makes it" for item in valued]
