"""From a parse tree of `data/contract.lark` to clause objects, with the checks a grammar cannot make.

Quantifiers are expanded here: "each player" and "every other player" become a `ForEach` with one
clause per player of the scenario. Problems found here (an unknown player, a fractional count, a
player paying himself) make the clause free text with that reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lark import Token, Transformer, Tree
from lark.visitors import Discard

from blockpact.judge.clauses import (
    Assignment,
    Clause,
    Craft,
    Deposit,
    FixedTransfer,
    ForEach,
    Give,
    Penalty,
    PerUnitTransfer,
    Pool,
    ProportionalTransfer,
    Quota,
    Signal,
    TotalQuota,
    TurnTaking,
    WaitFor,
)


class ClauseError(ValueError):
    """Why a clause is not in the controlled form, or names something it cannot."""


@dataclass(frozen=True)
class Item:
    name: str


@dataclass(frozen=True)
class Unknown:
    """A word where a player's name belongs that is no player of the scenario."""

    name: str


@dataclass(frozen=True)
class Verb:
    action: str  # mine | collect | take


@dataclass(frozen=True)
class Count:
    value: float


@dataclass(frozen=True)
class Money:
    amount: float


@dataclass(frozen=True)
class Share:
    fraction: float


@dataclass(frozen=True)
class PerUnit:
    item: str


@dataclass(frozen=True)
class Owner:
    player: str | None  # None: the payer's own ("his")


@dataclass(frozen=True)
class Chest:
    name: str  # "" any chest


@dataclass(frozen=True)
class Period:
    seconds: float


@dataclass(frozen=True)
class Bound:
    kind: str  # at_most | at_least


@dataclass(frozen=True)
class ClauseRef:
    number: int | None


@dataclass(frozen=True)
class Quantifier:
    words: str  # "each player" | "every other player" | "anyone"


EACH = Quantifier("each player")
OTHERS = Quantifier("every other player")
ANYONE = Quantifier("anyone")
ALL = object()  # "all" of an item


def _whole(count: Count | None, what: str) -> int | None:
    if count is None:
        return None
    if count.value != int(count.value):
        raise ClauseError(f"{what} must be a whole number, got {count.value:g}")
    return int(count.value)


def _one(children: list, kind: type, default=None):
    return next((c for c in children if isinstance(c, kind)), default)


def _players_in(children: list) -> list[str | Quantifier]:
    return [c for c in children if isinstance(c, (str, Quantifier)) and not isinstance(c, Token)]


