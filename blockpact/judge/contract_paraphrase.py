"""Casual wordings of the clause forms read as the grammar's own words: the rules of
`data/contract_paraphrases.toml` (each a pattern over a clause's symbols and what to put in its place), applied in
order by one interpreter, so a new wording is a line of data and not a grammar rule.

Applied after players, items, chests and regions are recognised (`#iron_ore`, `@Ann`, `+cache`) and before
pronouns are resolved; each rewritten symbol keeps the words it came from, so messages quote the clause as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.config import read_toml
from blockpact.judge.contract_steps import Normalised

PARAPHRASES_FILE = Path(__file__).parent / "data" / "contract_paraphrases.toml"
_CLASSES = {"PLAYER": "@", "ITEM": "#", "CHEST": "+", "REGION": "&"}
_TOOLS = ("_pickaxe", "_axe", "_shovel", "_hoe", "_sword", "_shears")


@dataclass(frozen=True)
class _Token:
    options: tuple[str, ...]  # words, or a class name (PLAYER, ITEM, TOOL, CHEST, REGION, NUMBER)
    optional: bool

    def matches(self, symbol: str) -> bool:
        for option in self.options:
            if option in _CLASSES and symbol.startswith(_CLASSES[option]):
                return True
            if option == "NUMBER" and symbol.replace(".", "", 1).isdigit():
                return True
            if option == "TOOL" and symbol.startswith("#") and symbol.endswith(_TOOLS):
                return True
            if option == symbol:
                return True
        return False


@dataclass(frozen=True)
class Rewrite:
    tokens: tuple[_Token, ...]
    into: tuple[str, ...]
    at: str | None  # "start" | "end" | None (anywhere)
    not_after: frozenset[str]
    not_before: frozenset[str]

    def match_at(self, symbols: list[str], start: int) -> tuple[int, list[list[str]]] | None:
        """(end, what each token matched) of a match starting at `start`, else None; an optional token is tried
        matched first, then skipped."""
        def walk(t: int, i: int, got: list[list[str]]) -> tuple[int, list[list[str]]] | None:
            if t == len(self.tokens):
                return i, got
            token = self.tokens[t]
            if i < len(symbols) and token.matches(symbols[i]):
                found = walk(t + 1, i + 1, [*got, [symbols[i]]])
                if found is not None:
                    return found
            return walk(t + 1, i, [*got, []]) if token.optional else None

        if start > 0 and symbols[start - 1] in self.not_after:
            return None
        found = walk(0, start, [])
        if found is None or found[0] == start:
            return None
        end = found[0]
        if end < len(symbols) and symbols[end] in self.not_before:
            return None
        if self.at == "end" and any(s != "," for s in symbols[end:]):
            return None
        return found

    def replacement(self, got: list[list[str]]) -> list[str]:
        out: list[str] = []
        for word in self.into:
            out.extend(got[int(word[1:]) - 1] if word.startswith("$") else [word])
        return out


def _token(text: str) -> _Token:
    optional = text.endswith("?")
    return _Token(tuple(text.rstrip("?").split("|")), optional)


@cache
def rewrites(path: Path = PARAPHRASES_FILE) -> tuple[Rewrite, ...]:
    """The rules of the paraphrase file, in order."""
    raw = read_toml(path)
    return tuple(
        Rewrite(tuple(_token(t) for t in r["match"].split()), tuple(r["into"].split()), r.get("at"),
                frozenset(r.get("not_after", ())), frozenset(r.get("not_before", ())))
        for r in raw["rewrite"]
    )


def paraphrased(norm: Normalised) -> Normalised:
    """`norm` with every rule applied where it matches (rules in order; each rewritten run keeps its words)."""
    symbols, words = list(norm.symbols), list(norm.words)
    for rule in rewrites():
        i = 0
        while i < len(symbols):
            if rule.at == "start" and i > 0:
                break
            found = rule.match_at(symbols, i)
            if found is None:
                i += 1
                continue
            end, got = found
            new = rule.replacement(got)
            said = " ".join(words[i:end])
            symbols[i:end], words[i:end] = new, [said, *[""] * (len(new) - 1)][: len(new)]  # quoted once
            i += max(len(new), 1)
    return shared_move(only_after_signals(Normalised(symbols, words, norm.unresolved)))


_MOVES = frozenset({"deposits", "deposit", "puts", "put", "places", "place", "stores", "store", "drops", "drop",
                    "takes", "take", "withdraws", "withdraw", "removes", "remove", "retrieves", "retrieve", "grabs",
                    "grab", "fetches", "fetch", "gets", "get"})
_OWN = frozenset({"his", "her", "their", "its"})
_PLACE_WORDS = frozenset({"into", "in", "inside", "to", "from", "out"})


def _item_at(symbols: list[str], k: int) -> int | None:
    """The end of "[N | all] [his] ITEM [block(s)]" starting at `k`, else None."""
    if k < len(symbols) and (symbols[k].replace(".", "", 1).isdigit() or symbols[k] == "all"):
        k += 1
    if k < len(symbols) and symbols[k] in _OWN:
        k += 1
    if k >= len(symbols) or not symbols[k].startswith("#"):
        return None
    k += 1
    return k + 1 if k < len(symbols) and symbols[k] in ("block", "blocks") else k


def shared_move(norm: Normalised) -> Normalised:
    """"Pia takes the 3 iron ingots and 2 sticks from the depot": one move of each item, "Pia takes 3 iron_ingot from
    the depot and takes 2 stick from the depot" (the verb and the chest said once for several items). Not in a clause
    of steps said in order ("..., then signals Ann"), where each step must follow the one before and the items would
    have an order nobody said."""
    symbols, words = list(norm.symbols), list(norm.words)
    if "then" in symbols:  # steps said in order bind each after the one before: the items' order was not said
        return norm
    for v in range(len(symbols) - 1, -1, -1):
        if symbols[v] not in _MOVES:
            continue
        spans, k = [], v + 1
        while (end := _item_at(symbols, k)) is not None:
            spans.append((k, end))
            if end < len(symbols) and symbols[end] in ("and", ",") and _item_at(symbols, end + 1) is not None:
                k = end + 1
            elif end + 1 < len(symbols) and symbols[end] == "," and symbols[end + 1] == "and" \
                    and _item_at(symbols, end + 2) is not None:
                k = end + 2
            elif end < len(symbols) and symbols[end].replace(".", "", 1).isdigit() and _item_at(symbols, end):
                k = end  # "2 oak logs, 1 stick": a comma before a number is not kept
            else:
                break
        if len(spans) < 2 or spans[-1][1] >= len(symbols) or symbols[spans[-1][1]] not in _PLACE_WORDS:
            continue
        tail_end = next((j for j in range(spans[-1][1], len(symbols)) if symbols[j] in (",", "then", "and")), len(symbols))
        tail = (symbols[spans[-1][1]:tail_end], words[spans[-1][1]:tail_end])
        new_s: list[str] = []
        new_w: list[str] = []
        for n, (a, b) in enumerate(spans):
            if n:
                new_s.append("and")
                new_w.append("")
            new_s += [symbols[v], *symbols[a:b], *tail[0]]
            new_w += [words[v] if n == 0 else "", *words[a:b], *(tail[1] if n == len(spans) - 1 else [""] * len(tail[1]))]
        symbols[v:tail_end], words[v:tail_end] = new_s, new_w
    return Normalised(symbols, words, norm.unresolved)


_SIGNALLED = frozenset({"signalled", "signaled"})
_OBJECTS = frozenset({"~him", "her", "them", "~us", "~me"})


def only_after_signals(norm: Normalised) -> Normalised:
    """"Ana takes 3 diamonds from the pot, but only after Bo and Cal have both signalled her": a wait said as a step,
    "Ana waits for Bo's signal and Cal's signal, then takes 3 diamonds from the pot" (the act is still promised; only
    the steps after the wait are held back)."""
    symbols, words = list(norm.symbols), list(norm.words)
    if not symbols or not symbols[0].startswith("@"):
        return norm
    end = len(symbols)
    while end and symbols[end - 1] == ",":
        end -= 1
    if end and symbols[end - 1] in _OBJECTS:
        end -= 1
    if not end or symbols[end - 1] not in _SIGNALLED:
        return norm
    k = end - 1
    if k and symbols[k - 1] == "both":
        k -= 1
    if not k or symbols[k - 1] not in ("have", "has"):
        return norm
    k -= 1
    senders: list[str] = []
    while k > 0 and (symbols[k - 1].startswith("@") or symbols[k - 1] == "and"):
        k -= 1
        if symbols[k].startswith("@"):
            senders.insert(0, symbols[k])
    if k > 0 and symbols[k - 1] == "both":
        k -= 1
    if not senders or k < 2 or symbols[k - 1] != "after" or symbols[k - 2] != "only":
        return norm
    start = k - 2
    while start > 0 and symbols[start - 1] in (",", "but"):
        start -= 1
    act = symbols[1:start]
    if not act or "then" in act or symbols[0] in senders:
        return norm
    wait = ["waits", "for"] + [x for s in senders for x in (s, "'s", "signal", "and")][:-1]
    said = " ".join(w for w in words[start:] if w)
    new_symbols = [symbols[0], *wait, ",", "then", *act]
    new_words = [words[0], said, *[""] * (len(wait) + 1), *words[1:start]]
    return Normalised(new_symbols, new_words, norm.unresolved)
