"""Sentences that join several clauses: "Ivy puts 1 diamond into the cache chest, then signals Hal",
"Gizmo takes the stone_pickaxe from the chest and mines all iron_ore".

A clause that does not parse whole is tried split at its joints (a comma, "then", "and then", or an
"and" before a verb or a player), fewest steps first. A step with no player of its own is done by the
first step's player, and "it" in a later step is the item named last before it. "then" anywhere makes
the steps ordered (each done after the one before it); joints of "and" and commas alone do not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Normalised:
    """A clause as grammar tokens, and for each token the words of the clause it stands for."""

    symbols: list[str]
    words: list[str]  # the original words of each symbol, for messages
    unresolved: tuple[str, ...] = ()  # why a reference in the words (a pronoun, "Jun's chest") was left as written

    @property
    def text(self) -> str:
        return " ".join(self.symbols)

MAX_JOINTS = 6  # more joints than this in one clause are not tried (2^6 splits at most)
STEP_STARTS = frozenset({
    "mines", "mine", "digs", "dig", "harvests", "harvest", "breaks", "break", "collects", "collect", "gathers",
    "gather", "takes", "take", "uses", "use", "gets", "get", "deposits", "deposit", "stores", "store", "puts", "put",
    "places", "place", "leaves", "leave", "withdraws", "withdraw", "removes", "remove", "retrieves", "retrieve",
    "grabs", "grab", "fetches", "fetch", "picks", "pick", "returns", "return", "brings", "bring", "gives", "give",
    "hands", "hand", "crafts", "craft", "makes", "make", "waits", "wait", "signals", "signal", "notifies", "notify",
    "sends", "send", "transfers", "transfer", "pays", "pay", "does", "will", "shall", "must", "never", "may", "can",
    "should", "only", "always", "agrees", "promises", "drops", "drop", "borrows", "borrow", "signal", "smelts", "smelt",
    "cooks", "cook",
})
_RETURNS = frozenset({"returns", "return", "brings", "bring"})
PRONOUNS = frozenset({"he", "she", "they"})
_TAKES = frozenset({"takes", "take", "borrows", "borrow", "grabs", "grab", "fetches", "fetch", "withdraws", "withdraw"})
_QUANTIFIER_STARTS = ("each", "every", "all", "everyone", "everybody", "nobody", "no")


def _joints(symbols: Sequence[str]) -> list[tuple[int, int, bool]]:
    """(start, end, ordered) of each place the sentence may be cut: the symbols in [start, end) are dropped
    (a run of commas, "and" and "then"); `ordered` when the run holds "then"."""
    out = []
    i = 0
    while i < len(symbols):
        s = symbols[i]
        nxt = symbols[i + 1] if i + 1 < len(symbols) else ""
        if s in (",", "then") or (s == "and" and (nxt in STEP_STARTS or nxt.startswith("@") or nxt in (",", "then"))):
            end = i + 1
            while end < len(symbols) and symbols[end] in (",", "and", "then"):
                end += 1
            out.append((i, end, "then" in symbols[i:end]))
            i = end
            continue
        i += 1
    return [j for j in out if 0 < j[0] and j[1] < len(symbols)]


def _subject(symbols: Sequence[str]) -> list[str]:
    if symbols and symbols[0].startswith("@"):
        return [symbols[0]]
    if len(symbols) > 1 and symbols[0] in ("each", "every") and symbols[1] == "player":
        return list(symbols[:2])
    if symbols and symbols[0] in ("everyone", "everybody", "nobody"):
        return [symbols[0]]
    return []


def _has_subject(symbols: Sequence[str]) -> bool:
    return bool(symbols) and (symbols[0].startswith(("@", "^")) or symbols[0] in _QUANTIFIER_STARTS
                              or symbols[0] in ("if", "whoever", "anyone", "for", "during", "after", "until",
                                                "from", "between", "in", "while", "when", "before", "by", "at"))


def step_splits(norm: Normalised) -> Iterator[tuple[list[Normalised], bool]]:
    """Every way to cut `norm` into steps at its joints, fewest steps first, as (steps, ordered)."""
    symbols, words = norm.symbols, norm.words
    joints = _joints(symbols)[:MAX_JOINTS]
    for k in range(1, len(joints) + 1):
        for chosen in combinations(joints, k):
            pieces: list[Normalised] = []
            start = 0
            for j_start, j_end, _ in chosen:
                pieces.append(Normalised(list(symbols[start:j_start]), list(words[start:j_start])))
                start = j_end
            pieces.append(Normalised(list(symbols[start:]), list(words[start:])))
            if any(not [s for s in p.symbols if s != ","] for p in pieces):
                continue
            yield _completed(pieces), any(ordered for _, _, ordered in chosen)


def _names_part_of(symbol: str, item: str) -> bool:
    """"the pickaxe" after "the iron_pickaxe": a plain word that is the last part of the item named before."""
    return symbol.startswith(("~", "#")) and symbol[1:].rstrip("s") == item[1:].rsplit("_", 1)[-1] != item[1:]


def _completed(pieces: list[Normalised]) -> list[Normalised]:
    """Later steps with the first step's player where they name none, and "it" as the last item named."""
    subject = _subject(pieces[0].symbols)
    out = [pieces[0]]
    last_item, last_taken = None, None
    for piece in pieces:
        symbols, words = list(piece.symbols), list(piece.words)
        if piece is not pieces[0]:
            returning = any(s in _RETURNS for s in symbols[:3]) or "back" in symbols
            it = (last_taken or last_item) if returning else last_item
            if it is not None:
                symbols = [it if s in ("it", "them") or _names_part_of(s, it) else s for s in symbols]
            named = {x for x in pieces[0].symbols if x.startswith("@")}
            if subject and symbols and symbols[0] in PRONOUNS and named == set(subject):  # "..., then she puts ...":
                # the first step's player, when it names no other player "she" could be
                symbols, words = subject + symbols[1:], [pieces[0].words[0]] * len(subject) + words[1:]
            if subject and not _has_subject(symbols):
                symbols, words = subject + symbols, [pieces[0].words[0]] * len(subject) + words
            out.append(Normalised(symbols, words))
        item = next((s for s in reversed(symbols) if s.startswith("#")), None)
        last_item = item or last_item
        if item is not None and ("from" in symbols or any(s in _TAKES for s in symbols[:3])):
            last_taken = item
    return out
