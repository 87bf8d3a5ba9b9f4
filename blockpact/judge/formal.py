"""The formal judge: scores every controlled-form clause from the events and settles what it owes.

Readings (documented choices where the paper leaves room; docs/contracts.md says the same):
- a proportional transfer ("50% of the value of his raw_iron") is a share of what the payer's final
  raw_iron is worth to the payer;
- a per-unit transfer ("for each red_mushroom collected") counts the payer's collected items (or mined
  blocks, or items taken from chests, as it says), beyond the first `over` ("for each diamond over 3");
- a conditional transfer ("if Cy mines more than 4 pumpkins, he pays 10 emeralds") is paid once; so is a payment
  on failure ("if Ada fails to craft an iron pickaxe by 60 seconds, she pays Ben 10 emeralds"), when the deed's own
  check finds it undone (whatever the cause: the deed was not promised, so nothing excuses it);
- a per-unit transfer with a period counts the items beyond `over` in each period;
- a payment on a chest's end state ("provided the iron pickaxe is back in the tools chest at the end") is paid once
  when the chest's final contents say so;
- a gift of items ("Ada gives 3 bread to Ben") moves the items at the end: what they are worth to the
  giver leaves the giver, what they are worth to the receiver reaches the receiver; a giver holding
  fewer gives what it holds and has broken the clause;
- a penalty is paid once for each clause a player broke (per clause, not per breach), and its line names the
  breach it punishes;
- a clause left undone because another player's breach made it impossible (the tool taken against the
  contract, the blocks mined by another beyond its quota) is excused, says by whom, and is not fined
  (judge/causality.py);
- reward sharing comes last: the sharing players' rewards after every other transfer (and after what
  the world's groups share) are averaged, or split by the shares a reward split states;
- a clause that had nothing to apply to in the episode (its window began after the end, its condition
  never held, a return of a tool never taken) is "not applicable", with the reason: neither kept nor broken;
- transfers are not capped: emerald balances may go negative;
- free-text clauses are left to the LLM judge.
"""

from __future__ import annotations

import operator
from collections import Counter, defaultdict

from blockpact.judge.causality import Excuse, excuse
from blockpact.judge.clause_checks import Breach, breakable, clause_reading
from blockpact.judge.clause_events import actions
from blockpact.judge.clauses import (
    ChestPayment,
    Clause,
    FailurePayment,
    FixedTransfer,
    FreeText,
    Give,
    Penalty,
    PerUnitTransfer,
    Pool,
    ProportionalTransfer,
    RewardSplit,
    ThresholdTransfer,
    parts,
)
from blockpact.judge.contract import Contract, number, render_clause
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
        case PerUnitTransfer(payer, payee, rate, item, verb, over, counted, period) if period:
            periods = Counter(int((t - obs.start_time) // period) for t, p, k in actions(obs, verb, item)
                              if p == (counted or payer) for _ in range(k))
            paid = sum(max(n - over, 0) for n in periods.values())
            by = f" by {counted}" if counted else ""
            each = ", ".join(f"{n} in seconds {number(k * period)}-{number((k + 1) * period)}"
                             for k, n in sorted(periods.items()) if n > over) or "none"
            return payer, payee, rate * paid, (f"{number(rate)} x {paid} {item} {_DONE[verb]}{by} beyond {over} in a "
                                               f"period of {number(period)} s ({each})")
        case PerUnitTransfer(payer, payee, rate, item, verb, over, counted):
            count = _done(obs, counted or payer, verb, item)
            paid = max(count - over, 0)
            beyond = f" ({count} - {over})" if over else ""
            by = f" by {counted}" if counted else ""
            return payer, payee, rate * paid, f"{number(rate)} x {paid} {item} {_DONE[verb]}{by}{beyond}"
        case ChestPayment(payer, payee, amount, chest, item, op, count):
            held = sum(items.get(item, 0) for pos, items in obs.chests.items() if obs.chest_names.get(pos, "") == chest)
            due = amount if _HOLDS[op](held, count) else 0.0
            return payer, payee, due, (f"the {chest} chest held {held} {item} at the end, "
                                       f"{'' if due else 'not '}{_CMP_WORDS[op]} {count}")
        case ThresholdTransfer(payer, payee, amount, verb, item, over):
            count = _done(obs, payer, verb, item)
            due = amount if count > over else 0.0
            return payer, payee, due, f"{count} {item} {_DONE[verb]}, {'more than' if due else 'not more than'} {over}"
    return None


_DONE = {"collect": "collected", "mine": "mined", "take": "taken"}
_HOLDS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt, "==": operator.eq}
_CMP_WORDS = {"<=": "at most", ">=": "at least", "<": "fewer than", ">": "more than", "==": "exactly"}