class _ToClause(Transformer):
    """Bottom-up: terminals to typed values, rules to clauses."""

    def __init__(self, players: Sequence[str], phrases: Sequence) -> None:
        super().__init__()
        self.players = list(players)
        self.phrases = phrases
        self.unknown: list[str] = []

    # -- terminals and small rules ----------------------------------------------------------------
    def PLAYER(self, tok: Token) -> str:
        return str(tok[1:])

    def NAME(self, tok: Token) -> Unknown:
        return Unknown(str(tok[1:]))

    UNKNOWN = NAME

    def ITEM(self, tok: Token) -> Item:
        return Item(str(tok[1:]))

    def NUMBER(self, tok: Token) -> float:
        return float(tok)

    def player(self, children: list) -> str:
        [name] = children
        if isinstance(name, Unknown):
            self.unknown.append(name.name)
            return name.name
        return name

    def each_player(self, _: list) -> Quantifier:
        return EACH

    def others(self, _: list) -> Quantifier:
        return OTHERS

    def breaker(self, _: list) -> Quantifier:
        return ANYONE

    def group(self, children: list) -> tuple[str, ...]:
        return tuple(children) or tuple(self.players)

    def mine_verb(self, _: list) -> Verb:
        return Verb("mine")

    def collect_verb(self, _: list) -> Verb:
        return Verb("collect")

    def take_verb(self, _: list) -> Verb:
        return Verb("take")

    def count(self, children: list) -> Count:
        return Count(children[0])

    def all_items(self, _: list) -> object:
        return ALL

    def at_most(self, _: list) -> Bound:
        return Bound("at_most")

    def at_least(self, _: list) -> Bound:
        return Bound("at_least")

    def seconds(self, _: list) -> float:
        return 1.0

    def minutes(self, _: list) -> float:
        return 60.0

    def period(self, children: list) -> Period:
        *number, unit = children
        return Period((number[0] if number else 1.0) * unit)

    def chest(self, children: list) -> Chest:
        name = _one(children, Unknown)
        return Chest(name.name.lower() if name else "")

    def from_chest(self, children: list) -> Chest:
        return children[0]

    def money(self, children: list) -> Money:
        return Money(children[0])

    def per_unit(self, children: list) -> PerUnit:
        return PerUnit(_one(children, Item).name)

    def share(self, children: list) -> Share:
        return Share(round(children[0] / 100, 10))

    def half(self, _: list) -> Share:
        return Share(0.5)

    def owner(self, children: list) -> Owner:
        return Owner(next((c for c in children if isinstance(c, str)), None))

    def one_clause(self, children: list) -> ClauseRef:
        number = children[0]
        if number != int(number) or number < 1:
            raise ClauseError(f"a clause number is a whole number from 1, got {number:g}")
        return ClauseRef(int(number))

    def any_clause(self, _: list) -> ClauseRef:
        return ClauseRef(None)

    def turn_signal(self, children: list) -> tuple[str, bool]:
        return children[0], True

    def turn_take(self, children: list) -> tuple[str, bool]:
        return children[0], False

    def _discard(self, _: list) -> object:
        return Discard

    modal = time = episode_word = block_word = all = unit_suffix = pronoun = pronoun_own = _discard
    return_verb = when_done = before = deposit_verb = give_verb = craft_verb = transfer_verb = _discard
    amount = lambda self, children: children[0]  # noqa: E731 - all_items or count

    # -- clauses ----------------------------------------------------------------------------------
    def _expand(self, subject: str | Quantifier, recipient: str | Quantifier | None,
                build: Callable[[str, str | None], Clause]) -> Clause:
        payers = self.players if subject is EACH else [subject]
        parts: list[Clause] = []
        for payer in payers:
            assert isinstance(payer, str)
            receivers = [p for p in self.players if p != payer] if recipient is OTHERS else [recipient]
            parts.extend(build(payer, r) for r in receivers)  # type: ignore[arg-type]
        words = " and ".join(q.words for q in (subject, recipient) if isinstance(q, Quantifier))
        return ForEach(words, tuple(parts)) if words else parts[0]

    def assignment(self, children: list) -> Assignment:
        return Assignment(children[0], _one(children, Verb).action, _one(children, Item).name)

    def phrase_assignment(self, children: list) -> Assignment:
        phrase = self.phrases[int(str(children[1])[1:])]
        return Assignment(children[0], phrase.verb, phrase.target)

    def quota(self, children: list) -> Clause:
        verb, item, bound = _one(children, Verb).action, _one(children, Item).name, _one(children, Bound).kind
        count = _whole(_one(children, Count), "a count of items")
        period, chest = _one(children, Period), _one(children, Chest)
        if chest is not None and verb != "take":
            raise ClauseError("only taking is from a chest")
        return self._expand(children[0], None, lambda p, _: Quota(
            p, verb, item, count, bound, period.seconds if period else None, chest.name if chest else None))

    def total(self, children: list) -> TotalQuota:
        group = _one(children, tuple)
        period = _one(children, Period)
        return TotalQuota(group, _one(children, Verb).action, _one(children, Item).name,
                          _whole(_one(children, Count), "a count of items"), _one(children, Bound).kind,
                          period.seconds if period else None)

    def deposit(self, children: list) -> Clause:
        count = None if ALL in children else _whole(_one(children, Count), "a count of items")
        item, chest = _one(children, Item).name, _one(children, Chest)
        return self._expand(children[0], None, lambda p, _: Deposit(p, item, count, chest.name))

    def give(self, children: list) -> Clause:
        count = None if ALL in children else _whole(_one(children, Count), "a count of items")
        item = _one(children, Item).name
        giver, receiver = _players_in(children)
        return self._expand(giver, receiver, lambda p, r: Give(p, r, item, count))

    def craft(self, children: list) -> Clause:
        count = _whole(_one(children, Count, Count(1)), "a count of items")
        item = _one(children, Item).name
        return self._expand(children[0], None, lambda p, _: Craft(p, item, count or 0))

    def wait(self, children: list) -> WaitFor:
        waiter, signaller = _players_in(children)
        return WaitFor(waiter, signaller)

    def signal(self, children: list) -> Clause:
        names = _players_in(children)
        receiver = names[1] if len(names) > 1 else ""
        return self._expand(names[0], receiver or None, lambda p, r: Signal(p, r or ""))

    def turn(self, children: list) -> TurnTaking:
        then, signal = _one(children, tuple)
        return TurnTaking(children[0], _one(children, Item).name, then, signal)

    def transfer(self, children: list) -> Clause:
        payer, payee = _players_in(children)
        money, share, unit, owner = _one(children, Money), _one(children, Share), _one(children, PerUnit), _one(children, Owner)
        if share is not None:
            item = _one(children, Item).name
            if owner.player is not None and owner.player != payer:
                raise ClauseError(f"a proportional transfer is a share of the payer's own items, not {owner.player}'s")
            return self._expand(payer, payee, lambda p, r: ProportionalTransfer(p, r, share.fraction, item))
        if unit is not None:
            return self._expand(payer, payee, lambda p, r: PerUnitTransfer(p, r, money.amount, unit.item))
        return self._expand(payer, payee, lambda p, r: FixedTransfer(p, r, money.amount))

    def pool(self, children: list) -> Pool:
        return Pool(_one(children, tuple))

    def penalty(self, children: list) -> Penalty:
        names = _players_in(children)
        breaker, payee = names[0], names[-1]
        if len(names) == 3 and names[1] != breaker:
            raise ClauseError(f"the penalty of {breaker}'s breach is paid by {breaker}, not {names[1]}")
        ref, money = _one(children, ClauseRef), _one(children, Money)
        return Penalty(
            () if breaker is ANYONE else (breaker,), ref.number, money.amount,
            () if payee is OTHERS else (payee,),
        )

    def start(self, children: list) -> Clause:
        [clause] = children
        return clause


