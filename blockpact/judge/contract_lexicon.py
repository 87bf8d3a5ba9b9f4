"""What the words of a clause can name: items and blocks of the Minecraft version, and, when the clause is
read for a world, that world's chests, regions, episode length, period and what can happen in it at all.

A clause about an item nobody in the world can come to hold, or a block the world never has, could never
be kept or broken: the parser refuses it with that reason (it is never scored kept). Words that name a
crop block and an item alike ("carrots" the crop, "carrot" the item) mean the item wherever a clause
speaks of items (deposits, gifts, collecting, transfers), the block only where it speaks of mining.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from blockpact.worlds.spec.place_names import Words, chest_words, region_words
from blockpact.worlds.spec.schema import GrowRule, WorldSpec

@dataclass(frozen=True)
class Lexicon:
    items: frozenset[str]  # item names of the Minecraft version
    blocks: frozenset[str]  # block names of the Minecraft version
    chests: tuple[tuple[Words, str], ...] = ()  # (words, chest name), longest words first
    chest_positions: tuple[tuple[tuple[int, int, int], str], ...] = ()
    regions: tuple[tuple[Words, str], ...] = ()  # (words, region name), longest words first
    world: str | None = None  # the world's name (None: no world, only the version's names)
    episode_seconds: float | None = None
    world_period: float | None = None  # the one period of the world's grow rules, if they share one
    obtainable: frozenset[str] | None = None  # items players can come to hold (None: unknown)
    world_blocks: frozenset[str] | None = None  # blocks the world has or its rules bring (None: unknown)

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.items | self.blocks

    def loose_block(self, word: str) -> str | None:
        """The world's one block a bare material word means where a clause speaks of mining ("iron": iron_ore)."""
        if self.world_blocks is None or word in self.blocks or word in self.items:
            return None
        found = [b for b in (f"{word}_ore", f"{word}_block", f"{word}_log") if b in self.world_blocks]
        return found[0] if len(found) == 1 else None

    def loose_item(self, word: str) -> str | None:
        """The one item a bare material word means where a clause speaks of items ("iron": raw_iron, when players
        can come to hold raw_iron and no iron_ingot)."""
        if self.obtainable is None or word in self.items:
            return None
        found = [i for i in (f"raw_{word}", f"{word}_ingot") if i in self.obtainable]
        return found[0] if len(found) == 1 else None

    def loose_name(self, word: str) -> bool:
        return self.loose_block(word) is not None or self.loose_item(word) is not None

    def chest_names(self) -> list[str]:
        return sorted({name for _, name in self.chests})

    def region_names(self) -> list[str]:
        return sorted({name for _, name in self.regions})


def _longest_first(pairs: set[tuple[Words, str]]) -> tuple[tuple[Words, str], ...]:
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0], p[1])))


@cache
def version_lexicon(version: str) -> Lexicon:
    from blockpact.worlds.spec import mcdata

    data = mcdata.load(version)
    return Lexicon(items=frozenset(data.items), blocks=frozenset(data.blocks))


def world_lexicon(spec: WorldSpec) -> Lexicon:
    """The lexicon of `spec`: its chests, regions (with their `words`), episode length and what can be had."""
    from blockpact.worlds.rules.obtainable import obtainable_items

    base = version_lexicon(spec.mc_version)
    periods = {r.every for r in spec.rules if isinstance(r, GrowRule)}
    return Lexicon(
        items=base.items, blocks=base.blocks,
        chests=_longest_first({(w, c.name) for c in spec.chests.values() for w in chest_words(c.name)}),
        chest_positions=tuple(sorted((pos, c.name) for pos, c in spec.chests.items())),
        regions=_longest_first({(w, name) for name, r in spec.regions.items() for w in region_words(r)}),
        world=spec.name, episode_seconds=spec.episode_seconds,
        world_period=periods.pop() if len(periods) == 1 else None,
        obtainable=frozenset(obtainable_items(spec)) | {"emerald"},
        world_blocks=frozenset(spec.blocks.values()) | {r.block for r in spec.rules},
    )