def _done(obs: EpisodeObservables, player: str, verb: str, item: str) -> int:
    return sum(k for _, p, k in actions(obs, verb, item) if p == player)


def readings(contract: Contract, obs: EpisodeObservables) -> list[tuple[list[Breach], str | None]]:
    """Per clause: its breaches and, when it had nothing to apply to, why."""
    return [clause_reading(n, c, obs) for n, c in enumerate(contract.clauses, 1)]


def all_breaches(contract: Contract, obs: EpisodeObservables) -> list[Breach]:
    """The breaches that stand: those another player's breach made impossible are excused."""
    return excuse([b for found, _ in readings(contract, obs) for b in found], obs)[0]


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
        self.moved_nothing: dict[int, str] = {}  # gifts of "all" of an item the giver did not hold: not settled

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
        if wanted == 0 and not moved:
            self.moved_nothing[n] = f"{clause.giver} held no {clause.item} to give, so the gift moved nothing"
        if moved < wanted:
            return Breach(n, clause.giver, f"{clause.giver} held {held} {clause.item}, fewer than the {wanted} clause {n} gives.")
        return None

    def on_failure(self, n: int, clause: FailurePayment) -> None:
        """Paid when the deed's check finds it undone (its breaches are no breach of the contract: it was not promised)."""
        undone, _ = clause_reading(n, clause.deed, self.obs)
        player = clause.player
        if not undone:
            self.lines.append(f"Clause {n}: {player} did it ({render_clause(clause.deed).rstrip('.')}), so owes nothing.")
            return
        for payee in clause.payees:
            self.pay(n, player, payee, clause.amount, f"for not doing it: {undone[0].text.rstrip('.')}")

    def penalise(self, n: int, clause: Penalty, breaches: list[Breach]) -> None:
        broken = {(b.clause, b.player) for b in breaches if clause.clause in (None, b.clause) and b.clause != n}
        causes = defaultdict(list)  # the breach each fine punishes, named in its line
        for b in breaches:
            causes[(b.clause, b.player)].append(b.text.rstrip("."))
        for ref, player in sorted(broken):
            if clause.breakers and player not in clause.breakers:
                continue
            payees = clause.payees or tuple(p for p in self.obs.players if p != player)
            for payee in payees:
                if payee != player:
                    self.pay(n, player, payee, clause.amount,
                             f"penalty for breaking clause {ref}: {'; '.join(causes[(ref, player)])}")

    def share(self, n: int, clause: Pool | RewardSplit) -> None:
        members = [p for p in clause.players if p in self.transfers]
        totals = {p: self.obs.inventory_value(p) + self.obs.group_sharing.get(p, 0.0) + self.transfers[p] for p in members}
        if isinstance(clause, Pool):
            mean = sum(totals.values()) / len(members)
            for p in members:
                self.transfers[p] += mean - totals[p]
            self.lines.append(f"Clause {n}: {', '.join(members)} share their rewards: {number(round(mean, 6))} emeralds each.")
            return
        whole = sum(totals.values())
        weights = dict(zip(clause.players, clause.shares))
        scale = sum(weights[p] for p in members) or 1.0
        got = {p: whole * weights[p] / scale for p in members}
        for p in members:
            self.transfers[p] += got[p] - totals[p]
        split = ", ".join(f"{p} {number(round(got[p], 6))} ({number(round(weights[p] * 100, 6))}%)" for p in members)
        self.lines.append(f"Clause {n}: the total reward of {', '.join(members)} ({number(round(whole, 6))} emeralds) is split: {split}.")


