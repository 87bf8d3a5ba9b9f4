"""From a parse tree of `data/contract.lark` to clause objects, with the checks a grammar cannot make.

Quantifiers are expanded here: "each player" and "every other player" become a `ForEach` with one
clause per player of the scenario. Windows, conditions and regions written around a clause are set on
it here. Problems found here (an unknown player, a fractional count, a player paying himself) make the
clause free text with that reason; what the words mean in the world is settled in `clause_meaning`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Callable, Sequence

from lark import Token, Tree

from blockpact.judge.clause_meaning import problem, resolve
from blockpact.judge.clauses import (
    Assignment, ChestPayment, Clause, Craft, Deposit, Exclusion, FixedTransfer, ForEach, Give, MineOnly, Quota, RegionLimit,
    Return, Signal, Steps, TotalQuota, TurnTaking, WaitFor, Withdraw,
)
from blockpact.judge.contract_lexicon import Lexicon
from blockpact.judge.contract_money_tree import MoneyClauses
from blockpact.judge.contract_values import (
    ALL, EACH, NO_MORE, NOBODY, OTHERS, Bound, Listed, Chest, ChestState, ClauseError, Count, Item, Period, Place, Quantifier,
    TimeSpan, Verb, WorldPeriod, one, players_in, whole,
)
from blockpact.worlds.spec.schema import Condition

@dataclass(frozen=True)
class _Product:
    """What a smelting clause says comes out of the furnace ("into iron ingots")."""

    name: str


@dataclass(frozen=True)
class _Back:
    """The chest a returned item goes back into."""

    chest: Chest


class _ToClause(MoneyClauses):
    """Bottom-up: terminals to typed values (TermValues), rules to clauses."""

    # -- clauses ----------------------------------------------------------------------------------
    def _expand(self, subject: str | Quantifier, recipient: str | Quantifier | None,
                build: Callable[[str, str | None], Clause]) -> Clause:
        payers = self.players if subject is EACH else list(subject.players) if isinstance(subject, Listed) else [subject]
        parts: list[Clause] = []
        for payer in payers:
            assert isinstance(payer, str)
            receivers = [p for p in self.players if p != payer] if recipient is OTHERS else [recipient]
            parts.extend(build(payer, r) for r in receivers)  # type: ignore[arg-type]
        words = " and ".join(q.words for q in (subject, recipient) if isinstance(q, Quantifier))
        return ForEach(words, tuple(parts)) if words else parts[0]

    def assignment(self, children: list) -> Assignment:
        place = one(children, Place)
        return Assignment(children[0], one(children, Verb).action, one(children, Item).name,
                          place.region if place else None)

    def phrase_assignment(self, children: list) -> Assignment:
        phrase = self.phrases[int(str(children[1])[1:])]
        return Assignment(children[0], phrase.verb, phrase.target)

    def exclusion(self, children: list) -> Clause:
        verb, item, place, chest = one(children, Verb).action, one(children, Item), one(children, Place), one(children, Chest)
        subject = EACH if children[0] is NOBODY else children[0]
        return self._expand(subject, None, lambda p, _: Exclusion(
            p, verb, item.name if item else None, place.region if place else None, chest=chest))  # type: ignore[arg-type]

    def until_signals(self, children: list) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p in players_in(children) if isinstance(p, str)))

    def exclusion_until(self, children: list) -> Clause:
        """"Bo does not take the iron_pickaxe until Ann has signalled": no taking before Ann's signal (a ban, not a
        promise to take it after)."""
        senders = next(c for c in children if isinstance(c, tuple))
        clause = self.exclusion([c for c in children if not isinstance(c, tuple)])
        if isinstance(clause, ForEach):  # "Nobody mines ... until Ann has signalled": everybody but Ann
            kept = tuple(p for p in clause.parts if p.player not in senders)  # type: ignore[union-attr]
            if not kept:
                raise ClauseError("nobody is left to hold back: every player named sends a signal")
            clause = ForEach(clause.quantifier + " but " + " and ".join(senders), kept)
        elif clause.player in senders:  # type: ignore[union-attr]
            raise ClauseError(f"{clause.player} cannot wait for his own signal")  # type: ignore[union-attr]
        return _with_senders(clause, senders)

    def exclusion_pair(self, children: list) -> Clause:
        """"Neither Ben nor Cy mines X": one exclusion each."""
        first, second = players_in(children)
        rest = [c for c in children if not (isinstance(c, str) and not isinstance(c, Token))]
        return Steps((self.exclusion([first, *rest]), self.exclusion([second, *rest])), ordered=False)  # type: ignore[list-item]

    def exclusion_all_but(self, children: list) -> Clause:
        """"Only Ann mines diamond_ore": every other player does not (Ann need not)."""
        verb, item, place, chest = one(children, Verb).action, one(children, Item), one(children, Place), one(children, Chest)
        if item is None:
            raise ClauseError("say what only this player does: an item or block ('Only Ann mines diamond_ore')")
        return self._expand(children[0], None, lambda p, _: Exclusion(
            p, verb, item.name, place.region if place else None, chest=chest))  # type: ignore[arg-type]

    def mine_only_apart(self, children: list) -> Clause:
        """"Apart from pumpkins, Ann won't mine anything": Ann mines only pumpkins (the blocks come first)."""
        blocks = [c for c in children if isinstance(c, Item)]
        return self.mine_only([*(c for c in children if not isinstance(c, Item)), *blocks])

    def mine_only(self, children: list) -> Clause:
        blocks = tuple(dict.fromkeys(c.name for c in children if isinstance(c, Item)))
        return self._expand(children[0], None, lambda p, _: MineOnly(p, blocks))

    def whoever_returns(self, children: list) -> Clause:
        """"Whoever takes the iron_pickaxe returns it": a return for every player (not applicable to those who never
        take it), into the chest named after "returns" ("" the one it came from)."""
        item = one(children, Item).name
        back = one(children, _Back)
        chest = back.chest if back is not None else Chest("")
        return ForEach(f"whoever takes the {item}", tuple(Return(p, item, chest) for p in self.players))  # type: ignore[arg-type]

    def back_chest(self, children: list) -> _Back:
        return _Back(one(children, Chest))

    def region_limit(self, children: list) -> Clause:
        verb, item, place = one(children, Verb).action, one(children, Item), one(children, Place)
        return self._expand(children[0], None, lambda p, _: RegionLimit(p, verb, item.name if item else None, place.region))

    def _period(self, children: list) -> float | None | WorldPeriod:
        period = one(children, Period) or one(children, WorldPeriod)
        return period.seconds if isinstance(period, Period) else period

    def quota(self, children: list) -> Clause:
        verb, item = one(children, Verb).action, one(children, Item).name
        bound = one(children, Bound, Bound("at_least")).kind
        if NO_MORE in children and bound != "at_most":
            raise ClauseError("'but no more' caps an amount written as a most ('Ann mines up to 3 pumpkins, but no "
                              "more'); a bare amount is what a player promises at least")
        count = whole(one(children, Count), "a count of items")
        period, chest, place = self._period(children), one(children, Chest), one(children, Place)
        if chest is not None and verb not in ("take", "collect"):
            raise ClauseError("only taking is from a chest")
        if chest is not None and verb == "collect" and one(children, Bound) is None:
            verb = "take"  # "collects 2 diamonds from the cache chest": takes them
        if chest is not None and verb != "take":
            raise ClauseError("only taking is from a chest")
        if verb == "take" and one(children, Bound) is None:  # "takes 2 diamonds from the cache chest"
            return self._expand(children[0], None, lambda p, _: Withdraw(p, item, count or 0, chest or Chest("")))  # type: ignore[arg-type]
        return self._expand(children[0], None, lambda p, _: Quota(
            p, verb, item, count, bound, period, chest,  # type: ignore[arg-type]
            place.region if place else None))

    def quota_limited(self, children: list) -> Clause:
        """"Each player is limited to 3 pumpkins per minute": mines at most 3."""
        return self.quota([children[0], Verb("mine"), Bound("at_most"), *children[1:]])

    def quota_capped(self, children: list) -> Clause:
        """"Cy's mining of pumpkins is capped at 4": Cy mines at most 4."""
        if one(children, Item) is None:
            raise ClauseError("a cap names what it counts ('Cy's mining is capped at 4 pumpkins')")
        return self.quota([children[0], Bound("at_most"), *children[1:]])

    def quota_each(self, children: list) -> Clause:
        """"Ann and Ben mine at most 5 pumpkins each": one quota per player of the group."""
        group = one(children, tuple)
        subject = EACH if set(group) == set(self.players) else Listed(" and ".join(group) + " each", group)
        return self.quota([subject, *(c for c in children if c is not group)])

    def quota_none_over(self, children: list) -> Clause:
        """"No player mines more than 3 pumpkins per minute" / "Ann does not mine more than 3 pumpkins": at most 3."""
        subject = EACH if children[0] is NOBODY else children[0]
        return self.quota([subject, Bound("at_most"), *children[1:]])

    def total(self, children: list) -> TotalQuota:
        place = one(children, Place)
        return TotalQuota(one(children, tuple), one(children, Verb).action, one(children, Item).name,
                          whole(one(children, Count), "a count of items"), one(children, Bound).kind,
                          self._period(children), place.region if place else None)  # type: ignore[arg-type]

    def deposit(self, children: list) -> Clause:
        count = None if ALL in children else whole(one(children, Count), "a count of items")
        item, chest = one(children, Item).name, one(children, Chest)
        return self._expand(children[0], None, lambda p, _: Deposit(p, item, count, chest))  # type: ignore[arg-type]

    def withdraw(self, children: list) -> Clause:
        count = None if ALL in children else whole(one(children, Count, Count(1)), "a count of items")
        item, chest = one(children, Item).name, one(children, Chest)
        return self._expand(children[0], None, lambda p, _: Withdraw(p, item, count, chest))  # type: ignore[arg-type]

    def return_item(self, children: list) -> Clause:
        item = one(children, Item)
        if item is None:
            raise ClauseError("say what is returned: 'it' refers to no item named before it")
        chest = one(children, Chest, Chest(""))
        return self._expand(children[0], None, lambda p, _: Return(p, item.name, chest))  # type: ignore[arg-type]

    def give(self, children: list) -> Clause:
        count = None if ALL in children else whole(one(children, Count), "a count of items")
        item = one(children, Item).name
        giver, receiver = players_in(children)
        return self._expand(giver, receiver, lambda p, r: Give(p, r, item, count))

    def craft(self, children: list) -> Clause:
        count = whole(one(children, Count, Count(1)), "a count of items")
        item = one(children, Item).name
        return self._expand(children[0], None, lambda p, _: Craft(p, item, count or 0))

    def smelt_into(self, children: list) -> _Product:
        return _Product(one(children, Item).name)

    def smelt(self, children: list) -> Clause:
        """"Oto smelts 3 raw_iron (into iron_ingot)": the furnace's product made, as crafting it."""
        from blockpact.worlds.spec.mcdata import smelting_table

        count = whole(one(children, Count, Count(1)), "a count of items")
        raw = one(children, Item).name
        outputs = smelting_table()["outputs"]
        made = outputs.get(raw)
        if made is None:
            raise ClauseError(f"{raw} is not smelted in a furnace (its inputs: {', '.join(sorted(outputs))})")
        named = one(children, _Product, _Product(made)).name
        if named != made:
            raise ClauseError(f"{raw} smelts into {made}, not {named}")
        return self._expand(children[0], None, lambda p, _: Craft(p, made, count or 0))

    def signal_from(self, children: list) -> str:
        return players_in(children)[0]  # type: ignore[return-value]

    def wait(self, children: list) -> Clause:
        """One wait per sender; "each player waits for Ann's and Ben's signal" binds every player who is not a
        sender (Ann waiting for Ben while Ben waits for Ann would leave both waiting for ever)."""
        subject, *signallers = players_in(children)
        senders = tuple(dict.fromkeys(signallers))

        def waits(waiter: str) -> Clause:
            own = tuple(WaitFor(waiter, s) for s in senders)  # type: ignore[arg-type]
            return own[0] if len(own) == 1 else Steps(own, ordered=False)

        if not isinstance(subject, Quantifier):
            return waits(subject)  # type: ignore[arg-type]
        waiters = self.players if subject is EACH else list(subject.players) if isinstance(subject, Listed) else []
        found = tuple(waits(w) for w in waiters if w not in senders)
        if not found:
            raise ClauseError(f"say who waits: '{subject.words}' are the players who signal")
        return ForEach(subject.words, found)

    def signal(self, children: list) -> Clause:
        names = players_in(children)
        if len(names) > 2:  # "Ivy signals Jun and Kai": one signal reaches every player
            return Steps(tuple(Signal(names[0], r) for r in dict.fromkeys(names[1:])), ordered=False)  # type: ignore[arg-type]
        receiver = names[1] if len(names) > 1 else ""
        return self._expand(names[0], receiver or None, lambda p, r: Signal(p, r or ""))

    def turn_chest(self, children: list) -> _Back:
        return _Back(one(children, Chest, Chest("")))

    def turn(self, children: list) -> TurnTaking:
        """"Ann takes the iron_pickaxe first and puts it back in the tools chest, then Ben takes it": the chest it goes
        back into is the one named after "back" ("the chest": the one it came from)."""
        then, signal = one(children, tuple)
        return TurnTaking(children[0], one(children, Item).name, then, signal, one(children, _Back).chest)  # type: ignore[arg-type]

    def start(self, children: list) -> Clause:
        clauses = [c for c in children if not isinstance(c, (TimeSpan, Condition, Place, ChestState))]
        [clause] = clauses
        states = [c for c in children if isinstance(c, ChestState)]
        if states:
            return _on_chest_state(clause, states, len(children) - len(states) - 1)
        spans = [c for c in children if isinstance(c, TimeSpan)]
        conditions = [c for c in children if isinstance(c, Condition)]
        places = [c for c in children if isinstance(c, Place)]
        for what, found in (("time window", spans), ("condition", conditions), ("region", places)):
            if len(found) > 1:
                raise ClauseError(f"a clause holds one {what}, this one names {len(found)}")
        return _with(clause, spans[0] if spans else None, conditions[0] if conditions else None,
                     places[0].region if places else None)


