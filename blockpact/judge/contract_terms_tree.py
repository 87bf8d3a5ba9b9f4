"""The small rules of `data/contract.lark` as typed values: players, items, counts, chests, regions,
periods, time windows, conditions. `contract_tree` builds clauses from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lark import Token, Transformer
from lark.visitors import Discard

from blockpact.judge.contract_values import (
    PRONOUN,
    ALL, ANYONE, EACH, NO_MORE, NOBODY, OTHERS, Bound, Chest, ChestState, ClauseError, ClauseRef, Count, Item, Money, Over, Owner,
    Listed, Percent, PerUnit, Period, Place, Quantifier, Share, Shares, TimeSpan, Unit, Unknown, Verb, WorldPeriod, one,
    whole,
)
from blockpact.worlds.spec.schema import Condition

_CMP = {"le": "<=", "ge": ">=", "gt": ">", "lt": "<", "eq": "=="}


class TermValues(Transformer):
    """Bottom-up: terminals and the small rules to typed values (the clause rules are in contract_tree)."""

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

    def CHEST(self, tok: Token) -> Chest:
        return Chest(str(tok[1:]))

    def REGION(self, tok: Token) -> Place:
        return Place(str(tok[1:]))

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

    def nobody(self, _: list) -> Quantifier:
        return NOBODY

    def others(self, _: list) -> Quantifier:
        return OTHERS

    def the_other(self, _: list) -> Quantifier:
        if len(self.players) != 2:
            raise ClauseError(f"'the other player' names one player only when there are two: say who ({', '.join(self.players)})")
        return OTHERS

    def breaker(self, _: list) -> Quantifier:
        return ANYONE

    def listed_each(self, children: list) -> Listed:
        named = tuple(dict.fromkeys(c for c in children if isinstance(c, str) and not isinstance(c, Token)))
        return Listed(" and ".join(named) + " each", named)

    def all_but(self, children: list) -> Listed:
        [kept] = [c for c in children if isinstance(c, str) and not isinstance(c, Token)]
        return Listed(f"nobody but {kept}", tuple(p for p in self.players if p != kept))

    def group(self, children: list) -> tuple[str, ...]:
        return tuple(children) or tuple(self.players)

    def mine_verb(self, _: list) -> Verb:
        return Verb("mine")

    def collect_verb(self, _: list) -> Verb:
        return Verb("collect")

    def take_verb(self, _: list) -> Verb:
        return Verb("take")

    def touch_verb(self, _: list) -> Verb:
        return Verb("touch")

    def count(self, children: list) -> Count:
        return Count(children[0])

    def all_items(self, _: list) -> object:
        return ALL

    def no_more(self, _: list) -> object:
        return NO_MORE

    def at_most(self, _: list) -> Bound:
        return Bound("at_most")

    def at_least(self, _: list) -> Bound:
        return Bound("at_least")

    def seconds(self, _: list) -> Unit:
        return Unit(1.0)

    def minutes(self, _: list) -> Unit:
        return Unit(60.0)

    def period(self, children: list) -> Period:
        *number, unit = children
        return Period((number[0] if number else 1.0) * unit.scale)

    def world_period(self, _: list) -> WorldPeriod:
        return WorldPeriod()

    def chest(self, children: list) -> Chest:
        named = one(children, Chest)
        name = one(children, Unknown)
        at = one(children, tuple)
        return Chest(named.name if named else name.name.lower() if name else "", at)

    def chest_at(self, children: list) -> tuple[int, int, int]:
        return tuple(int(c) for c in children)  # type: ignore[return-value]

    def from_chest(self, children: list) -> Chest:
        return children[0]

    def in_region(self, children: list) -> Place:
        return children[0]

    def money(self, children: list) -> Money:
        return Money(children[0])

    def over(self, children: list) -> Over:
        return Over(children[0])

    def over_count(self, children: list) -> Over:
        return Over(one(children, Count).value)

    def any_count(self, _: list) -> Over:
        return Over(0)

    def pronoun_doer(self, _: list) -> str:
        return PRONOUN

    def per_unit(self, children: list) -> PerUnit:
        over, verb = one(children, Over), one(children, Verb)
        named = [c for c in children if isinstance(c, str) and not isinstance(c, Token)]
        period = one(children, Period) or one(children, WorldPeriod)
        return PerUnit(one(children, Item).name, verb.action if verb else "collect",
                       whole(Count(over.count), "a count of items") if over else 0, named[0] if named else None,
                       period.seconds if isinstance(period, Period) else period)

    def extra_unit(self, children: list) -> PerUnit:
        item = one(children, Item)
        return PerUnit(item.name if item else "", "", 0, None)

    def share(self, children: list) -> Share:
        return Share(round(children[0] / 100, 10))

    def half(self, _: list) -> Share:
        return Share(0.5)

    def percent(self, children: list) -> Percent:
        return Percent(children[0])

    def shares(self, children: list) -> Shares:
        return Shares(tuple(p.value for p in children))

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

    # -- when and where ---------------------------------------------------------------------------
    def _span(kind: str) -> Callable:  # type: ignore[misc]  # noqa: N805 - a method factory
        def build(self, children: list) -> TimeSpan:
            """Numbers in seconds: a unit scales the number before it; a number written without one
            takes the unit of the next number that has one ("from 60 to 120 seconds"), else seconds."""
            numbers: list[float] = []
            scales: list[float | None] = []
            for child in children:
                if isinstance(child, Unit):
                    if scales and scales[-1] is None:
                        scales[-1] = child.scale
                elif isinstance(child, float):
                    numbers.append(child)
                    scales.append(None)
            later = 1.0
            for i in range(len(scales) - 1, -1, -1):
                later = scales[i] = scales[i] if scales[i] is not None else later
            return TimeSpan(kind, tuple(n * (s or 1.0) for n, s in zip(numbers, scales)))
        return build

    def first_unit(self, children: list) -> TimeSpan:
        """"within the first minute": one of the unit."""
        return TimeSpan("first", (one(children, Unit).scale,))

    first_window = _span("first")
    first_periods = _span("first_periods")
    after_window = _span("after")
    until_window = _span("until")
    span_window = _span("span")
    last_period = _span("last_period")
    last_seconds = _span("last")
    until_last_period = _span("until_last_period")
    until_last = _span("until_last")

    def condition(self, children: list) -> Condition:
        place, item = one(children, Place), one(children, Item)
        cmp = next(c for c in children if isinstance(c, str) and c in _CMP.values())
        number = next(c for c in children if isinstance(c, float))
        if number != int(number):
            raise ClauseError(f"a count of blocks must be a whole number, got {number:g}")
        return Condition(item.name, place.region, cmp, int(number))

    def state_not(self, _: list) -> str:
        return "not"

    def chest_state(self, children: list) -> ChestState:
        """"holds at least 3 diamonds" (a bare number: at least it), "the iron_pickaxe is (not) in" (1, or none)."""
        chest, item = one(children, Chest), one(children, Item).name
        cmp = next((c for c in children if isinstance(c, str) and c in _CMP.values()), ">=")
        number = next((c for c in children if isinstance(c, float)), None)
        count = 1 if number is None else whole(Count(number), "a count of items") or 0
        if "not" in children:
            return ChestState(chest, item, "<", count)
        return ChestState(chest, item, cmp, count)

    def cmp(self, children: list) -> str:  # pragma: no cover - every cmp expansion is aliased
        raise AssertionError(children)

    le = lambda self, _: "<="  # noqa: E731
    ge = lambda self, _: ">="  # noqa: E731
    gt = lambda self, _: ">"  # noqa: E731
    lt = lambda self, _: "<"  # noqa: E731
    eq = lambda self, _: "=="  # noqa: E731

    def _discard(self, _: list) -> object:
        return Discard

    modal = permit = time = episode_word = block_word = all = any = unit_suffix = pronoun = pronoun_own = _discard
    return_verb = when_done = before = deposit_verb = give_verb = craft_verb = transfer_verb = _discard
    negation = withdraw_verb = wait_verb = signal_noun = signal_word = cond_word = hold_verb = _discard
    period_word = reward_total = reward_word = split_verb = get_verb = _discard
    amount = lambda self, children: children[0]  # noqa: E731 - all_items or count
