"""The kinds of contract clause: frozen values the parser produces and the judges read.

Every clause says whether the formal judge can score it (`formal`) and why (`why`): a clause in
the controlled form names its kind; a `FreeText` clause gives the reason it is not in that form.
A clause quantified over players ("each player ...", "... to every other player") is a `ForEach`
holding one clause per player; the judges and the scripted players read its `parts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from blockpact.judge.clause_base import Window, FormalClause
from blockpact.judge.clause_money import (
    ChestPayment, FixedTransfer, Penalty, PerUnitTransfer, Pool, ProportionalTransfer, RewardSplit, ThresholdTransfer,
)
from blockpact.worlds.spec.schema import Condition

__all__ = [
    "Assignment", "ChestPayment", "Clause", "Craft", "Deposit", "Exclusion", "FailurePayment", "FixedTransfer", "ForEach",
    "FreeText", "Give", "MineOnly", "Penalty", "PerUnitTransfer", "Pool", "ProportionalTransfer", "Quota", "RegionLimit",
    "Return", "RewardSplit", "SHARING_TYPES", "Signal", "Steps", "TRANSFER_TYPES", "ThresholdTransfer", "TotalQuota",
    "Transfer", "TurnTaking", "WaitFor", "Window", "Withdraw", "gated_waits", "parties", "parts",
]


@dataclass(frozen=True)
class Assignment(FormalClause):
    """`player` alone does `verb` to `target`: "Gizmo mines all iron_ore" -> ("Gizmo", "mine", "iron_ore")."""

    player: str
    verb: str  # mine (blocks dug) | collect (items gained by digging or pickup) | take (from a chest)
    target: str
    region: str | None = None  # only the blocks of this region of the world
    window: Window | None = None
    condition: Condition | None = None  # only while the world's state says so
    kind = "assignment"


@dataclass(frozen=True)
class Exclusion(FormalClause):
    """`player` never does `verb` to `target` (None: to anything in `region`): "Glitch does not mine
    iron_ore", "Nobody mines red_mushroom_block while the river holds more than 7 slime_block"."""

    player: str
    verb: str
    target: str | None
    region: str | None = None
    window: Window | None = None
    condition: Condition | None = None
    chest: str | None = None  # for `take`: from this chest only ("" or None: any)
    # "... until Ann and Ben have signalled": only what is done before a signal from each of them counts
    until_signals_from: tuple[str, ...] = ()
    kind = "exclusion"


@dataclass(frozen=True)
class RegionLimit(FormalClause):
    """`player` mines (`target`, None: anything) only inside `region`: "Ann mines only in the north patch"."""

    player: str
    verb: str
    target: str | None
    region: str
    window: Window | None = None
    kind = "region limit"


@dataclass(frozen=True)
class MineOnly(FormalClause):
    """`player` mines no block other than `blocks`: "Gizmo mines only iron_ore" (it need not mine any)."""

    player: str
    blocks: tuple[str, ...]
    window: Window | None = None
    kind = "mining only"


@dataclass(frozen=True)
class Quota(FormalClause):
    """`player` does `verb` to at most (or at least) `count` `target`, in every `period` seconds
    from the start of the episode, or over the whole episode when `period` is None."""

    player: str
    verb: str
    target: str
    count: int
    bound: str = "at_most"  # at_most | at_least
    period: float | None = None
    chest: str | None = None  # for `take`: the chest's name ("" any chest)
    region: str | None = None
    window: Window | None = None  # periods count from the window's start
    condition: Condition | None = None  # only what is done while it holds counts
    kind = "quota"


@dataclass(frozen=True)
class TotalQuota(FormalClause):
    """`players` together do `verb` to at most (or at least) `count` `target` (per `period`)."""

    players: tuple[str, ...]
    verb: str
    target: str
    count: int
    bound: str = "at_most"
    period: float | None = None
    region: str | None = None
    window: Window | None = None
    condition: Condition | None = None
    kind = "total quota"


@dataclass(frozen=True)
class Deposit(FormalClause):
    """`player` puts `count` (None: all it ends up with) `item` into the chest named `chest` ("" any)."""

    player: str
    item: str
    count: int | None
    chest: str
    by: float | None = None  # a deadline: the items are in the chest by this second of the episode
    kind = "deposit"


@dataclass(frozen=True)
class Withdraw(FormalClause):
    """`player` takes at least `count` `item` from the chest named `chest` ("" any): "Hal takes 2 diamonds
    from the cache chest"."""

    player: str
    item: str
    count: int
    chest: str
    by: float | None = None  # a deadline: taken by this second of the episode
    kind = "withdrawal"


@dataclass(frozen=True)
class Return(FormalClause):
    """`player` puts every `item` it takes back into the chest named `chest` ("" the one it came from)."""

    player: str
    item: str
    chest: str
    by: float | None = None  # a deadline: back by this second of the episode
    kind = "return"


@dataclass(frozen=True)
class Steps(FormalClause):
    """Clauses said in one sentence: "A, then B" (`ordered`: each step done after the one before it) or
    "A and B" (each kept on its own). The judges and the scripted players read `parts`."""

    parts: tuple[Clause, ...]
    ordered: bool

    @property
    def kind(self) -> str:  # type: ignore[override]
        word = "then" if self.ordered else "and"
        return f" {word} ".join(p.kind for p in self.parts) + (" (in this order)" if self.ordered else "")


