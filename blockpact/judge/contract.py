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

from blockpact.settings import default_mc_version
from blockpact.judge.clauses import (
    TRANSFER_TYPES,
    Assignment,
    Clause,
    Craft,
    Deposit,
    FixedTransfer,
    ForEach,
    FreeText,
    Give,
    Penalty,
    PerUnitTransfer,
    Pool,
    ProportionalTransfer,
    Quota,
    Signal,
    TotalQuota,
    Transfer,
    TurnTaking,
    WaitFor,
    parties,
    parts,
)
from blockpact.judge.contract_grammar import parse_clause, render_assignment
from blockpact.worlds.spec import mcdata

__all__ = [
    "TRANSFER_TYPES", "Assignment", "Clause", "Contract", "Craft", "Deposit", "EMPTY_CONTRACT", "FixedTransfer",
    "ForEach", "FreeText", "Give", "Penalty", "PerUnitTransfer", "Pool", "ProportionalTransfer", "Quota", "Signal",
    "TotalQuota", "Transfer", "TurnTaking", "WaitFor", "parse_contract", "parties", "parts", "render_clause",
    "render_contract",
]


@dataclass(frozen=True)
class Contract:
    text: str
    clauses: tuple[Clause, ...]

    @property
    def empty(self) -> bool:
        return not self.clauses

    def parties(self) -> frozenset[str]:
        """Every player some formal clause binds or pays."""
        return frozenset().union(*(parties(c) for c in self.clauses))

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
    texts = split_clauses(text)
    clauses = [parse_clause(c, players, world=world, vocabulary=names) for c in texts]
    for i, clause in enumerate(clauses):
        problem = _penalty_problem(i + 1, clause, clauses)
        if problem:
            clauses[i] = FreeText(texts[i], problem)
    return Contract(text.strip(), tuple(clauses))


def _penalty_problem(n: int, clause: Clause, clauses: Sequence[Clause]) -> str | None:
    """A penalty must name a clause of this contract that can be broken (not a transfer or penalty)."""
    if not isinstance(clause, Penalty) or clause.clause is None:
        return None
    if not 1 <= clause.clause <= len(clauses):
        return f"clause {n} names clause {clause.clause}, but the contract has {len(clauses)} clauses"
    target = clauses[clause.clause - 1]
    if isinstance(target, (*TRANSFER_TYPES, Penalty, Pool, Give)) or (
        isinstance(target, ForEach) and all(isinstance(p, TRANSFER_TYPES) for p in target.parts)
    ):
        return f"clause {clause.clause} is settled by the judge and cannot be broken"
    return None


def number(value: float) -> str:
    """A number as a contract writes it: 9, 1.5, 33.3."""
    return f"{value:.10g}"


_VERBS = {"mine": "mines", "collect": "collects", "take": "takes"}
_BOUNDS = {"at_most": "at most", "at_least": "at least"}


def _names(players: Sequence[str]) -> str:
    return players[0] if len(players) == 1 else f"{', '.join(players[:-1])} and {players[-1]}"


def _amount(count: int | None) -> str:
    return "all" if count is None else str(count)


def _emeralds(value: float) -> str:
    return f"{number(value)} {'emerald' if value == 1 else 'emeralds'}"


def _render(clause: Clause, world: str | None, who: str | None = None, to: str | None = None) -> str:
    """One clause; `who` and `to` replace the subject and the receiving player (for quantifiers)."""
    match clause:
        case Assignment():
            text = render_assignment(clause, world)
            return text if who is None else who + text[len(clause.player):]
        case Quota(player, verb, target, count, bound, period, chest):
            source = "" if chest is None else (f" from the {chest} chest" if chest else " from the chest")
            every = f" every {number(period)} seconds" if period else ""
            return f"{who or player} {_VERBS[verb]} {_BOUNDS[bound]} {count} {target}{source}{every}."
        case TotalQuota(players, verb, target, count, bound, period):
            every = f" every {number(period)} seconds" if period else ""
            return f"{_names(players)} together {verb} {_BOUNDS[bound]} {count} {target}{every}."
        case Deposit(player, item, count, chest):
            return f"{who or player} deposits {_amount(count)} {item} into the {chest + ' ' if chest else ''}chest."
        case Give(giver, receiver, item, count):
            return f"{who or giver} gives {_amount(count)} {item} to {to or receiver}."
        case Craft(player, item, count):
            return f"{who or player} crafts {count} {item}."
        case WaitFor(player, signaller):
            return f"{player} waits for {signaller}'s signal."
        case Signal(player, receiver):
            target = to or receiver
            return f"{who or player} signals {target + ' ' if target else ''}when done."
        case TurnTaking(first, item, then, signal):
            after = f"signals {then}" if signal else f"{then} takes it"
            return f"{first} takes the {item} first and returns it to the chest, then {after}."
        case FixedTransfer(payer, payee, amount):
            return f"At the end of the scenario {who or payer} transfers {_emeralds(amount)} to {to or payee}."
        case ProportionalTransfer(payer, payee, fraction, item):
            return (
                f"At the end of the scenario {who or payer} transfers {number(fraction * 100)}% of the value of his "
                f"{item} to {to or payee}."
            )
        case PerUnitTransfer(payer, payee, rate, item):
            return (f"At the end of the scenario {who or payer} transfers {_emeralds(rate)} to {to or payee} "
                    f"for each {item} collected.")
        case Pool(players):
            return f"{_names(players)} share their rewards equally."
        case Penalty(breakers, ref, amount, payees):
            broken = f"clause {ref}" if ref is not None else "a clause"
            receiver = _names(payees) if payees else "every other player"
            if breakers:
                return f"If {breakers[0]} breaks {broken}, {breakers[0]} pays {_emeralds(amount)} to {receiver}."
            return f"Whoever breaks {broken} pays {_emeralds(amount)} to {receiver}."
        case ForEach(quantifier, (first, *_)):
            subject = "each player" if "each player" in quantifier else None
            receiver = "every other player" if "every other player" in quantifier else None
            text = _render(first, world, subject, receiver)
            return text[0].upper() + text[1:]
        case FreeText(text):
            return text
    raise TypeError(f"not a clause: {clause!r}")


def render_clause(clause: Clause, *, world: str | None = None) -> str:
    """The controlled-form sentence for `clause` (parses back to the same clause)."""
    return _render(clause, world)


def render_contract(clauses: Sequence[Clause], *, world: str | None = None) -> str:
    """Numbered controlled-form text, one clause per line."""
    return "\n".join(f"{i}. {render_clause(c, world=world)}" for i, c in enumerate(clauses, 1))
