"""The formal judge: scores every controlled-form clause from the events and settles what it owes.

Readings (documented choices where the paper leaves room; docs/contracts.md says the same):
- a proportional transfer ("50% of the value of his raw_iron") is a share of what the payer's final
  raw_iron is worth to the payer;
- a per-unit transfer ("for each red_mushroom collected") counts the payer's collected items;
- a gift of items ("Ada gives 3 bread to Ben") moves the items at the end: what they are worth to the
  giver leaves the giver, what they are worth to the receiver reaches the receiver; a giver holding
  fewer gives what it holds and has broken the clause;
- a penalty is paid once for each clause a player broke (per clause, not per breach);
- reward sharing comes last: the sharing players' rewards after every other transfer (and after what
  the world's groups share) are averaged;
- transfers are not capped: emerald balances may go negative;
- free-text clauses are left to the LLM judge.
"""

from __future__ import annotations

from collections import defaultdict

from blockpact.judge.clause_checks import Breach, breakable, clause_breaches
from blockpact.judge.clauses import (
    Clause,
    FixedTransfer,
    ForEach,
    FreeText,
    Give,
    Penalty,
    PerUnitTransfer,
    Pool,
    ProportionalTransfer,
)
from blockpact.judge.contract import Contract, number
from blockpact.judge.observables import EpisodeObservables
from blockpact.judge.verdict import Judgment, no_transfers


def transfer_amount(clause: Clause, obs: EpisodeObservables) -> tuple[str, str, float, str] | None:
    """(payer, payee, emeralds, how it was computed) for a transfer clause, else None."""
    match clause:
        case FixedTransfer(payer, payee, amount):
            return payer, payee, amount, f"fixed {number(amount)}"
        case ProportionalTransfer(payer, payee, fraction, item):
            count = obs.inventories.get(payer, {}).get(item, 0)
            unit = obs.value(payer, item)
            amount = fraction * unit * count
            return payer, payee, amount, f"{number(fraction * 100)}% of {count} {item} x {number(unit)}"
        case PerUnitTransfer(payer, payee, rate, item):
            count = obs.collected.get(payer, {}).get(item, 0)
            return payer, payee, rate * count, f"{number(rate)} x {count} {item} collected"
    return None


def all_breaches(contract: Contract, obs: EpisodeObservables) -> list[Breach]:
    return [b for n, c in enumerate(contract.clauses, 1) for b in clause_breaches(n, c, obs)]


def contract_critiques(contract: Contract, obs: EpisodeObservables) -> dict[str, str]:
    """Per player, the breaches the events show ("" when none)."""
    notes: dict[str, list[str]] = defaultdict(list)
    for breach in all_breaches(contract, obs):
        notes[breach.player].append(breach.text)
    return {p: " ".join(notes[p]) for p in obs.players}


class _Ledger:
    def __init__(self, obs: EpisodeObservables) -> None:
        self.obs = obs
        self.transfers = no_transfers(obs.players)
        self.lines: list[str] = []
        self.held = {p: dict(inv) for p, inv in obs.inventories.items()}  # after gifts so far

    def pay(self, n: int, payer: str, payee: str, amount: float, how: str) -> None:
        self.transfers[payer] -= amount
        self.transfers[payee] += amount
        self.lines.append(f"Clause {n}: {payer} pays {payee} {number(amount)} emeralds ({how}).")

    def give(self, n: int, clause: Give) -> Breach | None:
        held = self.held.get(clause.giver, {}).get(clause.item, 0)
        wanted = held if clause.count is None else clause.count
        moved = min(held, wanted)
        self.held.setdefault(clause.giver, {})[clause.item] = held - moved
        lost, gained = self.obs.value(clause.giver, clause.item) * moved, self.obs.value(clause.receiver, clause.item) * moved
        self.transfers[clause.giver] -= lost
        self.transfers[clause.receiver] += gained
        self.lines.append(
            f"Clause {n}: {clause.giver} gives {clause.receiver} {moved} {clause.item} "
            f"(worth {number(lost)} to {clause.giver}, {number(gained)} to {clause.receiver})."
        )
        if moved < wanted:
            return Breach(n, clause.giver, f"{clause.giver} held {held} {clause.item}, fewer than the {wanted} clause {n} gives.")
        return None

    def penalise(self, n: int, clause: Penalty, breaches: list[Breach]) -> None:
        broken = {(b.clause, b.player) for b in breaches if clause.clause in (None, b.clause) and b.clause != n}
        for ref, player in sorted(broken):
            if clause.breakers and player not in clause.breakers:
                continue
            payees = clause.payees or tuple(p for p in self.obs.players if p != player)
            for payee in payees:
                if payee != player:
                    self.pay(n, player, payee, clause.amount, f"penalty for breaking clause {ref}")

    def share(self, n: int, clause: Pool) -> None:
        members = [p for p in clause.players if p in self.transfers]
        totals = {p: self.obs.inventory_value(p) + self.obs.group_sharing.get(p, 0.0) + self.transfers[p] for p in members}
        mean = sum(totals.values()) / len(members)
        for p in members:
            self.transfers[p] += mean - totals[p]
        self.lines.append(f"Clause {n}: {', '.join(members)} share their rewards: {number(round(mean, 6))} emeralds each.")


def clause_scores(contract: Contract, breaches: list[Breach]) -> list[dict[str, object]]:
    """Per clause: kind, formal or not and why, and whether it was kept, broken (by whom), or settled."""
    scores = []
    for n, clause in enumerate(contract.clauses, 1):
        broken = [b for b in breaches if b.clause == n]
        if isinstance(clause, FreeText):
            status = "free text"
        elif broken:
            status = "broken"
        else:
            status = "kept" if breakable(clause) else "settled"
        scores.append({
            "clause": n, "kind": clause.kind, "formal": clause.formal, "why": clause.why, "status": status,
            "broken_by": sorted({b.player for b in broken}), "breaches": [b.text for b in broken],
        })
    return scores


def judge_formal(contract: Contract, obs: EpisodeObservables) -> Judgment:
    ledger = _Ledger(obs)
    breaches = all_breaches(contract, obs)
    numbered = list(enumerate(contract.clauses, 1))
    for n, clause in numbered:  # transfers and gifts first, penalties next, sharing last
        for part in clause.parts if isinstance(clause, ForEach) else (clause,):
            settled = transfer_amount(part, obs)
            if settled is not None:
                ledger.pay(n, *settled)
            elif isinstance(part, Give) and (breach := ledger.give(n, part)) is not None:
                breaches.append(breach)
        if isinstance(clause, FreeText):
            ledger.lines.append(f"Clause {n} is free text, not judged formally ({clause.reason}).")
    for n, clause in numbered:
        if isinstance(clause, Penalty):
            ledger.penalise(n, clause, breaches)
    for n, clause in numbered:
        if isinstance(clause, Pool):
            ledger.share(n, clause)
    if not contract.clauses:
        ledger.lines.append("No contract: no transfers.")
    notes: dict[str, list[str]] = defaultdict(list)
    for breach in breaches:
        notes[breach.player].append(breach.text)
    return Judgment(
        transfers={p: v + 0.0 for p, v in ledger.transfers.items()},  # no -0.0 in reports
        critiques={p: " ".join(notes[p]) for p in obs.players},
        source="formal",
        reasoning=" ".join(ledger.lines),
        clauses=clause_scores(contract, breaches),
    )
