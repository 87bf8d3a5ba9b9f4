"""The formal judge: settles the parsed transfer clauses exactly and critiques what the events show.

Readings (documented choices where the paper leaves room):
- a proportional transfer ("50% of the value of his raw_iron") is a share of what the payer's final
  raw_iron is worth to the payer;
- a per-unit transfer ("for each red_mushroom collected") counts the payer's collected items;
- transfers are not capped: emerald balances may go negative;
- clauses with no explicit transfer move no emeralds; free-text clauses are left to the LLM judge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from blockpact.judge.clauses import (
    Assignment,
    Clause,
    FixedTransfer,
    FreeText,
    PerUnitTransfer,
    ProportionalTransfer,
    TurnTaking,
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


def _assignment_critiques(n: int, clause: Assignment, obs: EpisodeObservables, say: Callable[[str, str], None]) -> None:
    counts, did = {"mine": (obs.mined, "mined"), "collect": (obs.collected, "collected")}.get(clause.verb, (None, ""))
    owner, target = clause.player, clause.target
    if counts is not None:
        for other in obs.players:
            taken = counts.get(other, {}).get(target, 0)
            if other != owner and taken:
                say(other, f"{other} {did} {taken} {target} assigned to {owner} (clause {n}).")
        if not counts.get(owner, {}).get(target, 0):
            say(owner, f"{owner} {did} no {target} although clause {n} assigns it to him.")
        return
    takers = [op.player for op in obs.chest_ops if op.item == target and op.delta < 0]
    for other in dict.fromkeys(takers):
        if other != owner:
            say(other, f"{other} took the {target} that clause {n} gives to {owner}.")
    if owner not in takers:
        say(owner, f"{owner} never took the {target} (clause {n}).")


def _turn_critiques(n: int, clause: TurnTaking, obs: EpisodeObservables, say: Callable[[str, str], None]) -> None:
    first, item, then = clause.first, clause.item, clause.then
    ops = [op for op in obs.chest_ops if op.item == item]
    took = next((i for i, op in enumerate(ops) if op.player == first and op.delta < 0), None)
    returned = next((i for i, op in enumerate(ops) if took is not None and i > took and op.player == first and op.delta > 0), None)
    then_took = next((i for i, op in enumerate(ops) if op.player == then and op.delta < 0), None)
    if then_took is not None and (returned is None or then_took < returned):
        say(then, f"{then} took the {item} before {first} had used and returned it (clause {n}).")
    if took is None:
        say(first, f"{first} did not take the {item} first (clause {n}).")
    elif returned is None:
        say(first, f"{first} did not return the {item} to the chest (clause {n}).")
    elif clause.signal:
        returned_at = ops[returned].time
        signalled = [t for t, sender, _ in obs.signals if sender == first and t >= returned_at]
        if not signalled:
            say(first, f"{first} returned the {item} but never signalled {then} (clause {n}).")
        elif then_took is not None and then_took > returned and ops[then_took].time < signalled[0]:
            say(then, f"{then} took the {item} without waiting for {first}'s signal (clause {n}).")


def contract_critiques(contract: Contract, obs: EpisodeObservables) -> dict[str, str]:
    """Per player, the assignment and turn-taking violations the events show ("" when none)."""
    notes: dict[str, list[str]] = defaultdict(list)

    def say(player: str, text: str) -> None:
        notes[player].append(text)

    for n, clause in enumerate(contract.clauses, 1):
        if isinstance(clause, Assignment):
            _assignment_critiques(n, clause, obs, say)
        elif isinstance(clause, TurnTaking):
            _turn_critiques(n, clause, obs, say)
    return {p: " ".join(notes[p]) for p in obs.players}


def judge_formal(contract: Contract, obs: EpisodeObservables) -> Judgment:
    transfers = no_transfers(obs.players)
    lines: list[str] = []
    for n, clause in enumerate(contract.clauses, 1):
        settled = transfer_amount(clause, obs)
        if settled is not None:
            payer, payee, amount, how = settled
            transfers[payer] -= amount
            transfers[payee] += amount
            lines.append(f"Clause {n}: {payer} pays {payee} {number(amount)} emeralds ({how}).")
        elif isinstance(clause, FreeText):
            lines.append(f"Clause {n} is free text, not judged formally ({clause.reason}).")
    if not contract.clauses:
        lines.append("No contract: no transfers.")
    return Judgment(
        transfers={p: v + 0.0 for p, v in transfers.items()},  # no -0.0 in reports
        critiques=contract_critiques(contract, obs),
        source="formal",
        reasoning=" ".join(lines),
    )