def _with(clause: Clause, span: TimeSpan | None, condition: Condition | None, region: str | None) -> Clause:
    """`clause` with the window, condition and region written around it (on every part of a ForEach)."""
    if span is None and condition is None and region is None:
        return clause
    if isinstance(clause, ForEach):
        return ForEach(clause.quantifier, tuple(_with(p, span, condition, region) for p in clause.parts))
    if isinstance(clause, Steps):  # one sentence the grammar reads as several ("Ann signals Ben and Cy by 30 seconds")
        return Steps(tuple(_with(p, span, condition, region) for p in clause.parts), clause.ordered)
    fields = {f.name for f in dataclasses.fields(clause)}  # type: ignore[arg-type]
    if span is not None and "by" in fields:
        return _with(_deadline(clause, span), None, condition, region)
    if span is not None and isinstance(clause, Give):
        raise ClauseError("a gift is settled from the final inventories, so it has no deadline: to hand items over by "
                          "a time, deposit them into a chest ('Ann deposits 2 diamonds into the cache chest by 60 seconds')")
    for what, value, name in (("a time window", span, "window"), ("a condition", condition, "condition"),
                              ("a region", region, "region")):
        if value is None:
            continue
        if name not in fields:
            raise ClauseError(f"{what} applies to who mines, collects or takes what (quotas, totals, exclusions, "
                              f"assignments), not to a clause of kind {clause.kind}")
        if getattr(clause, name) is not None:
            raise ClauseError(f"a clause holds one {name}, this one names two")
    updates = {k: v for k, v in (("window", span), ("condition", condition), ("region", region)) if v is not None}
    return dataclasses.replace(clause, **updates)  # type: ignore[type-var]


