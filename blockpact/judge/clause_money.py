"""The clause kinds the judge settles in emeralds: transfers (fixed, proportional, per unit, on a threshold, on a chest's
end state), reward sharing and penalties (re-exported by `clauses`)."""

from __future__ import annotations

from dataclasses import dataclass

from blockpact.judge.clause_base import FormalClause


@dataclass(frozen=True)
class FixedTransfer(FormalClause):
    payer: str
    payee: str
    amount: float
    kind = "fixed transfer"


@dataclass(frozen=True)
class ProportionalTransfer(FormalClause):
    """`fraction` (0.5 for 50%) of what the payer's final `item`s are worth to the payer."""

    payer: str
    payee: str
    fraction: float
    item: str
    kind = "proportional transfer"


@dataclass(frozen=True)
class PerUnitTransfer(FormalClause):
    """`rate` emeralds for each `item` the payer collected (or `verb`: mined, took) during the episode,
    beyond the first `over` (of each `period` seconds from the start, when it has one): "pays 2 emeralds to Ann for
    each diamond over 3", "... for each pumpkin over 5 every 60 seconds"."""

    payer: str
    payee: str
    rate: float
    item: str
    verb: str = "collect"
    over: int = 0
    counted: str | None = None  # whose items are counted (None: the payer's): "for each diamond Ben mines"
    period: float | None = None
    kind = "per-unit transfer"


@dataclass(frozen=True)
class ThresholdTransfer(FormalClause):
    """`amount` emeralds once, if the payer did `verb` to more than `over` `item`s: "If Cy mines more than
    4 pumpkins, he pays 10 emeralds to Ann"."""

    payer: str
    payee: str
    amount: float
    verb: str
    item: str
    over: int
    kind = "conditional transfer"


@dataclass(frozen=True)
class Pool(FormalClause):
    """`players` share their rewards (final inventory values after every other transfer) equally."""

    players: tuple[str, ...]
    kind = "reward sharing"


@dataclass(frozen=True)
class RewardSplit(FormalClause):
    """`players` pool their rewards and split the total by `shares` (fractions summing to 1, in the
    players' order): "The total reward is split 60/40 between Ann and Ben"."""

    players: tuple[str, ...]
    shares: tuple[float, ...]
    kind = "reward split"


@dataclass(frozen=True)
class Penalty(FormalClause):
    """Whoever of `breakers` (empty: anyone) breaks clause `clause` (None: any clause) pays `amount`
    emeralds to each of `payees` (empty: every other player), once per broken clause."""

    breakers: tuple[str, ...]
    clause: int | None
    amount: float
    payees: tuple[str, ...]
    kind = "penalty"


@dataclass(frozen=True)
class ChestPayment(FormalClause):
    """`amount` emeralds from `payer` to `payee`, once, if the chest named `chest` holds `op` `count` `item` when the
    episode ends: "Cy pays Ann 12 emeralds provided the iron pickaxe is back in the tools chest at the end"."""

    payer: str
    payee: str
    amount: float
    chest: str
    item: str
    op: str  # <= >= < > ==
    count: int
    kind = "payment on a chest's end state"
