"""The words contracts call a world's chests and regions by, and the names that would mean two places.

"the tool chest" names the chest `tool_chest`, "the north patch" the region `north_patch` (a region's
`words` add other names). The loader refuses a world where the same words name two places: a clause
using them could not say which one it means.
"""

from __future__ import annotations

from blockpact.worlds.spec.schema import ChestSpec, Region

Words = tuple[str, ...]


def name_words(name: str) -> Words:
    return tuple(w for w in name.lower().replace("-", "_").split("_") if w)


def chest_words(name: str) -> set[Words]:
    """A chest's words ("tool chest" for tool_chest) and, for a name ending in "chest", the words before
    it ("tool", which a clause follows with the word chest)."""
    words = name_words(name)
    out = {words, (name.lower(),)} if words else set()
    if len(words) > 1 and words[-1] == "chest":
        out.add(words[:-1])
    return out


def region_words(region: Region) -> set[Words]:
    """A region's words: its name's ("north patch" for north_patch) and its `words`."""
    return {w for w in (name_words(region.name), (region.name.lower(),), *(tuple(a.lower().split()) for a in region.words)) if w}


def clashing_names(regions: dict[str, Region], chests: list[ChestSpec]) -> list[tuple[str, str]]:
    """(what, message) for every set of words that names two different places."""
    seen: dict[Words, str] = {}
    out = []
    places = [(f"region {name}", region_words(r)) for name, r in regions.items()]
    places += [(f"chest {c.name}", chest_words(c.name)) for c in chests]
    for place, all_words in places:
        for words in sorted(all_words):
            other = seen.setdefault(words, place)
            if other != place:
                out.append((place, f"{' '.join(words)!r} names both {other} and {place} (expected names a contract can tell apart)"))
    return out


GROUP_NOUNS = ("clan", "group", "team", "tribe", "faction", "village")


def group_words(name: str) -> set[Words]:
    """A player group's words: its name's ("east" for east, "east clan" for east_clan), and its name with or
    without a word for a group after it ("the east clan", "the east team")."""
    words = name_words(name)
    if not words:
        return set()
    base = words[:-1] if len(words) > 1 and words[-1] in GROUP_NOUNS else words
    return {words, base, *((*base, noun) for noun in GROUP_NOUNS)}