def _on_chest_state(clause: Clause, states: list[ChestState], others: int) -> Clause:
    """A fixed payment owed on what a chest holds at the end ("If the tools chest holds the iron_pickaxe at the end, Cy
    pays Ann 12 emeralds"); nothing else is judged on a chest's end state."""
    if len(states) > 1 or others:
        raise ClauseError("a payment on a chest's end state names one state and no other window, condition or region")
    if not isinstance(clause, FixedTransfer):
        raise ClauseError("what a chest holds at the end decides a fixed payment only ('If the cache chest holds at least "
                          "3 diamonds at the end, Ann pays Ben 5 emeralds')")
    state = states[0]
    return ChestPayment(clause.payer, clause.payee, clause.amount, state.chest,  # type: ignore[arg-type]
                        state.item, state.op, state.count)


def _deadline(clause: Clause, span: TimeSpan) -> Clause:
    """A deposit, withdrawal or return with "by 60 seconds" / "within the first 2 minutes": done by then."""
    if span.kind not in ("first", "until"):
        raise ClauseError(f"a {clause.kind} can have a deadline ('by 60 seconds', 'within the first 2 minutes'), "
                          "not a window that starts later")
    if isinstance(clause, Deposit) and clause.count is None:
        raise ClauseError("a deposit with a deadline says how many items ('deposits 3 pumpkins ... by 60 seconds')")
    if getattr(clause, "by") is not None:
        raise ClauseError("a clause holds one deadline, this one names two")
    return dataclasses.replace(clause, by=span.numbers[0])  # type: ignore[type-var]


