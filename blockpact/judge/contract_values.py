"""The small typed values a parse tree of `data/contract.lark` is made of, before they become clauses."""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token


class ClauseError(ValueError):
    """Why a clause is not in the controlled form (`kind` "syntax"), or names something it cannot ("meaning")."""

    def __init__(self, message: str, kind: str = "meaning") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Item:
    name: str


@dataclass(frozen=True)
class Unknown:
    """A word where a player's name belongs that is no player of the scenario."""

    name: str


@dataclass(frozen=True)
class Verb:
    action: str  # mine | collect | take | touch (an exclusion's: mine a block, take an item; clause_meaning)


@dataclass(frozen=True)
class Count:
    value: float


@dataclass(frozen=True)
class Money:
    amount: float


@dataclass(frozen=True)
class Share:
    fraction: float


PRONOUN = "<pronoun>"  # a PerUnit's player given as "he"/"she"/"they": who it means is the clause's to say


@dataclass(frozen=True)
class PerUnit:
    item: str
    verb: str = "collect"  # what is counted: collect | mine | take
    over: int = 0  # items not counted
    player: str | None = None  # the player named inside ("for each diamond Ben collects")
    period: object = None  # seconds, or WorldPeriod: the items beyond `over` are counted in each period


@dataclass(frozen=True)
class ChestState:
    """What a chest holds at the episode's end: `op` `count` `item` ("holds at least 3 diamonds", "is not in")."""

    chest: Chest
    item: str
    op: str
    count: int


@dataclass(frozen=True)
class Owner:
    player: str | None  # None: the payer's own ("his")


@dataclass(frozen=True)
class Chest:
    name: str  # "" any chest
    at: tuple[int, int, int] | None = None  # "the chest at (9, 64, 10)"


@dataclass(frozen=True)
class Place:
    """A region the world names ("in the north patch")."""

    region: str


@dataclass(frozen=True)
class TimeSpan:
    """A window as written: `kind` (first, after, until, span, last_period, last, first_periods) and its numbers in seconds."""

    kind: str
    numbers: tuple[float, ...] = ()


@dataclass(frozen=True)
class Unit:
    scale: float  # seconds per unit


@dataclass(frozen=True)
class Over:
    count: float


@dataclass(frozen=True)
class Percent:
    value: float


@dataclass(frozen=True)
class Shares:
    values: tuple[float, ...]  # () for "equally"


@dataclass(frozen=True)
class WorldPeriod:
    """"every period": the world's own period."""


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


@dataclass(frozen=True)
class Listed(Quantifier):
    """Players named with "each" ("Ann and Ben each ...") or all players but one ("only Ann", "nobody but Ann")."""

    players: tuple[str, ...] = ()


EACH = Quantifier("each player")
OTHERS = Quantifier("every other player")
ANYONE = Quantifier("anyone")
NOBODY = Quantifier("nobody")
ALL = object()  # "all" of an item
NO_MORE = object()  # "but no more" after a quota's amount


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




def whole(count: Count | None, what: str) -> int | None:
    if count is None:
        return None
    if count.value != int(count.value) or count.value < 0:
        raise ClauseError(f"{what} must be a whole number, got {count.value:g}")
    return int(count.value)


def one(children: list, kind: type, default=None):
    return next((c for c in children if isinstance(c, kind)), default)


def players_in(children: list) -> list[str | Quantifier]:
    return [c for c in children if isinstance(c, (str, Quantifier)) and not isinstance(c, Token)]