@dataclass(frozen=True)
class Give(FormalClause):
    """`giver` hands `count` (None: all) `item` to `receiver`; settled by the judge from the final inventories."""

    giver: str
    receiver: str
    item: str
    count: int | None
    kind = "gift of items"


@dataclass(frozen=True)
class Craft(FormalClause):
    """`player` crafts at least `count` `item`."""

    player: str
    item: str
    count: int = 1
    by: float | None = None  # a deadline: made by this second of the episode
    kind = "crafting"


@dataclass(frozen=True)
class WaitFor(FormalClause):
    """`player` does nothing (no digging, chest, crafting or placing) before `signaller`'s first signal."""

    player: str
    signaller: str
    kind = "waiting for a signal"


@dataclass(frozen=True)
class Signal(FormalClause):
    """`player` signals `receiver` ("" everyone) when its other clauses are done."""

    player: str
    receiver: str = ""
    by: float | None = None  # a deadline: the signal is sent by this second of the episode
    kind = "signal"


@dataclass(frozen=True)
class TurnTaking(FormalClause):
    """`first` uses `item` from the chest, returns it (into the chest named `chest`; "" the one it came from), then
    `then` may take it (after a signal when `signal`)."""

    first: str
    item: str
    then: str
    signal: bool
    chest: str = ""
    kind = "turn-taking"


@dataclass(frozen=True)
class FailurePayment(FormalClause):
    """`deed` (one player's deposit, withdrawal, return, craft, signal or at-least quota) is not promised; if it was
    not done (its check finds a breach), its player pays `amount` emeralds to each of `payees`: "If Ada fails to
    craft an iron pickaxe by 60 seconds, she pays Ben 10 emeralds"."""

    deed: Clause
    payees: tuple[str, ...]
    amount: float
    kind = "payment on failure"

    @property
    def player(self) -> str:
        return self.deed.player  # type: ignore[union-attr]


@dataclass(frozen=True)
class ForEach(FormalClause):
    """A clause quantified over players ("each player", "every other player"): one part per player."""

    quantifier: str  # the words, e.g. "each player"
    parts: tuple[Clause, ...]

    @property
    def kind(self) -> str:  # type: ignore[override]
        kinds = sorted({p.kind for p in self.parts})
        return f"{', '.join(kinds)} for {self.quantifier}"


@dataclass(frozen=True)
class FreeText:
    """A clause outside the controlled form; `reason` says why (for the report)."""

    text: str
    reason: str = ""
    kind = "free text"

    @property
    def formal(self) -> bool:
        return False

    @property
    def why(self) -> str:
        return self.reason or "free text"


Clause = (
    Assignment | Exclusion | RegionLimit | MineOnly | Quota | TotalQuota | Deposit | Withdraw | Return | Give | Craft
    | WaitFor | Signal | TurnTaking | Steps | FixedTransfer | ProportionalTransfer | PerUnitTransfer
    | ThresholdTransfer | ChestPayment | Pool | RewardSplit | Penalty | FailurePayment | ForEach | FreeText
)
Transfer = FixedTransfer | ProportionalTransfer | PerUnitTransfer | ThresholdTransfer | ChestPayment
TRANSFER_TYPES = (FixedTransfer, ProportionalTransfer, PerUnitTransfer, ThresholdTransfer, ChestPayment)
SHARING_TYPES = (Pool, RewardSplit)


def parts(clause: Clause) -> tuple[Clause, ...]:
    """The single clauses of `clause`: the parts of a ForEach (one per player) and of Steps (one per
    step), flattened; else the clause itself."""
    if isinstance(clause, (ForEach, Steps)):
        return tuple(p for part in clause.parts for p in parts(part))
    return (clause,)


def gated_waits(clause: Clause) -> list[tuple[WaitFor, tuple[Clause, ...]]]:
    """The waits said as a step of an ordered sequence, each with the steps after it ("Ben waits for Ada's signal,
    then takes the iron_pickaxe"): such a wait holds back only those steps, not everything the player does. A
    wait standing alone ("Ben waits for Ada's signal.") or last in its sequence holds back everything."""
    found: list[tuple[WaitFor, tuple[Clause, ...]]] = []
    if isinstance(clause, ForEach):
        for part in clause.parts:
            found += gated_waits(part)
    elif isinstance(clause, Steps):
        for i, step in enumerate(clause.parts):
            later = tuple(p for rest in clause.parts[i + 1:] for p in parts(rest))
            if clause.ordered and isinstance(step, WaitFor) and later:
                found.append((step, later))
            elif isinstance(step, (Steps, ForEach)):
                found += gated_waits(step)
    return found


def parties(clause: Clause) -> frozenset[str]:
    """The players a clause binds or pays (empty for free text)."""
    names: set[str] = set()
    for part in parts(clause):
        for field_name in ("player", "giver", "receiver", "signaller", "first", "then", "payer", "payee"):
            value = getattr(part, field_name, "")
            if value:
                names.add(value)
        for field_name in ("players", "breakers", "payees"):
            names.update(getattr(part, field_name, ()))
    return frozenset(names)
