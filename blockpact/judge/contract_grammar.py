"""The controlled contract language: the grammar in `data/contract.lark`, read by Lark, one clause at a time.

A clause is first normalised to the grammar's tokens (`normalise`): words lower-cased, articles
and punctuation dropped, players, items and the world's phrases (`data/contract_terms.toml`)
recognised, so the grammar itself stays a readable list of clause forms. The parse tree becomes
clause objects in `contract_tree`; a clause that does not parse is `FreeText` with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from blockpact.config import read_toml
from blockpact.judge.clauses import Assignment, Clause, FreeText
from blockpact.judge.contract_tree import ClauseError, to_clause

GRAMMAR_FILE = Path(__file__).parent / "data" / "contract.lark"
TERMS_FILE = Path(__file__).parent / "data" / "contract_terms.toml"
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|['’]s\b|%")
_NUMBER = re.compile(r"\d+(?:\.\d+)?$")
_MAX_ITEM_WORDS = 4
_DESCRIBE = {  # how a message names what was expected (None: not named)
    "PLAYER": "a player name", "ITEM": "an item name", "NUMBER": "a number", "NAME": "a chest name",
    "UNKNOWN": None, "PHRASE": None,
}
_MAX_EXPECTED = 8

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


def tokenize(text: str, ignored: Collection[str] = ()) -> list[str]:
    """Words, numbers, "%" and "'s", as written; punctuation and `ignored` words dropped."""
    return [t.replace("’", "'") for t in _TOKEN.findall(text) if t.lower() not in ignored]


def _word_seqs(texts: Sequence[str], ignored: Collection[str]) -> tuple[Words, ...]:
    seqs = {tuple(t.lower() for t in tokenize(text, ignored)) for text in texts}
    return tuple(sorted(seqs, key=lambda s: (-len(s), s)))  # longest first


@cache
def load_terms(path: Path = TERMS_FILE) -> Terms:
    raw = read_toml(path)
    ignored = frozenset(w.lower() for w in raw["ignored"])
    phrases = tuple(
        Phrase(p["world"], _word_seqs(p["words"], ignored), p["words"][0], p["verb"], p["target"]) for p in raw["phrases"]
    )
    return Terms(ignored=ignored, render=dict(raw["render"]), phrases=phrases)


@cache
def grammar_parser() -> Lark:
    """The Lark parser of `data/contract.lark` (Earley: clause forms may share prefixes)."""
    return Lark(GRAMMAR_FILE.read_text(), parser="earley", lexer="basic", start="start")


@cache
def keywords() -> frozenset[str]:
    """Every word the grammar spells out ("mines", "each", "emeralds", ...)."""
    return frozenset(
        t.pattern.value for t in grammar_parser().terminals if isinstance(t.pattern, PatternStr)
    )


@cache
def _keyword_names() -> dict[str, str]:
    return {t.name: t.pattern.value for t in grammar_parser().terminals if isinstance(t.pattern, PatternStr)}


def singular_forms(name: str) -> list[str]:
    forms = [name]
    if name.endswith("ies"):
        forms.append(name[:-3] + "y")
    if name.endswith("es"):
        forms.append(name[:-2])
    if name.endswith("s"):
        forms.append(name[:-1])
    return forms


@dataclass(frozen=True)
class Normalised:
    """A clause as grammar tokens, and for each token the words of the clause it stands for."""

    symbols: list[str]
    words: list[str]  # the original words of each symbol, for messages

    @property
    def text(self) -> str:
        return " ".join(self.symbols)


def normalise(text: str, players: Sequence[str], phrases: Sequence[Phrase], vocabulary: Collection[str]) -> Normalised:
    """`text` as the grammar's tokens: PLAYER @Name, ITEM #name, PHRASE $n, keywords, numbers; other
    words are UNKNOWN ^Word when capitalised (perhaps a misspelt player), else NAME ~word."""
    tokens = tokenize(text, load_terms().ignored)
    low = [t.lower() for t in tokens]
    by_name = {p.lower(): p for p in players}
    words = keywords()
    symbols: list[str] = []
    originals: list[str] = []
    i = 0
    while i < len(low):
        symbol, n = _symbol_at(tokens, low, i, by_name, phrases, vocabulary, words)
        symbols.append(symbol)
        originals.append(" ".join(tokens[i : i + n]))
        i += n
    return Normalised(symbols, originals)


def _symbol_at(tokens: list[str], low: list[str], i: int, by_name: dict[str, str], phrases: Sequence[Phrase],
               vocabulary: Collection[str], words: Collection[str]) -> tuple[str, int]:
    word = low[i]
    for index, phrase in enumerate(phrases):
        for alternative in phrase.alternatives:
            if tuple(low[i : i + len(alternative)]) == alternative:
                return f"${index}", len(alternative)
    if _NUMBER.match(word) or word in ("%", "'s"):
        return word, 1
    if word in by_name:
        return f"@{by_name[word]}", 1
    for n in range(_MAX_ITEM_WORDS, 0, -1):
        run = low[i : i + n]
        if len(run) < n or not all(w[0].isalpha() for w in run) or (n == 1 and word in words):
            continue
        for name in singular_forms("_".join(run)):
            if name in vocabulary:
                return f"#{name}", n
    if word in words:
        return word, 1
    return (f"^{tokens[i]}" if tokens[i][0].isupper() else f"~{word}"), 1


@cache
def _verb_terminals() -> frozenset[str]:
    """Keyword terminals of the rules naming verbs (`*_verb`) and modals: listed as one group in messages."""
    return frozenset(
        sym.name for rule in grammar_parser().rules
        if str(rule.origin.name).endswith(("_verb", "modal")) for sym in rule.expansion if sym.is_term
    )


def _expected_text(expected: Collection[str]) -> str:
    names = _keyword_names()
    described = sorted({_DESCRIBE.get(e) or "" for e in expected if e in _DESCRIBE} - {""})
    if "$END" in expected:
        described.append("the end of the clause")
    verbs = sorted(names[e] for e in expected if e in _verb_terminals())
    if len(verbs) > 2:
        described.insert(0, f"a verb ({', '.join(verbs[:6])}, ...)")
        expected = [e for e in expected if e not in _verb_terminals()]
    spelled = sorted(f"'{names[e]}'" for e in expected if e in names)
    options = described + spelled
    if len(options) > _MAX_EXPECTED:
        options = options[:_MAX_EXPECTED] + [f"{len(options) - _MAX_EXPECTED} more"]
    return " or ".join(options) if len(options) <= 2 else ", ".join(options[:-1]) + " or " + options[-1]


def _parses(text: str) -> bool:
    try:
        grammar_parser().parse(text)
    except UnexpectedInput:
        return False
    return True


def _syntax_error(exc: UnexpectedInput, norm: Normalised) -> ClauseError:
    """Where the clause left the grammar: what was read, what came, what would have fitted."""
    starts, pos = [], 0
    for symbol in norm.symbols:
        starts.append(pos)
        pos += len(symbol) + 1
    if isinstance(exc, UnexpectedEOF):
        index, expected = len(norm.symbols), exc.expected
    elif isinstance(exc, UnexpectedToken):
        index = starts.index(exc.token.start_pos) if exc.token.start_pos in starts else len(norm.symbols)
        expected = exc.expected
    elif isinstance(exc, UnexpectedCharacters):
        index = max((k for k, s in enumerate(starts) if s <= exc.pos_in_stream), default=0)
        expected = exc.allowed or set()
    else:  # pragma: no cover - Lark's three kinds above are all it raises
        raise exc
    if index < len(norm.symbols) and _parses(" ".join(norm.symbols[:index])):
        expected = {*expected, "$END"}
    done = " ".join(norm.words[:index]) or "the start"
    found = f"'{norm.words[index]}'" if index < len(norm.words) else "the end of the clause"
    if found.startswith("'") and norm.symbols[index].startswith("~") and "ITEM" in expected:
        found += " (not an item or block name)"
    return ClauseError(f"expected {_expected_text(expected) or 'the end of the clause'} after '{done}', found {found}")


def parse_clause(text: str, players: Sequence[str], *, world: str | None, vocabulary: Collection[str]) -> Clause:
    """The controlled-form clause `text` states, else FreeText with the reason. Clauses recur (every
    episode of a run reads its contract, the search renders and reads each candidate); Earley parsing
    takes milliseconds, so results are kept per clause, players, world and vocabulary."""
    if isinstance(vocabulary, frozenset):
        return _parse_cached(text, tuple(players), world, vocabulary)
    return _parse(text, players, world, vocabulary)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, players: tuple[str, ...], world: str | None, vocabulary: frozenset[str]) -> Clause:
    return _parse(text, players, world, vocabulary)


def _parse(text: str, players: Sequence[str], world: str | None, vocabulary: Collection[str]) -> Clause:
    phrases = load_terms().phrases_for(world)
    norm = normalise(text, players, phrases, vocabulary)
    if not norm.symbols:
        return FreeText(text, "not in the controlled form: an empty clause")
    try:
        tree = grammar_parser().parse(norm.text)
    except UnexpectedInput as exc:
        return FreeText(text, f"not in the controlled form: {_syntax_error(exc, norm)}")
    try:
        return to_clause(tree, players, phrases)
    except ClauseError as exc:
        return FreeText(text, str(exc))


def render_assignment(clause: Assignment, world: str | None) -> str:
    """Uses the world's phrase for the action when it has one ("Glitch cleans the river.")."""
    for phrase in load_terms().phrases_for(world):
        if (phrase.verb, phrase.target) == (clause.verb, clause.target):
            return f"{clause.player} {phrase.text}."
    return f"{clause.player} {load_terms().render[clause.verb]} {clause.target}."
