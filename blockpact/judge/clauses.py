"""The kinds of contract clause: frozen values the parser produces and the judges read.

Every clause says whether the formal judge can score it (`formal`) and why (`why`): a clause in
the controlled form names its kind; a `FreeText` clause gives the reason it is not in that form.
A clause quantified over players ("each player ...", "... to every other player") is a `ForEach`
holding one clause per player; the judges and the scripted players read its `parts`.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    kind = "assignment"


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
    kind = "total quota"


@dataclass(frozen=True)
class Deposit(_Formal):
    """`player` puts `count` (None: all it ends up with) `item` into the chest named `chest` ("" any)."""

    player: str
    item: str
    count: int | None
    chest: str
    kind = "deposit"


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
    kind = "signal"


@dataclass(frozen=True)
class TurnTaking(_Formal):
    """`first` uses `item` from the chest, returns it, then `then` may take it (after a signal when `signal`)."""

    first: str
    item: str
    then: str
    signal: bool
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
    """`rate` emeralds for each `item` the payer collected during the episode."""

    payer: str
    payee: str
    rate: float
    item: str
    kind = "per-unit transfer"


@dataclass(frozen=True)
class Pool(_Formal):
    """`players` share their rewards (final inventory values after every other transfer) equally."""

    players: tuple[str, ...]
    kind = "reward sharing"


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
    Assignment | Quota | TotalQuota | Deposit | Give | Craft | WaitFor | Signal | TurnTaking
    | FixedTransfer | ProportionalTransfer | PerUnitTransfer | Pool | Penalty | ForEach | FreeText
)
Transfer = FixedTransfer | ProportionalTransfer | PerUnitTransfer
TRANSFER_TYPES = (FixedTransfer, ProportionalTransfer, PerUnitTransfer)


def parts(clause: Clause) -> tuple[Clause, ...]:
    """The per-player clauses of `clause`: its parts for a ForEach, else the clause itself."""
    return clause.parts if isinstance(clause, ForEach) else (clause,)


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
