"""Contracts: the text the players agreed on and its clauses, parsed where they follow the controlled form.

A contract is a list of numbered clauses ("1. ...", "2) ..."). Each clause is parsed by the small
grammar in `contract_grammar`; a clause that does not fit it, or that fits it but names a player
who is not in the scenario, stays `FreeText` with the reason, for the LLM judge and the report.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache

from blockpact.config import default_mc_version
from blockpact.judge.clauses import (
    TRANSFER_TYPES,
    Assignment,
    Clause,
    FixedTransfer,
    FreeText,
    PerUnitTransfer,
    ProportionalTransfer,
    Transfer,
    TurnTaking,
)
from blockpact.judge.contract_grammar import parse_clause, render_assignment
from blockpact.worlds import mcdata

__all__ = [
    "TRANSFER_TYPES", "Assignment", "Clause", "Contract", "EMPTY_CONTRACT", "FixedTransfer", "FreeText",
    "PerUnitTransfer", "ProportionalTransfer", "Transfer", "TurnTaking", "parse_contract", "render_clause",
    "render_contract",
]


@dataclass(frozen=True)
class Contract:
    text: str
    clauses: tuple[Clause, ...]

    @property
    def empty(self) -> bool:
        return not self.clauses

    def free_text(self) -> list[tuple[int, FreeText]]:
        """(clause number, clause) of every clause the formal judge cannot read."""
        return [(i, c) for i, c in enumerate(self.clauses, 1) if isinstance(c, FreeText)]


EMPTY_CONTRACT = Contract("", ())

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*)$")


_INLINE_FIRST = re.compile(r"(?<=[:])\s*(1)\s*[.)]\s+")  # "Contract: 1. ..."
_INLINE_NUMBER = re.compile(r"(?<=[.;:])\s+(\d+)\s*[.)]\s+")


def _split_inline(line: str) -> list[str]:
    """Split "1. A. 2. B." written on one line at the numbers that continue the count (never at "1.5")."""
    first = _NUMBERED.match(line)
    if not first:
        heading = _INLINE_FIRST.search(line)
        if not heading:
            return [line]
        return [line[:heading.start()].strip(), *_split_inline(line[heading.start(1):])]
    parts, start, expected = [], 0, int(first.group(1)) + 1
    for match in _INLINE_NUMBER.finditer(line):
        if int(match.group(1)) == expected:
            parts.append(line[start:match.start()].strip())
            start, expected = match.start(1), expected + 1
    parts.append(line[start:].strip())
    return parts


def split_clauses(text: str) -> list[str]:
    """Clause texts: one per number, continuation lines joined; unnumbered text gives one clause per line.

    Lines before the first number (a heading such as "Contract:") are not clauses.
    """
    lines = [part for line in text.strip().splitlines() for part in _split_inline(line.strip())]
    if not any(_NUMBERED.match(line) for line in lines):
        return [line for line in lines if line]
    clauses: list[str] = []
    for line in lines:
        numbered = _NUMBERED.match(line)
        if numbered:
            clauses.append(numbered.group(2).strip())
        elif clauses and line:
            clauses[-1] = f"{clauses[-1]} {line}".strip()
    return [c for c in clauses if c]


@cache
def item_vocabulary(version: str | None = None) -> frozenset[str]:
    """Every item and block name of the Minecraft version: the names a clause may use."""
    data = mcdata.load(version or default_mc_version())
    return frozenset(data.items) | frozenset(data.blocks)


def parse_contract(
    text: str | None,
    players: Sequence[str],
    *,
    world: str | None = None,
    vocabulary: Collection[str] | None = None,
) -> Contract:
    """Parse every numbered clause of `text`; `world` enables that world's verb phrases
    (e.g. "cleans the river" in cleanup). No text (no agreement) gives the empty contract."""
    if not text or not text.strip():
        return EMPTY_CONTRACT
    names = vocabulary if vocabulary is not None else item_vocabulary()
    clauses = tuple(parse_clause(c, players, world=world, vocabulary=names) for c in split_clauses(text))
    return Contract(text.strip(), clauses)


def number(value: float) -> str:
    """A number as a contract writes it: 9, 1.5, 33.3."""
    return f"{value:.10g}"


def render_clause(clause: Clause, *, world: str | None = None) -> str:
    """The controlled-form sentence for `clause` (parses back to the same clause)."""
    match clause:
        case Assignment():
            return render_assignment(clause, world)
        case TurnTaking(first, item, then, signal):
            after = f"signals {then}" if signal else f"{then} takes it"
            return f"{first} takes the {item} first and returns it to the chest, then {after}."
        case FixedTransfer(payer, payee, amount):
            unit = "emerald" if amount == 1 else "emeralds"
            return f"At the end of the scenario {payer} transfers {number(amount)} {unit} to {payee}."
        case ProportionalTransfer(payer, payee, fraction, item):
            return (
                f"At the end of the scenario {payer} transfers {number(fraction * 100)}% of the value of his "
                f"{item} to {payee}."
            )
        case PerUnitTransfer(payer, payee, rate, item):
            unit = "emerald" if rate == 1 else "emeralds"
            return f"At the end of the scenario {payer} transfers {number(rate)} {unit} to {payee} for each {item} collected."
        case FreeText(text):
            return text
    raise TypeError(f"not a clause: {clause!r}")


def render_contract(clauses: Sequence[Clause], *, world: str | None = None) -> str:
    """Numbered controlled-form text, one clause per line."""
    return "\n".join(f"{i}. {render_clause(c, world=world)}" for i, c in enumerate(clauses, 1))
