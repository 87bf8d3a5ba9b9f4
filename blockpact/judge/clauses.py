"""The kinds of contract clause: frozen values the parser produces and the judges read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Assignment:
    """`player` alone does `verb` to `target`: "Gizmo mines all iron_ore" -> ("Gizmo", "mine", "iron_ore")."""

    player: str
    verb: str  # canonical action from contract_terms.toml: mine | collect | take
    target: str


@dataclass(frozen=True)
class TurnTaking:
    """`first` uses `item` from the chest, returns it, then `then` may take it (after a signal when `signal`)."""

    first: str
    item: str
    then: str
    signal: bool


@dataclass(frozen=True)
class FixedTransfer:
    payer: str
    payee: str
    amount: float


@dataclass(frozen=True)
class ProportionalTransfer:
    """`fraction` (0.5 for 50%) of what the payer's final `item`s are worth to the payer."""

    payer: str
    payee: str
    fraction: float
    item: str


@dataclass(frozen=True)
class PerUnitTransfer:
    """`rate` emeralds for each `item` the payer collected during the episode."""

    payer: str
    payee: str
    rate: float
    item: str


@dataclass(frozen=True)
class FreeText:
    """A clause outside the controlled form; `reason` says why (for the report)."""

    text: str
    reason: str = ""


Clause = Assignment | TurnTaking | FixedTransfer | ProportionalTransfer | PerUnitTransfer | FreeText
Transfer = FixedTransfer | ProportionalTransfer | PerUnitTransfer
TRANSFER_TYPES = (FixedTransfer, ProportionalTransfer, PerUnitTransfer)
