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

from blockpact.worlds.spec.place_names import Words, chest_words, group_words, region_words
from blockpact.worlds.spec.schema import GrowRule, WorldSpec

# Words for a material that name no item or block of their own: the suffixes of the names they stand for.
MATERIAL_BLOCKS: dict[str, tuple[str, ...]] = {"log": ("_log",), "wood": ("_log",), "timber": ("_log",),
                                               "plank": ("_planks",)}
MATERIAL_ITEMS: dict[str, tuple[str, ...]] = {"log": ("_log",), "wood": ("_log", "_planks"), "timber": ("_log",),
                                              "plank": ("_planks",), "lumber": ("_planks",),
                                              # a tool by its kind: "the pickaxe" where players can hold one kind only
                                              "pickaxe": ("_pickaxe",), "pick": ("_pickaxe",), "axe": ("_axe",),
                                              "shovel": ("_shovel",), "sword": ("_sword",), "hoe": ("_hoe",)}
MATERIAL_WORDS = frozenset(MATERIAL_BLOCKS) | frozenset(MATERIAL_ITEMS)


@dataclass(frozen=True)
class Lexicon:
    items: frozenset[str]  # item names of the Minecraft version
    blocks: frozenset[str]  # block names of the Minecraft version
    chests: tuple[tuple[Words, str], ...] = ()  # (words, chest name), longest words first
    chest_positions: tuple[tuple[tuple[int, int, int], str], ...] = ()
    chest_owners: tuple[tuple[str, str], ...] = ()  # (owner, chest name) of the chests a player owns ("Kai's chest")
    regions: tuple[tuple[Words, str], ...] = ()  # (words, region name), longest words first
    groups: tuple[tuple[Words, tuple[str, ...]], ...] = ()  # (words, members) of the world's player groups
    world: str | None = None  # the world's name (None: no world, only the version's names)
    episode_seconds: float | None = None
    world_period: float | None = None  # the one period of the world's grow rules, if they share one
    obtainable: frozenset[str] | None = None  # items players can come to hold (None: unknown)
    world_blocks: frozenset[str] | None = None  # blocks the world has or its rules bring (None: unknown)

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.items | self.blocks

    def block_candidates(self, word: str) -> list[str]:
        """The world's blocks a bare material word may mean where a clause speaks of mining ("iron": iron_ore,
        "logs": the world's *_log blocks)."""
        if self.world_blocks is None or word in self.blocks or word in self.items:
            return []
        found = [b for b in (f"{word}_ore", f"{word}_block", f"{word}_log") if b in self.world_blocks]
        if not found and word not in MATERIAL_BLOCKS:  # "mushroom blocks": the world's blocks named with the word
            found = named_with(word, self.world_blocks)
        suffixes = MATERIAL_BLOCKS.get(word, ())
        return found + sorted(b for b in self.world_blocks if suffixes and b.endswith(suffixes) and b not in found)

    def item_candidates(self, word: str) -> list[str]:
        """The items players can come to hold that a bare material word may mean ("iron": raw_iron or iron_ingot,
        "planks": the *_planks they can make)."""
        if self.obtainable is None or word in self.items:
            return []
        found = [i for i in (f"raw_{word}", f"{word}_ingot") if i in self.obtainable]
        suffixes = MATERIAL_ITEMS.get(word, ())
        return found + sorted(i for i in self.obtainable if suffixes and i.endswith(suffixes) and i not in found)

    def loose_block(self, word: str) -> str | None:
        """The world's one block a bare material word means where a clause speaks of mining."""
        found = self.block_candidates(word)
        return found[0] if len(found) == 1 else None

    def loose_item(self, word: str) -> str | None:
        """The one item a bare material word means where a clause speaks of items ("iron": raw_iron, when players
        can come to hold raw_iron and no iron_ingot)."""
        found = self.item_candidates(word)
        return found[0] if len(found) == 1 else None

    def loose_name(self, word: str) -> bool:
        """Whether `word` is read as a name: one block or item it means, or a material word ("logs", "wood") of
        which the world has any, so that a clause naming two candidates is refused with them listed."""
        if self.loose_block(word) is not None or self.loose_item(word) is not None:
            return True
        if len(self.block_candidates(word)) > 1 and word not in (self.world_blocks or ()):
            return True  # "mushroom" with mushroom_stem and red_mushroom_block: refused, naming both
        return word in MATERIAL_WORDS and bool(self.block_candidates(word) or self.item_candidates(word))

    def within_world(self, name: str) -> str:
        """The world's one block (else item) whose name holds `name` whole ("kelp": dried_kelp_block), where `name`
        itself is nothing the world has or players can hold; else `name` (refused later as never happening)."""
        if self.world_blocks is None or self.obtainable is None or name in self.world_blocks or name in self.obtainable:
            return name
        for names in (self.world_blocks, self.obtainable):  # a block of the map first: "kelp" is what is fished
            found = named_with(name, names)
            if found:
                return found[0] if len(found) == 1 else name
        return name

    def chest_names(self) -> list[str]:
        return sorted({name for _, name in self.chests})

    def owned_chests(self, player: str) -> list[str]:
        return [name for owner, name in self.chest_owners if owner == player]

    def region_names(self) -> list[str]:
        return sorted({name for _, name in self.regions})


def named_with(word: str, names: frozenset[str]) -> list[str]:
    """The names that hold `word` as whole parts ("kelp" in dried_kelp_block, "mushroom_block" in red_mushroom_block)."""
    return sorted(n for n in names if f"_{word}_" in f"_{n}_")


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
        chest_owners=tuple(sorted((c.owner, c.name) for c in spec.chests.values() if c.owner not in (None, "shared"))),
        regions=_longest_first({(w, name) for name, r in spec.regions.items() for w in region_words(r)}),
        groups=tuple(sorted({(w, g.members) for g in spec.groups for w in group_words(g.name)}, key=lambda p: -len(p[0]))),
        world=spec.name, episode_seconds=spec.episode_seconds,
        world_period=periods.pop() if len(periods) == 1 else None,
        obtainable=frozenset(obtainable_items(spec)) | {"emerald"},
        world_blocks=frozenset(spec.blocks.values()) | {r.block for r in spec.rules},
    )
