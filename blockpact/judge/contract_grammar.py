"""The controlled contract language: a tokenizer and a recursive-descent parser, one clause at a time.

    clause       := time? player modal? body time?
    body         := transfer-verb amount | phrase | take-verb item "first" turn | verb quantifier? item
    amount       := NUMBER currency per-unit? "to" player per-unit? | player NUMBER currency per-unit?
                  | (NUMBER ("%" | "percent") | "half") "of" "value" "of" owner item "to" player
    per-unit     := ("for" ("each" | "every") | "per") item suffix?
    turn         := ("from" "chest")? "and" ("returns" | "puts") "it" ... "chest" "then" ("signals" player | player take-verb "it")

Words (modals, times, verbs, the world's phrases) come from `data/contract_terms.toml`; articles
are dropped, case is ignored, item names may be plural or written with spaces.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from blockpact.config import read_toml
from blockpact.judge.clauses import (
    Assignment,
    Clause,
    FixedTransfer,
    FreeText,
    PerUnitTransfer,
    ProportionalTransfer,
    TurnTaking,
)

TERMS_FILE = Path(__file__).parent / "data" / "contract_terms.toml"
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|['’]s\b|%")
_NUMBER = re.compile(r"\d+(?:\.\d+)?$")
_MAX_ITEM_WORDS = 4
_QUANTIFIERS = (("all",), ("only",), ("every",))
_BLOCK_WORDS = (("blocks",), ("block",))

Words = tuple[str, ...]


@dataclass(frozen=True)
class Phrase:
    world: str
    alternatives: tuple[Words, ...]
    text: str  # the first alternative as written, used when rendering
    verb: str
    target: str


@dataclass(frozen=True)
class Terms:
    ignored: frozenset[str]
    modals: tuple[Words, ...]
    times: tuple[Words, ...]
    currency: frozenset[str]
    transfer_verbs: frozenset[str]
    per_unit_suffixes: frozenset[str]
    possessives: frozenset[str]
    verbs: dict[str, str]  # inflection -> canonical action
    render: dict[str, str]  # canonical action -> words used when rendering
    phrases: tuple[Phrase, ...]

    def phrases_for(self, world: str | None) -> list[Phrase]:
        """The world's phrases; with no world, those that mean the same in every world defining them."""
        if world is not None:
            return [p for p in self.phrases if p.world == world]
        meanings: dict[Words, set[tuple[str, str]]] = {}
        for p in self.phrases:
            for words in p.alternatives:
                meanings.setdefault(words, set()).add((p.verb, p.target))
        return [p for p in self.phrases if all(len(meanings[w]) == 1 for w in p.alternatives)]


class ClauseError(ValueError):
    """Why a clause is not in the controlled form."""


def tokenize(text: str, ignored: Collection[str] = ()) -> list[str]:
    """Words, numbers, "%" and "'s", as written; punctuation and `ignored` words dropped."""
    return [t.replace("’", "'") for t in _TOKEN.findall(text) if t.lower() not in ignored]


def _word_seqs(texts: Sequence[str], ignored: Collection[str]) -> tuple[Words, ...]:
    # Longest first, so "at end of scenario" wins over "at end".
    seqs = {tuple(t.lower() for t in tokenize(text, ignored)) for text in texts}
    return tuple(sorted(seqs, key=lambda s: (-len(s), s)))


@cache
def load_terms(path: Path = TERMS_FILE) -> Terms:
    raw = read_toml(path)
    ignored = frozenset(w.lower() for w in raw["ignored"])
    verbs = {word: action for action, words in raw["verbs"].items() for word in words}
    phrases = tuple(
        Phrase(p["world"], _word_seqs(p["words"], ignored), p["words"][0], p["verb"], p["target"]) for p in raw["phrases"]
    )
    return Terms(
        ignored=ignored,
        modals=_word_seqs(raw["modals"], ignored),
        times=_word_seqs(raw["times"], ignored),
        currency=frozenset(raw["currency"]),
        transfer_verbs=frozenset(raw["transfer_verbs"]),
        per_unit_suffixes=frozenset(raw["per_unit_suffixes"]),
        possessives=frozenset(raw["possessives"]),
        verbs=verbs,
        render=dict(raw["render"]),
        phrases=phrases,
    )


