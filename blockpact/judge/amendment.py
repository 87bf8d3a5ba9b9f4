"""Amendments: clauses that replace or join a contract's clauses between episodes (an institution's meeting).

An amendment is a tuple of clauses. A quota clause (a player's `Quota`, a `TotalQuota`, or "each player" quotas)
replaces every quota clause of the contract on the same block, so a new limit supersedes the old one instead of
stacking on it; any other clause is added, unless the contract holds it already. What a meeting may change is
named by kinds (`CHANGEABLE`): `quota` allows quota clauses only, `clauses` any formal clause.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from blockpact.judge.clauses import Clause, ForEach, FreeText, Quota, TotalQuota
from blockpact.worlds.spec.institution import CHANGEABLE

__all__ = ["CHANGEABLE", "amend", "is_limit", "is_quota", "out_of_order", "quota_blocks"]


def is_quota(clause: Clause) -> bool:
    """A limit (or floor) on how much of a block players mine or take in a period."""
    if isinstance(clause, ForEach):
        return bool(clause.parts) and all(is_quota(p) for p in clause.parts)
    return isinstance(clause, (Quota, TotalQuota))


def quota_blocks(clause: Clause) -> frozenset[str]:
    """The blocks a quota clause limits (empty for other clauses)."""
    if isinstance(clause, ForEach):
        return frozenset().union(*(quota_blocks(p) for p in clause.parts))
    if isinstance(clause, (Quota, TotalQuota)):
        return frozenset({clause.target})
    return frozenset()


def is_limit(clause: Clause) -> bool:
    """A quota that caps what may be taken ("at most"): what a greedy player votes against."""
    if isinstance(clause, ForEach):
        return any(is_limit(p) for p in clause.parts)
    return isinstance(clause, (Quota, TotalQuota)) and clause.bound == "at_most"


def out_of_order(clauses: Sequence[Clause], changeable: Iterable[str]) -> str | None:
    """Why a proposal may not be put to the vote under what the institution lets a meeting change (None: it may)."""
    kinds = set(changeable)
    if not clauses:
        return "it changes nothing (no clause)"
    free = [c for c in clauses if isinstance(c, FreeText)]
    if free:
        return f"a clause is outside the controlled form the formal judge reads: {free[0].text!r}"
    if "clauses" in kinds:
        return None
    if "quota" in kinds:
        other = [c for c in clauses if not is_quota(c)]
        return f"only quota clauses may be changed, and {other[0].kind!r} is not one" if other else None
    return "the institution lets no clause be changed"


def amend(contract: Sequence[Clause], amendment: Sequence[Clause]) -> tuple[Clause, ...]:
    """The contract's clauses after `amendment`: its quotas replace the contract's quotas on their blocks, in the
    place of the first one replaced (else at the end); its other clauses are added when new."""
    blocks = frozenset().union(*(quota_blocks(c) for c in amendment if is_quota(c)))
    new_quotas = [c for c in amendment if is_quota(c)]
    out: list[Clause] = []
    placed = False
    for clause in contract:
        if is_quota(clause) and quota_blocks(clause) & blocks:
            if not placed:
                out.extend(new_quotas)
                placed = True
            continue
        out.append(clause)
    if not placed:
        out.extend(new_quotas)
    out.extend(c for c in amendment if not is_quota(c) and c not in out)
    return tuple(out)