def clause_scores(contract: Contract, breaches: list[Breach], inapplicable: dict[int, str] | None = None,
                  excused: list[Excuse] = ()) -> list[dict[str, object]]:
    """Per clause: kind, formal or not and why, and whether it was kept, broken (by whom), excused (every breach
    of it made impossible by another's: `excused` says by whom), settled, or not applicable (the reason in
    `not_applicable`)."""
    scores = []
    for n, clause in enumerate(contract.clauses, 1):
        broken = [b for b in breaches if b.clause == n]
        pardoned = [e for e in excused if e.breach.clause == n]
        na = (inapplicable or {}).get(n)
        if isinstance(clause, FreeText):
            status = "free text"
        elif broken:
            status = "broken"
        elif pardoned:
            status = "excused"
        elif na:
            status = "not applicable"
        else:
            status = "kept" if breakable(clause) else "settled"
        score: dict[str, object] = {
            "clause": n, "kind": clause.kind, "formal": clause.formal, "why": clause.why, "status": status,
            "broken_by": sorted({b.player for b in broken}), "breaches": [b.text for b in broken],
        }
        if status == "not applicable":
            score["not_applicable"] = na
        if pardoned:
            score["excused"] = [e.to_json() for e in pardoned]
        scores.append(score)
    return scores


def judge_formal(contract: Contract, obs: EpisodeObservables) -> Judgment:
    ledger = _Ledger(obs)
    read = readings(contract, obs)
    breaches = [b for found, _ in read for b in found]
    inapplicable = {n: na for n, (_, na) in enumerate(read, 1) if na}
    numbered = list(enumerate(contract.clauses, 1))
    for n, clause in numbered:  # transfers and gifts first, penalties next, sharing last
        for part in parts(clause):
            settled = transfer_amount(part, obs)
            if settled is not None:
                ledger.pay(n, *settled)
            elif isinstance(part, Give) and (breach := ledger.give(n, part)) is not None:
                breaches.append(breach)
            elif isinstance(part, FailurePayment):
                ledger.on_failure(n, part)
        if isinstance(clause, FreeText):
            ledger.lines.append(f"Clause {n} is free text, not judged formally ({clause.reason}).")
        elif n in inapplicable:
            ledger.lines.append(f"Clause {n} is not applicable: {inapplicable[n]}.")
    breaches, excused = excuse(breaches, obs)
    for e in excused:
        ledger.lines.append(f"Clause {e.breach.clause}: {e.text}")
    for n, why in ledger.moved_nothing.items():
        if not isinstance(contract.clauses[n - 1], Give):
            continue  # a part of a larger clause: the clause did other things
        inapplicable.setdefault(n, why)
        ledger.lines.append(f"Clause {n} is not applicable: {why}.")
    for n, clause in numbered:
        if isinstance(clause, Penalty):
            ledger.penalise(n, clause, breaches)
    for n, clause in numbered:
        if isinstance(clause, (Pool, RewardSplit)):
            ledger.share(n, clause)
    if not contract.clauses:
        ledger.lines.append("No contract: no transfers.")
    notes: dict[str, list[str]] = defaultdict(list)
    for breach in breaches:
        notes[breach.player].append(breach.text)
    for e in excused:
        notes[e.breach.player].append(f"Excused by {' and '.join(e.by)}'s breach: {e.breach.text}")
    return Judgment(
        transfers={p: v + 0.0 for p, v in ledger.transfers.items()},  # no -0.0 in reports
        critiques={p: " ".join(notes[p]) for p in obs.players},
        source="formal",
        reasoning=" ".join(ledger.lines),
        clauses=clause_scores(contract, breaches, inapplicable, excused),
    )
