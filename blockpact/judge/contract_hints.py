"""Why a sentence outside the grammar is not read, where it seems to say something the judge's language has no
form for, and what the controlled form of the nearest thing it has looks like.

A condition or a time limit set by what another player does ("Once Ivy has deposited 2 diamonds into the cache
chest, Hal takes 2 diamonds from it", "until Jun has mined 3 iron_ore") has none: the judge's conditions are on
what a region holds and its time limits are seconds of the episode, and steps said in order bind every step's
player (the deed would become a promise). The order between players is said with a signal instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CONDITION_WORDS = re.compile(r"\b(while|when|whenever|as long as|unless|once)\b.*\b(fewer|less|more|at least|at most|"
                             r"remain|remains|left|below|above|under|over)\b", re.IGNORECASE)
ONLY_ITEM = re.compile(r"\bonly\b(?!\s+(in|within|inside|while|when|if|before|after)\b)", re.IGNORECASE)
LENDS = re.compile(r"\b(lends?|hands?|pass(es)?|loans?)\b(?!\s+(over\s+)?\d+\s+emeralds?)", re.IGNORECASE)
_DEED_WORDS = r"once|after|when|whenever|until|till|as soon as|before|by the time|so long as|as long as"


def form_hints(text: str) -> str:
    """What the controlled form looks like, for a sentence outside the grammar that seems to state a world condition
    or to limit a player with "only" in a way the grammar does not have ("mines only a few iron_ore")."""
    hints = []
    if CONDITION_WORDS.search(text):
        hints.append("a world condition is written 'while the REGION holds fewer than N BLOCK' (or at most, at least, "
                     "more than N)")
    if ONLY_ITEM.search(text):
        hints.append("'only' limits a player to some blocks ('Gizmo mines only iron_ore': no other block) or to a region "
                     "('Ben mines pumpkins only in the south patch'); an amount is a quota ('Gizmo mines at most 3 "
                     "iron_ore')")
    if LENDS.search(text):
        hints.append("items pass between players through a chest ('Ann puts the iron_pickaxe into the tools chest, then "
                     "signals Ben' and 'Ben waits for Ann's signal, then takes the iron_pickaxe from the tools chest'); "
                     "a gift ('gives') is settled from the final inventories, on paper")
    return "".join(f"; {h}" for h in hints)


def deed_hints(text: str, players: Sequence[str]) -> list[str]:
    """Why a clause whose condition or time limit is another player's deed ("once Ivy has deposited ...", "until Jun
    has mined ...", "if Ivy has deposited ...") is not read, and how to say the order with a signal."""
    if not players:
        return []
    names = "|".join(re.escape(p) for p in sorted(players, key=len, reverse=True))
    deed = re.search(rf"\b(?:{_DEED_WORDS})\s+({names})\b(?!['’]s)|\bif\s+({names})\s+(?:has|have|had)\b", text,
                     re.IGNORECASE)
    if deed is None:
        return []
    who = next(g for g in deed.groups() if g)
    who = next(p for p in players if p.lower() == who.lower())
    if re.search(rf"\b{re.escape(who)}\s+(?:has|have|had)\s+(?:both\s+)?signall?ed\b", text, re.IGNORECASE):
        return [f"an act held back until {who}'s signal is a wait said as a step: '... waits for {who}'s signal, then "
                f"takes ...' (it binds the steps after it; several signals: 'waits for {who}'s signal and ...'s signal')"]
    return [f"a condition or time limit set by what {who} does is not in the judge's language (its conditions are on "
            f"what a region holds, its time limits are seconds of the episode): say the order with a signal, "
            f"'{who} ..., then signals ...' and '... waits for {who}'s signal, then ...'"]
