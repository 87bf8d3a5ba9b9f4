"""Emerald clauses from a parse tree: transfers, fines, thresholds, pooling and splits, penalties (the part of
`contract_tree._ToClause` that turns payments into clause objects)."""

from __future__ import annotations

from lark import Token

from blockpact.judge.clauses import (
    Clause, FixedTransfer, ForEach, Penalty, PerUnitTransfer, Pool, ProportionalTransfer, RewardSplit,
    ThresholdTransfer,
)
from blockpact.judge.contract_terms_tree import TermValues
from blockpact.judge.contract_values import (
    PRONOUN, ANYONE, OTHERS, ClauseError, ClauseRef, Count, Item, Money, Over, Owner, Percent, PerUnit, Quantifier,
    Share, Shares, Verb, Period, WorldPeriod, one, players_in, whole,
)


def _each_period(unit: PerUnit) -> object:
    """The period the items beyond `over` are counted in ("for every pumpkin over 5 per period"); none without an
    `over`, where counting per period changes nothing."""
    return unit.period if unit.over else None


class MoneyClauses(TermValues):
    """Payments; `_expand` and the players come from the subclass (`contract_tree._ToClause`)."""

    def transfer(self, children: list) -> Clause:
        names = players_in(children)
        payer, payee = names[-2], names[-1]
        money, share, unit, owner = one(children, Money), one(children, Share), one(children, PerUnit), one(children, Owner)
        if share is not None:
            item = one(children, Item).name
            if owner.player is not None and owner.player != payer:
                raise ClauseError(f"a proportional transfer is a share of the payer's own items, not {owner.player}'s")
            return self._expand(payer, payee, lambda p, r: ProportionalTransfer(p, r, share.fraction, item))
        if unit is not None:
            if unit.player == PRONOUN:  # "Hal gives Ivy 4 emeralds for each obsidian she mines": Hal's or Ivy's?
                raise ClauseError(f"say by name whose {unit.item} are counted ('for each {unit.item} {payee} mines' or "
                                  f"'... {payer} mines'): a pronoun there could mean either player")
            counted = unit.player if isinstance(unit.player, str) else None
            return self._expand(payer, payee, lambda p, r: PerUnitTransfer(
                p, r, money.amount, unit.item, unit.verb, unit.over, None if counted == p else counted, _each_period(unit)))
        return self._expand(payer, payee, lambda p, r: FixedTransfer(p, r, money.amount))

    def fine(self, children: list) -> Clause:
        """"Ann is fined 3 emeralds per diamond_ore mined (paid to Ben)": with two players, paid to the other."""
        payer, *payees = players_in(children)
        money, unit = one(children, Money), one(children, PerUnit)
        if not payees:
            others = [p for p in self.players if p != payer]
            if isinstance(payer, Quantifier) or len(others) != 1:
                raise ClauseError("say who is paid the fine: '..., paid to Ben' (or 'to every other player')")
            payees = others
        counted = unit.player if isinstance(unit.player, str) and unit.player != PRONOUN else None  # "she": the fined
        return self._expand(payer, payees[-1], lambda p, r: PerUnitTransfer(
            p, r, money.amount, unit.item, unit.verb, unit.over, None if counted == p else counted, _each_period(unit)))

    def threshold_after(self, children: list) -> Clause:
        """"Ben pays Ann 5 emeralds if he mines any diamond_ore": the payer is the one whose act is counted."""
        payer, payee, *doer = players_in(children)
        if doer and doer[0] != payer:
            raise ClauseError(f"what {doer[0]} does is paid by {doer[0]}, not {payer}")
        return self.threshold_transfer([payer, *(c for c in children if not (isinstance(c, str) and not isinstance(c, Token)))
                                        , payee])

    def anyone_threshold(self, children: list) -> Clause:
        """"Any player who mines more than 5 pumpkins pays 2 emeralds per extra pumpkin to each other player."""
        *_, payee = players_in(children)
        rest = [c for c in children if not isinstance(c, (str, Quantifier)) or isinstance(c, Token)]
        found = []
        for p in self.players:
            for r in ([q for q in self.players if q != p] if payee is OTHERS else [payee]):
                if r != p:
                    found.append(self.threshold_transfer([p, *rest, r]))
        if not found:
            raise ClauseError("nobody but the payee could pay")
        return ForEach("anyone, to every other player" if payee is OTHERS else f"anyone, to {payee}", tuple(found))

    def threshold_transfer(self, children: list) -> Clause:
        names = players_in(children)
        doer, payee = names[0], names[-1]
        if len(names) == 3 and names[1] != doer:
            raise ClauseError(f"what {doer} does is paid by {doer}, not {names[1]}")
        verb, item, money = one(children, Verb).action, one(children, Item).name, one(children, Money)
        over = one(children, Over, Over(0))
        count = whole(Count(over.count), "a count of items") or 0
        unit = one(children, PerUnit)
        period = one(children, Period) or one(children, WorldPeriod)
        if unit is not None:
            if unit.item and unit.item != item:
                raise ClauseError(f"the extra items are {item}, not {unit.item}")
            every = period.seconds if isinstance(period, Period) else period
            return PerUnitTransfer(doer, payee, money.amount, item, verb, count, None,  # type: ignore[arg-type]
                                   every if count else None)  # type: ignore[arg-type]
        if period is not None:
            raise ClauseError("a payment made once has no period: say whether it is paid once or for each extra item "
                              "('... pays 2 emeralds for each extra pumpkin')")
        return ThresholdTransfer(doer, payee, money.amount, verb, item, count)  # type: ignore[arg-type]

    def pool(self, children: list) -> Pool:
        return Pool(one(children, tuple))

    def value_pool(self, children: list) -> Clause:
        """"Ann and Cy share the value of their diamonds equally": each pays every other 1/N of what its own
        diamonds are worth to it, so each ends with the mean of the group's diamond values."""
        group, item = one(children, tuple), one(children, Item).name
        if len(set(group)) < 2:
            raise ClauseError("sharing a value takes at least two players")
        share = round(1 / len(group), 10)
        return ForEach(f"{' and '.join(group)} sharing the value of {item}", tuple(
            ProportionalTransfer(p, q, share, item) for p in group for q in group if q != p))

    def split(self, children: list) -> Clause:
        group, shares = one(children, tuple), one(children, Shares)
        percents = shares.values if shares else tuple(p.value for p in children if isinstance(p, Percent))
        if group is None:
            group = tuple(c for c in children if isinstance(c, str) and not isinstance(c, Token))
        if not group:
            raise ClauseError("say whose share is whose: '... split 60/40 between Ann and Ben'")
        if len(group) != len(percents):
            raise ClauseError(f"{len(percents)} shares for {len(group)} players ({', '.join(group)})")
        total = sum(percents)
        if total <= 0 or any(p <= 0 for p in percents):
            raise ClauseError("every share of a split must be more than 0")
        if any(p == 100 for p in percents) or len(set(group)) < len(group):
            raise ClauseError("a split divides the total among at least two different players")
        return RewardSplit(tuple(group), tuple(round(p / total, 10) for p in percents))

    def penalty_after(self, children: list) -> Penalty:
        """"Ann pays Ben 10 emeralds if she breaks clause 1"."""
        breaker, payee, *named = players_in(children)
        if named and named[0] != breaker:
            raise ClauseError(f"the penalty of {named[0]}'s breach is paid by {named[0]}, not {breaker}")
        ref, money = one(children, ClauseRef), one(children, Money)
        return Penalty((breaker,), ref.number, money.amount, () if payee is OTHERS else (payee,))  # type: ignore[arg-type]

    def transfer_each(self, children: list) -> Clause:
        """"Ann pays Ben and Cy 2 emeralds each": one transfer to each."""
        payer, *payees = players_in(children)
        money = one(children, Money)
        receivers = tuple(dict.fromkeys(payees))
        if isinstance(payer, Quantifier) or payer in receivers:
            raise ClauseError("say who pays whom: 'Ann pays Ben and Cy 2 emeralds each'")
        return ForEach(f"to {' and '.join(receivers)} each", tuple(FixedTransfer(payer, r, money.amount) for r in receivers))  # type: ignore[arg-type]

    def penalty(self, children: list) -> Penalty:
        names = players_in(children)
        breaker, payee = names[0], names[-1]
        if len(names) == 3 and names[1] != breaker:
            raise ClauseError(f"the penalty of {breaker}'s breach is paid by {breaker}, not {names[1]}")
        ref, money = one(children, ClauseRef), one(children, Money)
        return Penalty(
            () if breaker is ANYONE else (breaker,), ref.number, money.amount,
            () if payee is OTHERS else (payee,),
        )