def singular_forms(name: str) -> list[str]:
    forms = [name]
    if name.endswith("ies"):
        forms.append(name[:-3] + "y")
    if name.endswith("es"):
        forms.append(name[:-2])
    if name.endswith("s"):
        forms.append(name[:-1])
    return forms


class _Parser:
    """One clause's tokens and a position; each method consumes one nonterminal or raises ClauseError."""

    def __init__(self, tokens: list[str], terms: Terms, players: Sequence[str], world: str | None,
                 vocabulary: Collection[str]) -> None:
        self.tokens = tokens
        self.low = [t.lower() for t in tokens]
        self.pos = 0
        self.terms = terms
        self.players = {p.lower(): p for p in players}
        self.phrases = terms.phrases_for(world)
        self.vocabulary = vocabulary
        self.names: list[str] = []  # every player slot filled, for the unknown-player check

    # -- cursor ------------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> str | None:
        i = self.pos + offset
        return self.low[i] if i < len(self.low) else None

    def accept(self, *words: str) -> bool:
        """Consume the sequence `words` if it comes next."""
        if tuple(self.low[self.pos : self.pos + len(words)]) == words:
            self.pos += len(words)
            return True
        return False

    def accept_one_of(self, seqs: Sequence[Words]) -> Words | None:
        for seq in seqs:
            if self.accept(*seq):
                return seq
        return None

    def fail(self, expected: str) -> ClauseError:
        done = " ".join(self.tokens[: self.pos]) or "the start"
        found = f"'{self.tokens[self.pos]}'" if self.pos < len(self.tokens) else "the end of the clause"
        return ClauseError(f"expected {expected} after '{done}', found {found}")

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.fail(f"'{' '.join(words)}'")

    # -- terminals ---------------------------------------------------------------------------
    def player(self) -> str:
        word = self.peek()
        if word is None or not word[0].isalpha() or word in self.terms.verbs or word in self.terms.transfer_verbs:
            raise self.fail("a player name")
        original = self.tokens[self.pos]
        self.pos += 1
        name = self.players.get(word, original)
        self.names.append(name)
        return name

    def number(self) -> float | None:
        word = self.peek()
        if word is None or not _NUMBER.match(word):
            return None
        self.pos += 1
        return float(word)

    def item(self) -> str:
        """The longest run of words naming a known item or block (plural, spaced or underscored)."""
        for n in range(_MAX_ITEM_WORDS, 0, -1):
            words = self.low[self.pos : self.pos + n]
            if len(words) < n or not all(w[0].isalpha() for w in words):
                continue
            for name in singular_forms("_".join(words)):
                if name in self.vocabulary:
                    self.pos += n
                    return name
        raise self.fail("an item name")

    # -- nonterminals ------------------------------------------------------------------------
    def clause(self) -> Clause:
        self.accept_one_of(self.terms.times)
        subject = self.player()
        self.accept_one_of(self.terms.modals)
        verb = self.peek()
        if verb in self.terms.transfer_verbs:
            self.pos += 1
            clause = self.transfer(subject)
        elif (phrase := self.phrase()) is not None:
            clause = Assignment(subject, phrase.verb, phrase.target)
        elif verb in self.terms.verbs:
            self.pos += 1
            clause = self.assignment(subject, self.terms.verbs[verb])
        else:
            raise self.fail("a verb (transfers, mines, collects, takes, ...)")
        self.accept_one_of(self.terms.times)
        if self.pos < len(self.tokens):
            raise self.fail("the end of the clause")
        return clause

    def phrase(self) -> Phrase | None:
        for phrase in self.phrases:
            if self.accept_one_of(phrase.alternatives):
                return phrase
        return None

    def assignment(self, player: str, action: str) -> Clause:
        self.accept_one_of(_QUANTIFIERS)
        self.accept("of")
        target = self.item()
        if action == "take" and self.accept("first"):
            return self.turn(player, target)
        self.accept_one_of(_BLOCK_WORDS)
        return Assignment(player, action, target)

    def turn(self, first: str, item: str) -> TurnTaking:
        self.accept("from", "chest")
        self.expect("and")
        if not (self.accept("returns") or self.accept("puts") or self.accept("brings")):
            raise self.fail("'returns it to the chest'")
        self.expect("it")
        self.accept("back")
        if not (self.accept("to") or self.accept("into") or self.accept("in")):
            raise self.fail("'to the chest'")
        self.expect("chest")
        self.expect("then")
        if self.accept("signals") or self.accept("sends", "signal", "to"):
            return TurnTaking(first, item, self.player(), True)
        then = self.player()
        if self.peek() not in self.terms.verbs or self.terms.verbs[self.peek() or ""] != "take":
            raise self.fail("'signals <player>' or '<player> takes it'")
        self.pos += 1
        self.expect("it")
        return TurnTaking(first, item, then, False)

    def transfer(self, payer: str) -> Clause:
        if self.peek() in self.players:  # "Gizmo pays Glitch 9 emeralds"
            payee = self.player()
            amount = self.number()
            if amount is None or self.peek() not in self.terms.currency:
                raise self.fail("an amount of emeralds")
            self.pos += 1
            unit_item = self.per_unit()
            return PerUnitTransfer(payer, payee, amount, unit_item) if unit_item else FixedTransfer(payer, payee, amount)
        amount = self.number()
        if amount is not None and (self.accept("%") or self.accept("percent")):
            return self.proportional(payer, round(amount / 100, 10))
        if amount is None:
            if self.accept("half"):
                return self.proportional(payer, 0.5)
            raise self.fail("an amount of emeralds or a percentage")
        if self.peek() not in self.terms.currency:
            raise self.fail("'emeralds'")
        self.pos += 1
        unit_item = self.per_unit()
        self.expect("to")
        payee = self.player()
        if unit_item is None:
            unit_item = self.per_unit()
        if unit_item is None:
            return FixedTransfer(payer, payee, amount)
        return PerUnitTransfer(payer, payee, amount, unit_item)

    def per_unit(self) -> str | None:
        if not (self.accept("for", "each") or self.accept("for", "every") or self.accept("per")):
            return None
        item = self.item()
        if self.peek() in self.terms.per_unit_suffixes:
            self.pos += 1
        return item

    def proportional(self, payer: str, fraction: float) -> ProportionalTransfer:
        self.expect("of")
        self.expect("value")
        self.expect("of")
        owner = self.peek()
        if owner in self.terms.possessives:
            self.pos += 1
        else:
            name = self.player()
            self.expect("'s")
            if name != payer:
                raise ClauseError(f"a proportional transfer is a share of the payer's own items, not {name}'s")
        item = self.item()
        self.expect("to")
        return ProportionalTransfer(payer, self.player(), fraction, item)


