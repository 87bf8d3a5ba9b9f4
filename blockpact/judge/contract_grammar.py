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
from blockpact.judge.clause_meaning import GENERIC_CHEST_WORDS, singular_forms
from blockpact.judge.clauses import Assignment, Clause, FreeText, Steps
from blockpact.judge.contract_failure import failure_payment
from blockpact.judge.contract_hints import deed_hints, form_hints
from blockpact.judge.contract_paraphrase import paraphrased
from blockpact.judge.contract_refs import resolve_refs
from blockpact.judge.contract_words import ASIDES, CONTRACTIONS, NUMBER, numbers, opening, then_words, uses_it_to
from blockpact.judge.contract_lexicon import Lexicon
from blockpact.judge.contract_steps import Normalised, step_splits
from blockpact.judge.contract_tree import ClauseError, to_clause

GRAMMAR_FILE = Path(__file__).parent / "data" / "contract.lark"
TERMS_FILE = Path(__file__).parent / "data" / "contract_terms.toml"
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|['’]s\b|%")
_TOKEN_OR_COMMA = re.compile(_TOKEN.pattern + r"|,(?!\s*\d)|;|\.(?=\s+[A-Z])")  # a sentence's end joins steps as a comma
_MAX_ITEM_WORDS = 4
_DESCRIBE = {  # how a message names what was expected (None: not named)
    "PLAYER": "a player name", "ITEM": "an item name", "NUMBER": "a number", "NAME": "a chest name",
    "CHEST": "a chest the world names", "REGION": "a region the world names", "UNKNOWN": None, "PHRASE": None,
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


def tokenize(text: str, ignored: Collection[str] = (), commas: bool = False) -> list[str]:
    """Words, numbers, "%" and "'s", as written ("doesn't" as "does not"); punctuation and `ignored` words
    dropped, but with `commas` a comma between words (where a sentence may join two steps) is kept, and so is the
    end of a sentence another follows in the same clause ("... the cache chest. Then she signals Hal."), as a comma."""
    for pattern, words in (*CONTRACTIONS, *ASIDES):
        text = pattern.sub(words, text)
    found = (_TOKEN_OR_COMMA if commas else _TOKEN).findall(text)
    return ["," if t in ".;" else t.replace("’", "'") for t in found if t.lower() not in ignored]


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


def normalise(text: str, players: Sequence[str], phrases: Sequence[Phrase], vocabulary: Collection[str],
              lexicon: Lexicon | None = None) -> Normalised:
    """`text` as the grammar's tokens: PLAYER @Name, ITEM #name, CHEST +name, REGION &name, PHRASE $n,
    keywords, numbers; other words are UNKNOWN ^Word when capitalised (perhaps a misspelt player), else NAME ~word."""
    tokens = numbers(uses_it_to(then_words(opening(tokenize(text, load_terms().ignored, commas=True)))))
    low = [t.lower() for t in tokens]
    by_name = {p.lower(): p for p in players}
    words = keywords()
    places = _places(lexicon)
    symbols: list[str] = []
    originals: list[str] = []
    i = 0
    while i < len(low):
        members = _group_at(low, i, lexicon)
        if members is not None:  # "the east clan": its members, as "Ka and Lu and Mo"
            listed, n = members
            k = next((len(w) for w in _EACH_OF if [x.lower() for x in symbols[-len(w):]] == list(w)), 0)
            if k:  # "each member of the east clan": each of its members
                said = " ".join([*originals[-k:], *tokens[i : i + n]])
                del symbols[-k:], originals[-k:]
                listed = [*listed, "each"]
            else:
                said = " ".join(tokens[i : i + n])
            symbols += listed
            originals += [said, *[""] * (len(listed) - 1)]
            i += n
            continue
        symbol, n = (_place_at(low, i, places, long=True)
                     or _symbol_at(tokens, low, i, by_name, phrases, vocabulary, words, places, lexicon))
        symbols.append(symbol)
        originals.append(" ".join(tokens[i : i + n]))
        i += n
    symbols = ["2" if s == "both" and nxt.startswith("#") else s for s, nxt in zip(symbols, [*symbols[1:], ""])]  # "both diamonds"
    casual = paraphrased(Normalised(_pronoun_places(symbols), originals))
    symbols, originals = list(casual.symbols), list(casual.words)
    for k in range(len(symbols) - 2, 0, -1):  # "all three players": the count says nothing when it is everyone
        if symbols[k - 1] in ("all", "both") and symbols[k + 1] in ("players", "player") and symbols[k] == str(len(players)):
            del symbols[k], originals[k]
    for k in range(len(symbols) - 1, 0, -1):  # "each of the other three (players)": every other player, when it is them
        if symbols[k - 1] == "other" and symbols[k] == str(len(players) - 1):
            if symbols[k + 1 : k + 2] == ["players"]:
                del symbols[k], originals[k]
            else:
                symbols[k] = "players"
    last = max((k for k, s in enumerate(symbols) if s != ","), default=-1)
    if last > 0 and symbols[last] == "only" and symbols[last - 1].startswith("#"):
        symbols[last] = "exclusively"  # "Ann mines pumpkins only.": not "only in the north patch", which a region follows
    return resolve_refs(Normalised(symbols, originals), players, lexicon)


_EACH_OF = (("each", "player", "of"), ("every", "player", "of"), ("each", "~member", "of"), ("every", "~member", "of"),
            ("each", "of"), ("every", "one", "of"), ("each", "one", "of"))


def _group_at(low: list[str], i: int, lexicon: Lexicon | None) -> tuple[list[str], int] | None:
    """The members of the world's player group named at `i` (its longest words), as "@Ka and @Lu and @Mo"."""
    for words, members in (lexicon.groups if lexicon is not None else ()):
        if tuple(low[i : i + len(words)]) == words and (len(words) > 1 or words[0] not in keywords()):
            listed = [x for m in members for x in (f"@{m}", "and")][:-1]
            return listed, len(words)
    return None


def _pronoun_places(symbols: list[str]) -> list[str]:
    """"... in the north patch when it holds fewer than 5 pumpkins": "it" after a condition's word is the region named before."""
    out = list(symbols)
    for k in range(1, len(out)):
        if out[k] == "it" and out[k - 1] in ("while", "when", "whenever", "if"):
            region = next((s for s in reversed(out[:k]) if s.startswith("&")), None)
            if region is not None:
                out[k] = region
    return out


def _places(lexicon: Lexicon | None) -> list[tuple[Words, str]]:
    """(words, symbol) of the world's chests and regions, longest first."""
    if lexicon is None:
        return []
    pairs = [(w, f"+{n}") for w, n in lexicon.chests] + [(w, f"&{n}") for w, n in lexicon.regions]
    return sorted(pairs, key=lambda p: -len(p[0]))


def _place_at(low: list[str], i: int, places: Sequence[tuple[Words, str]], long: bool) -> tuple[str, int] | None:
    """A chest or region named at `i`: names of two words or more before items (`long`), one-word names after."""
    for words, symbol in places:
        if (len(words) > 1) == long and tuple(low[i : i + len(words)]) == words:
            return symbol, len(words)
    return None


def _symbol_at(tokens: list[str], low: list[str], i: int, by_name: dict[str, str], phrases: Sequence[Phrase],
               vocabulary: Collection[str], words: Collection[str], places: Sequence[tuple[Words, str]] = (),
               lexicon: Lexicon | None = None) -> tuple[str, int]:
    word = low[i]
    if word in GENERIC_CHEST_WORDS and low[i + 1 : i + 2] == ["chest"]:
        return f"~{word}", 1  # "the shared chest": a chest's name, whatever else the word means
    for index, phrase in enumerate(phrases):
        for alternative in phrase.alternatives:
            if tuple(low[i : i + len(alternative)]) == alternative:
                return f"${index}", len(alternative)
    if NUMBER.match(word) or word in ("%", "'s", ","):
        return word, 1
    if word in by_name:
        return f"@{by_name[word]}", 1
    for n in range(_MAX_ITEM_WORDS, 0, -1):
        run = low[i : i + n]
        if len(run) < n or not all(w[0].isalpha() for w in run) or (n == 1 and word in words):
            continue
        for name in singular_forms("_".join(run)):
            if name in vocabulary:
                return f"#{lexicon.within_world(name) if lexicon is not None else name}", n
    place = _place_at(low, i, places, long=False)
    if place is not None and (word not in words or _names_a_chest_here(low, i, place)):
        return place
    if lexicon is not None and word not in words:
        pair = low[i : i + 2]
        if len(pair) == 2 and pair[1] in ("block", "blocks"):  # "mushroom blocks": the world's one *_mushroom_block
            found = lexicon.block_candidates(f"{pair[0]}_block")
            if len(found) == 1:
                return f"#{found[0]}", 2
        loose = next((f for f in singular_forms(word) if lexicon.loose_name(f)), None)
        if loose is not None:  # "iron" in a world whose only iron block is iron_ore: resolved where the clause says
            return f"#{loose}", 1
    if word in words:
        return word, 1
    return (f"^{tokens[i]}" if tokens[i][0].isupper() else f"~{word}"), 1


_CHEST_BEFORE = frozenset({"into", "in", "inside", "to", "from", "of", "named", "called"})


def _names_a_chest_here(low: list[str], i: int, place: tuple[str, int]) -> bool:
    """A world's chest whose one-word name is also a word of the grammar ("pool"): read as the chest where a chest
    stands ("into the pool chest", "from the pool"), as the grammar's word elsewhere ("share ... pool")."""
    return place[0].startswith("+") and (low[i + 1 : i + 2] == ["chest"] or (i > 0 and low[i - 1] in _CHEST_BEFORE))


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
    return not isinstance(_tree_or_error(text), UnexpectedInput)


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
    done = " ".join(w for w in norm.words[:index] if w) or "the start"
    found = f"'{norm.words[index]}'" if index < len(norm.words) else "the end of the clause"
    if found.startswith("'") and norm.symbols[index].startswith("~") and "ITEM" in expected:
        found += " (not an item or block name)"
    return ClauseError(f"expected {_expected_text(expected) or 'the end of the clause'} after '{done}', found {found}")


def parse_clause(text: str, players: Sequence[str], *, world: str | None, lexicon: Lexicon) -> Clause:
    """The controlled-form clause `text` states, else FreeText with the reason. Clauses recur (every
    episode of a run reads its contract, the search renders and reads each candidate); Earley parsing
    takes milliseconds, so results are kept per clause, players, world and lexicon."""
    return _parse_cached(text, tuple(players), world, lexicon)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, players: tuple[str, ...], world: str | None, lexicon: Lexicon) -> Clause:
    failed = failure_payment(text, lambda part: _parse_cached(part, players, world, lexicon))
    if failed is not None:
        return failed
    phrases = load_terms().phrases_for(world)
    norm = normalise(text, players, phrases, lexicon.vocabulary, lexicon)
    if not [s for s in norm.symbols if s != ","]:
        return FreeText(text, "not in the controlled form: an empty clause")
    whole = _read(norm, players, phrases, lexicon)
    if not isinstance(whole, ClauseError) or whole.kind != "syntax":
        return FreeText(text, str(whole)) if isinstance(whole, ClauseError) else whole
    refused: ClauseError | None = None  # a split whose steps all parse, but one names what it cannot
    for pieces, ordered in step_splits(norm):
        steps = [_read(piece, players, phrases, lexicon) for piece in pieces]
        errors = [step for step in steps if isinstance(step, ClauseError)]
        if not errors:
            return Steps(tuple(steps), ordered)  # type: ignore[arg-type]
        if refused is None and all(e.kind != "syntax" for e in errors):
            refused = errors[0]
    if refused:
        return FreeText(text, str(refused))
    first = [*norm.unresolved, *deed_hints(text, players)]  # what the clause leaves unsaid, before where parsing stopped
    return FreeText(text, "; ".join(first) + f" ({whole})" if first else str(whole) + form_hints(text))


@lru_cache(maxsize=8192)
def _tree_or_error(symbols: str):
    """The parse tree of `symbols`, or the UnexpectedInput it raised: failures are kept too, since splitting a
    sentence into steps tries the same pieces again."""
    try:
        return grammar_parser().parse(symbols)
    except UnexpectedInput as exc:
        return exc


def _tree(symbols: str):
    found = _tree_or_error(symbols)
    if isinstance(found, UnexpectedInput):
        raise found
    return found


def _read(norm: Normalised, players: Sequence[str], phrases: Sequence[Phrase], lexicon: Lexicon) -> Clause | ClauseError:
    """One clause (commas dropped), or the ClauseError saying why not (`kind` "syntax" when it left the grammar)."""
    kept = [(s, w) for s, w in zip(norm.symbols, norm.words) if s != ","]
    plain = Normalised([s for s, _ in kept], [w for _, w in kept])
    try:
        tree = _tree(plain.text)
    except UnexpectedInput as exc:
        error = _syntax_error(exc, plain)
        return ClauseError(f"not in the controlled form: {error}", kind="syntax")
    try:
        return to_clause(tree, players, phrases, lexicon)
    except ClauseError as exc:
        return exc


def render_assignment(clause: Assignment, world: str | None) -> str:
    """Uses the world's phrase for the action when it has one ("Glitch cleans the river.")."""
    for phrase in load_terms().phrases_for(world):
        if (phrase.verb, phrase.target) == (clause.verb, clause.target):
            return f"{clause.player} {phrase.text}."
    return f"{clause.player} {load_terms().render[clause.verb]} {clause.target}."