def _problem(clause: Clause) -> str | None:
    for part in clause.parts if isinstance(clause, ForEach) else (clause,):
        match part:
            case FixedTransfer(payer, payee) | ProportionalTransfer(payer, payee) | PerUnitTransfer(payer, payee) if payer == payee:
                return f"{payer} cannot pay himself"
            case ProportionalTransfer(fraction=fraction) if fraction > 1:
                return f"a share of {fraction:.0%} is more than the whole value"
            case TurnTaking(first, _, then) if first == then:
                return f"{first} cannot take turns with himself"
            case Give(giver, receiver) if giver == receiver:
                return f"{giver} cannot give to himself"
            case WaitFor(player, signaller) if player == signaller:
                return f"{player} cannot wait for his own signal"
            case Penalty(breakers, _, _, payees) if set(breakers) & set(payees):
                return "a player cannot pay a penalty to himself"
            case Pool(players) if len(set(players)) < 2:
                return "sharing rewards takes at least two players"
    return None


def to_clause(tree: Tree, players: Sequence[str], phrases: Sequence) -> Clause:
    """The clause `tree` states; ClauseError with the reason when it names an unknown player or cannot hold."""
    transformer = _ToClause(players, phrases)
    try:
        clause = transformer.transform(tree)
    except Exception as exc:  # lark wraps errors raised in callbacks
        cause = getattr(exc, "orig_exc", exc)
        if isinstance(cause, ClauseError):
            raise cause from None
        raise
    if transformer.unknown:
        names = ", ".join(repr(n) for n in dict.fromkeys(transformer.unknown))
        raise ClauseError(f"unknown player {names} (players: {', '.join(players)})")
    problem = _problem(clause)
    if problem:
        raise ClauseError(problem)
    return clause
