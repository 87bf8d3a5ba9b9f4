"""References a clause makes through other words, resolved in its grammar tokens before the grammar reads them:
a player's chest ("Kai's chest"), "every other player" as the doers, "him" / "her" as the one who is paid,
given to or signalled, and "back there" as the chest named before.

Each is resolved only where exactly one reading is possible: the chest its owner owns alone, the players other
than the one player the clause names, the one player named besides the doer. Otherwise the words stay as written
(the grammar does not read them) and the reason is kept, so the clause is free text saying why: a reading that
guessed which player was meant would bind someone to what nobody agreed.
"""

from __future__ import annotations

from collections.abc import Sequence

from blockpact.judge.contract_lexicon import Lexicon
from blockpact.judge.contract_steps import PRONOUNS, STEP_STARTS, Normalised

# "every other player", "each of the other players" ("the" is dropped before this sees them), as the doers
_OTHER_DOERS = (("every", "one", "of", "other", "players"), ("each", "of", "other", "players"),
                ("all", "of", "other", "players"), ("every", "other", "player"),
                ("each", "other", "player"), ("all", "other", "players"), ("everyone", "else"), ("everybody", "else"))
# words after which "him" or "her" is the one paid, given to or signalled ("pays him 2 emeralds", "gives it to her")
_OBJECT_AFTER = frozenset({"pays", "pay", "gives", "give", "hands", "hand", "transfers", "transfer", "sends", "send",
                           "owes", "owe", "signals", "signal", "notifies", "notify", "compensates", "compensate", "to"})
# what may follow "her" when it is the one paid, not "her raw iron" (hers)
_AFTER_OBJECT_HER = frozenset({"", ",", "then", "and", "for", "if", "when", "once", "after", "at", "by", "before",
                               "all", "each", "whenever"})
_QUANTIFIED = frozenset({"player", "players", "everyone", "everybody", "nobody", "whoever", "anyone", "anybody"})


def resolve_refs(norm: Normalised, players: Sequence[str], lexicon: Lexicon | None) -> Normalised:
    """`norm` with owners' chests, "every other player" and object pronouns resolved where only one reading is
    possible; the reasons for those left as written in `unresolved`."""
    symbols, words = list(norm.symbols), list(norm.words)
    why: list[str] = []
    if lexicon is not None and lexicon.world is not None:
        _owned_chests(symbols, words, lexicon, why)
    _other_doers(symbols, words, players, why)
    _object_pronouns(symbols, why)
    _subject_pronouns(symbols, why)
    _back_there(symbols, words, why)
    return Normalised(symbols, words, (*norm.unresolved, *why))


def _replace(symbols: list[str], words: list[str], start: int, end: int, new: list[str]) -> None:
    said = " ".join(words[start:end])
    symbols[start:end] = new
    words[start:end] = [said] * len(new)


def _owned_chests(symbols: list[str], words: list[str], lexicon: Lexicon, why: list[str]) -> None:
    """"Kai's chest" (or "Kai's own chest", "Kai's stash", "his chest" where Kai is the one player named): the one
    chest the world gives Kai."""
    k = 0
    while k + 1 < len(symbols):
        owner, after = _owner_at(symbols, k)
        if owner and after >= len(symbols):  # "... then Tia's.": an owner and nothing owned after it
            k += 1
            continue
        if not owner:
            if owner == "":
                why.append(f"'{symbols[k]} chest' is the chest of one player only where the clause names one: name whose")
            k += 1
            continue
        end = after + 2 if symbols[after : after + 2] == ["~own", "chest"] else after + 1
        named, owns = symbols[after] if after < len(symbols) else "", lexicon.owned_chests(owner)
        if symbols[end - 1] == "chest" and len(owns) == 1:
            _replace(symbols, words, k, end, [f"+{owns[0]}"])
        elif symbols[end - 1] == "chest":
            said = " ".join(words[k:end]).replace(" 's", "'s")
            why.append(f"{owner} owns no chest in this world ('{said}')" if not owns else
                       f"'{said}' could be {' or '.join(f'the {c} chest' for c in owns)}: name the one meant")
        elif named.startswith("+") and named[1:] in owns:
            _replace(symbols, words, k, after + 1, [named])
        elif named.startswith("+") and symbols[k].startswith("@"):
            why.append(f"the {named[1:]} chest is not {owner}'s")
        k += 1


def _owner_at(symbols: Sequence[str], k: int) -> tuple[str | None, int]:
    """Whose chest the words at `k` may name, and where the chest's words start: "Kai 's ..." or, where the clause
    names one player only, "his ..." / "her own ..." (None: no owner named there; "": "his" with several named)."""
    if symbols[k].startswith("@") and symbols[k + 1] == "'s":
        return symbols[k][1:], k + 2
    if symbols[k] in ("his", "her", "their") and "chest" in symbols[k + 1 : k + 3]:
        named = _named(symbols)
        return (named[0][1:] if len(named) == 1 else ""), k + 1
    return None, k


