"""The kinds of contract clause: frozen values the parser produces and the judges read.

Every clause says whether the formal judge can score it (`formal`) and why (`why`): a clause in
the controlled form names its kind; a `FreeText` clause gives the reason it is not in that form.
A clause quantified over players ("each player ...", "... to every other player") is a `ForEach`
holding one clause per player; the judges and the scripted players read its `parts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from blockpact.worlds.spec.schema import Condition


@dataclass(frozen=True)
class Window:
    """The seconds of the episode a clause holds in: [start, end), `end` None for the episode's end.
    Counted from the episode's start; "in the last period" is resolved to seconds with the world."""

    start: float = 0.0
    end: float | None = None

    def holds_at(self, t: float) -> bool:
        return self.start <= t and (self.end is None or t < self.end)


class _Formal:
    """Mixin: a clause the formal judge scores from the event log."""

    kind = "clause"

    @property
    def formal(self) -> bool:
        return True

    @property
    def why(self) -> str:
        return f"controlled form ({self.kind}): the formal judge scores it from the event log"


@dataclass(frozen=True)
class Assignment(_Formal):
    """`player` alone does `verb` to `target`: "Gizmo mines all iron_ore" -> ("Gizmo", "mine", "iron_ore")."""

    player: str
    verb: str  # mine (blocks dug) | collect (items gained by digging or pickup) | take (from a chest)
    target: str
    region: str | None = None  # only the blocks of this region of the world
    window: Window | None = None
    condition: Condition | None = None  # only while the world's state says so
    kind = "assignment"


@dataclass(frozen=True)
class Exclusion(_Formal):
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
class RegionLimit(_Formal):
    """`player` mines (`target`, None: anything) only inside `region`: "Ann mines only in the north patch"."""

    player: str
    verb: str
    target: str | None
    region: str
    window: Window | None = None
    kind = "region limit"


@dataclass(frozen=True)
class MineOnly(_Formal):
    """`player` mines no block other than `blocks`: "Gizmo mines only iron_ore" (it need not mine any)."""

    player: str
    blocks: tuple[str, ...]
    window: Window | None = None
    kind = "mining only"


@dataclass(frozen=True)
class Quota(_Formal):
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
class TotalQuota(_Formal):
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
class Deposit(_Formal):
    """`player` puts `count` (None: all it ends up with) `item` into the chest named `chest` ("" any)."""

    player: str
    item: str
    count: int | None
    chest: str
    by: float | None = None  # a deadline: the items are in the chest by this second of the episode
    kind = "deposit"


@dataclass(frozen=True)
class Withdraw(_Formal):
    """`player` takes at least `count` `item` from the chest named `chest` ("" any): "Hal takes 2 diamonds
    from the cache chest"."""

    player: str
    item: str
    count: int
    chest: str
    by: float | None = None  # a deadline: taken by this second of the episode
    kind = "withdrawal"


@dataclass(frozen=True)
class Return(_Formal):
    """`player` puts every `item` it takes back into the chest named `chest` ("" the one it came from)."""

    player: str
    item: str
    chest: str
    by: float | None = None  # a deadline: back by this second of the episode
    kind = "return"


@dataclass(frozen=True)
class Steps(_Formal):
    """Clauses said in one sentence: "A, then B" (`ordered`: each step done after the one before it) or
    "A and B" (each kept on its own). The judges and the scripted players read `parts`."""

    parts: tuple[Clause, ...]
    ordered: bool

    @property
    def kind(self) -> str:  # type: ignore[override]
        word = "then" if self.ordered else "and"
        return f" {word} ".join(p.kind for p in self.parts) + (" (in this order)" if self.ordered else "")


@dataclass(frozen=True)
class Give(_Formal):
    """`giver` hands `count` (None: all) `item` to `receiver`; settled by the judge from the final inventories."""

    giver: str
    receiver: str
    item: str
    count: int | None
    kind = "gift of items"


@dataclass(frozen=True)
class Craft(_Formal):
    """`player` crafts at least `count` `item`."""

    player: str
    item: str
    count: int = 1
    by: float | None = None  # a deadline: made by this second of the episode
    kind = "crafting"


@dataclass(frozen=True)
class WaitFor(_Formal):
    """`player` does nothing (no digging, chest, crafting or placing) before `signaller`'s first signal."""

    player: str
    signaller: str
    kind = "waiting for a signal"


@dataclass(frozen=True)
class Signal(_Formal):
    """`player` signals `receiver` ("" everyone) when its other clauses are done."""

    player: str
    receiver: str = ""
    by: float | None = None  # a deadline: the signal is sent by this second of the episode
    kind = "signal"


@dataclass(frozen=True)
class TurnTaking(_Formal):
    """`first` uses `item` from the chest, returns it (into the chest named `chest`; "" the one it came from), then
    `then` may take it (after a signal when `signal`)."""

    first: str
    item: str
    then: str
    signal: bool
    chest: str = ""
    kind = "turn-taking"


@dataclass(frozen=True)
class FixedTransfer(_Formal):
    payer: str
    payee: str
    amount: float
    kind = "fixed transfer"


@dataclass(frozen=True)
class ProportionalTransfer(_Formal):
    """`fraction` (0.5 for 50%) of what the payer's final `item`s are worth to the payer."""

    payer: str
    payee: str
    fraction: float
    item: str
    kind = "proportional transfer"


@dataclass(frozen=True)
class PerUnitTransfer(_Formal):
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
class ThresholdTransfer(_Formal):
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
class Pool(_Formal):
    """`players` share their rewards (final inventory values after every other transfer) equally."""

    players: tuple[str, ...]
    kind = "reward sharing"


@dataclass(frozen=True)
class RewardSplit(_Formal):
    """`players` pool their rewards and split the total by `shares` (fractions summing to 1, in the
    players' order): "The total reward is split 60/40 between Ann and Ben"."""

    players: tuple[str, ...]
    shares: tuple[float, ...]
    kind = "reward split"


@dataclass(frozen=True)
class Penalty(_Formal):
    """Whoever of `breakers` (empty: anyone) breaks clause `clause` (None: any clause) pays `amount`
    emeralds to each of `payees` (empty: every other player), once per broken clause."""

    breakers: tuple[str, ...]
    clause: int | None
    amount: float
    payees: tuple[str, ...]
    kind = "penalty"


@dataclass(frozen=True)
class ForEach(_Formal):
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
    | ThresholdTransfer | Pool | RewardSplit | Penalty | ForEach | FreeText
)
Transfer = FixedTransfer | ProportionalTransfer | PerUnitTransfer | ThresholdTransfer
TRANSFER_TYPES = (FixedTransfer, ProportionalTransfer, PerUnitTransfer, ThresholdTransfer)
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