def _limits_only(clause: Clause) -> bool:
    """Whether `clause` only forbids or caps (so a permission's wording states it): never an obligation to act."""
    if isinstance(clause, ForEach):
        return all(_limits_only(part) for part in clause.parts)
    if isinstance(clause, (Quota, TotalQuota)):
        return clause.bound == "at_most"
    return isinstance(clause, (Exclusion, MineOnly, RegionLimit))


def to_clause(tree: Tree, players: Sequence[str], phrases: Sequence, lexicon: Lexicon) -> Clause:
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
    clause = resolve(clause, lexicon)
    if any(tree.find_data("permit")) and not _limits_only(clause):
        raise ClauseError("'may', 'can' and 'is allowed to' grant a permission, not a promise: as a clause they can "
                          "only limit ('Ann may mine at most 2 pumpkins', 'Ann can mine only pumpkins'); write "
                          "'will' for something a player promises to do")
    found = problem(clause)
    if found:
        raise ClauseError(found)
    return clause


def _with_senders(clause: Clause, senders: tuple[str, ...]) -> Clause:
    if isinstance(clause, ForEach):
        return ForEach(clause.quantifier, tuple(_with_senders(p, senders) for p in clause.parts))
    return dataclasses.replace(clause, until_signals_from=senders)  # type: ignore[type-var]