def _named(symbols: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(s for s in symbols if s.startswith("@")))


def _other_doers(symbols: list[str], words: list[str], players: Sequence[str], why: list[str]) -> None:
    """"Every other player pays Kai 1 emerald": each player but the one player the clause names, as "Ivy and Jun
    each"; with no player or several named, other than whom is not said."""
    k = 0
    while k < len(symbols):
        found = next((w for w in _OTHER_DOERS if tuple(symbols[k : k + len(w)]) == w), None)
        starts_step = k == 0 or symbols[k - 1] in (",", "then", "and")
        after = symbols[k + len(found)] if found is not None and k + len(found) < len(symbols) else ""
        if found is None or not starts_step or after not in STEP_STARTS:
            k += 1
            continue
        named = _named(symbols)
        said = " ".join(words[k : k + len(found)])
        if len(named) != 1:
            why.append(f"'{said}' says other than whom only where the clause names one player"
                       + (f" (it names {', '.join(n[1:] for n in named)})" if named else "") + ": name the players")
            k += len(found)
            continue
        others = [f"@{p}" for p in players if f"@{p}" != named[0]]
        listed = others[:1] if len(others) == 1 else [x for p in others for x in (p, "and")][:-1] + ["each"]
        _replace(symbols, words, k, k + len(found), listed)
        k += len(listed)


def _doer(symbols: Sequence[str], k: int) -> str | None:
    """Who does the step holding position `k`: the player before its verb, else the clause's first player when the
    step names none ("Jun signals Kai, then pays him ..."); None when it is a pronoun or a quantifier."""
    for j in range(k - 1, -1, -1):
        s = symbols[j]
        if s in _QUANTIFIED:
            return None
        if (s.startswith("@") or s in PRONOUNS) and j + 1 < k and symbols[j + 1] in STEP_STARTS:
            return s if s.startswith("@") else None
        if s in (",", "then") or (s == "and" and symbols[j + 1] in STEP_STARTS):
            return symbols[0] if symbols[0].startswith("@") else None
    return None


def _rest_of_step(symbols: Sequence[str], k: int) -> Sequence[str]:
    """The symbols after `k` up to the next joint: "gives her 2 diamonds to Ben" gives hers."""
    end = next((j for j in range(k + 1, len(symbols)) if symbols[j] in (",", "then")), len(symbols))
    return symbols[k + 1 : end]


def _object_pronouns(symbols: list[str], why: list[str]) -> None:
    """"If Jun mines diamond ore, Ivy pays him 2 emeralds": "him" is Jun, the one player named besides the payer."""
    for k, s in enumerate(symbols):
        nxt = symbols[k + 1] if k + 1 < len(symbols) else ""
        object_her = s == "her" and k > 0 and symbols[k - 1] in _OBJECT_AFTER and (
            nxt in _AFTER_OBJECT_HER or nxt.replace(".", "", 1).isdigit() and "to" not in _rest_of_step(symbols, k))
        if s != "~him" and not object_her:
            continue
        pronoun, doer = s.lstrip("~"), _doer(symbols, k)
        if doer is None:
            why.append(f"'{pronoun}' could be any player the clause names: name the player")
            continue
        candidates = [n for n in _named(symbols) if n != doer]
        if len(candidates) == 1:
            symbols[k] = candidates[0]
        elif candidates:
            why.append(f"'{pronoun}' could be {' or '.join(c[1:] for c in candidates)}: name the player")
        else:
            why.append(f"'{pronoun}' names no player: the clause names nobody but {doer[1:]}")


def _back_there(symbols: list[str], words: list[str], why: list[str]) -> None:
    """"Ben takes the iron pickaxe from the tools chest and puts it back there": into the one chest the clause names."""
    k = 1
    while k < len(symbols):
        if symbols[k] == "there" and symbols[k - 1] == "back":
            chests = list(dict.fromkeys(s for s in symbols if s.startswith("+")))
            if len(chests) == 1:
                _replace(symbols, words, k, k + 1, ["into", chests[0]])
                k += 1
            else:
                why.append("'back there' says which chest only where the clause names one"
                           + (f" (it names {', '.join(c[1:] for c in chests)})" if chests else "") + ": name the chest")
        k += 1


def _subject_pronouns(symbols: Sequence[str], why: list[str]) -> None:
    """"Ivy pays Jun 1 emerald. Then she signals Kai.": a step's "she" is the first step's player only where the
    steps before name no other player (contract_steps); here only the reason is kept when they do."""
    for k, s in enumerate(symbols):
        if s in PRONOUNS and k > 0 and symbols[k - 1] in (",", "then") and len(before := _named(symbols[:k])) > 1:
            why.append(f"'{s}' could be {' or '.join(n[1:] for n in before)}: name the player")