def _problem(clause: Clause, unknown: list[str], players: Sequence[str]) -> str | None:
    if unknown:
        return f"unknown player {', '.join(repr(n) for n in unknown)} (players: {', '.join(players)})"
    match clause:
        case FixedTransfer(payer, payee) | ProportionalTransfer(payer, payee) | PerUnitTransfer(payer, payee) if payer == payee:
            return f"{payer} cannot pay himself"
        case ProportionalTransfer(fraction=fraction) if fraction > 1:
            return f"a share of {fraction:.0%} is more than the whole value"
        case TurnTaking(first, _, then) if first == then:
            return f"{first} cannot take turns with himself"
    return None


def parse_clause(text: str, players: Sequence[str], *, world: str | None, vocabulary: Collection[str]) -> Clause:
    """The controlled-form clause `text` states, else FreeText with the reason."""
    terms = load_terms()
    parser = _Parser(tokenize(text, terms.ignored), terms, players, world, vocabulary)
    try:
        clause = parser.clause()
    except ClauseError as exc:
        return FreeText(text, f"not in the controlled form: {exc}")
    unknown = [n for n in dict.fromkeys(parser.names) if n not in players]
    problem = _problem(clause, unknown, players)
    return FreeText(text, problem) if problem else clause


def render_assignment(clause: Assignment, world: str | None) -> str:
    """Uses the world's phrase for the action when it has one ("Glitch cleans the river.")."""
    for phrase in load_terms().phrases_for(world):
        if (phrase.verb, phrase.target) == (clause.verb, clause.target):
            return f"{clause.player} {phrase.text}."
    return f"{clause.player} {load_terms().render[clause.verb]} {clause.target}."
