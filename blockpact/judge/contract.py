"""Contracts: the text the players agreed on and its clauses, parsed where they follow the controlled form.

A contract is a list of numbered clauses ("1. ...", "2) ..."). Each clause is parsed by the small
grammar in `contract_grammar`; a clause that does not fit it, or that fits it but names a player
who is not in the scenario, stays `FreeText` with the reason, for the LLM judge and the report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from blockpact.settings import default_mc_version
from blockpact.judge.clauses import (
    TRANSFER_TYPES, Assignment, Clause, Craft, Deposit, Exclusion, FailurePayment, FixedTransfer, ForEach, FreeText, Give,
    Penalty, MineOnly, PerUnitTransfer, Pool, ProportionalTransfer, Quota, RegionLimit, Return, RewardSplit, Signal, Steps,
    ThresholdTransfer, TotalQuota, Transfer, TurnTaking, WaitFor, Window, Withdraw, parties, parts,
)
from blockpact.judge.contract_grammar import parse_clause
from blockpact.judge.contract_lexicon import Lexicon, version_lexicon, world_lexicon
from blockpact.judge.contract_render import number, render_clause, render_contract
from blockpact.worlds.spec.schema import WorldSpec

__all__ = [
    "TRANSFER_TYPES", "Assignment", "Clause", "Contract", "Craft", "Deposit", "EMPTY_CONTRACT", "Exclusion",
    "FailurePayment", "FixedTransfer", "ForEach", "FreeText", "Give", "MineOnly", "Penalty", "PerUnitTransfer", "Pool", "ProportionalTransfer",
    "Quota", "RegionLimit", "Return", "RewardSplit", "Signal", "Steps", "ThresholdTransfer", "TotalQuota",
    "Transfer", "TurnTaking", "WaitFor", "Window", "Withdraw", "lexicon_for", "number", "parse_contract",
    "parties", "parts", "render_clause", "render_contract",
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


def item_vocabulary(version: str | None = None) -> frozenset[str]:
    """Every item and block name of the Minecraft version: the names a clause may use."""
    return version_lexicon(version or default_mc_version()).vocabulary


_WORLD_LEXICONS: dict[int, tuple[WorldSpec, Lexicon]] = {}


def lexicon_for(spec: WorldSpec) -> Lexicon:
    """The world's lexicon, kept per spec object (a run parses its contract every episode)."""
    kept = _WORLD_LEXICONS.get(id(spec))
    if kept is None or kept[0] is not spec:
        if len(_WORLD_LEXICONS) > 64:
            _WORLD_LEXICONS.clear()
        kept = _WORLD_LEXICONS[id(spec)] = (spec, world_lexicon(spec))
    return kept[1]


def parse_contract(
    text: str | None,
    players: Sequence[str],
    *,
    world: str | None = None,
    spec: WorldSpec | None = None,
) -> Contract:
    """Parse every numbered clause of `text`. With the world's `spec`, clauses may name its chests and
    regions, windows like "in the last period" are resolved, and a clause that could never happen there
    is refused; `world` (or the spec's name) enables that world's verb phrases (e.g. "cleans the river"
    in cleanup). No text (no agreement) gives the empty contract."""
    if not text or not text.strip():
        return EMPTY_CONTRACT
    lexicon = lexicon_for(spec) if spec is not None else version_lexicon(default_mc_version())
    world = world if world is not None else spec.name if spec is not None else None
    texts = split_clauses(text)
    clauses = [parse_clause(c, players, world=world, lexicon=lexicon) for c in texts]
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
    if all(isinstance(p, (*TRANSFER_TYPES, Penalty, Pool, RewardSplit, Give, FailurePayment)) for p in parts(target)):
        return f"clause {clause.clause} is settled by the judge and cannot be broken"
    return None


