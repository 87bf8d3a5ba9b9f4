"""Which players broke which clause, read from an episode's events (the formal judge's evidence).

One function per clause kind; each reports `Breach`es. Clauses the judge settles itself (transfers,
gifts, reward sharing, penalties) cannot be broken and report none.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from blockpact.judge.clauses import (
    Assignment,
    Clause,
    Craft,
    Deposit,
    ForEach,
    Quota,
    Signal,
    TotalQuota,
    TurnTaking,
    WaitFor,
)
from blockpact.judge.contract import number
from blockpact.judge.observables import EpisodeObservables

_DID = {"mine": "mined", "collect": "collected", "take": "took"}


@dataclass(frozen=True)
class Breach:
    clause: int  # 1-based number in the contract
    player: str
    text: str


Say = Callable[[str, str], None]


def _events(obs: EpisodeObservables, verb: str, target: str, chest: str | None = None) -> list[tuple[float, str, int]]:
    """(time, player, count) of every `verb` of `target`: blocks dug, items collected, items taken from a chest."""
    if verb == "mine":
        return [(t, p, 1) for t, p, b in obs.digs if b == target]
    if verb == "collect":
        return [(t, p, n) for t, p, i, n in obs.gains if i == target]
    return [
        (op.time, op.player, -op.delta) for op in obs.chest_ops
        if op.item == target and op.delta < 0 and (not chest or obs.chest_names.get(op.chest, "").lower() == chest)
    ]


def _windows(obs: EpisodeObservables, events: Iterable[tuple[float, str, int]], period: float | None,
             players: Iterable[str], *, full_only: bool) -> dict[int, Counter[str]]:
    """Counts per player in each period from the episode's start (one window without a period). Every
    window appears, an empty one with zeros; `full_only` leaves out a last window the end cut short."""
    players = list(players)
    span = max(obs.end_time - obs.start_time, 0.0)
    if period:
        full = int(span / period + 1e-9)
        count = full if full_only else max(full + (span - full * period > 1e-9), 1)
    else:
        count = 1
    windows: dict[int, Counter[str]] = {k: Counter({p: 0 for p in players}) for k in range(count)}
    for t, p, n in events:
        k = int((t - obs.start_time) // period) if period else 0
        if k in windows:
            windows[k][p] += n
        elif not full_only:
            windows[k] = Counter({q: 0 for q in players}) + Counter({p: n})
    return windows


def _when(k: int, period: float | None) -> str:
    return f" in seconds {number(k * period)}-{number((k + 1) * period)}" if period else ""


def _quota(n: int, c: Quota, obs: EpisodeObservables, say: Say) -> None:
    events = ((t, p, k) for t, p, k in _events(obs, c.verb, c.target, c.chest) if p == c.player)
    windows = _windows(obs, events, c.period, [c.player], full_only=c.bound == "at_least")
    for k, counts in sorted(windows.items()):
        got = counts[c.player]
        if c.bound == "at_most" and got > c.count:
            say(c.player, f"{c.player} {_DID[c.verb]} {got} {c.target}{_when(k, c.period)}, more than the {c.count} clause {n} allows.")
        elif c.bound == "at_least" and got < c.count:
            say(c.player, f"{c.player} {_DID[c.verb]} {got} {c.target}{_when(k, c.period)}, fewer than the {c.count} clause {n} asks.")


def _total(n: int, c: TotalQuota, obs: EpisodeObservables, say: Say) -> None:
    members = set(c.players)
    events = ((t, p, k) for t, p, k in _events(obs, c.verb, c.target) if p in members)
    windows = _windows(obs, events, c.period, c.players, full_only=c.bound == "at_least")
    share = c.count / len(c.players)
    for k, counts in sorted(windows.items()):
        total = sum(counts.values())
        over = c.bound == "at_most" and total > c.count
        under = c.bound == "at_least" and total < c.count
        if not (over or under):
            continue
        word = "more than" if over else "fewer than"
        for p in c.players:  # the members beyond (or short of) an equal share broke it
            if (over and counts[p] > share) or (under and counts[p] < share):
                say(p, f"Together {_DID[c.verb]} {total} {c.target}{_when(k, c.period)}, {word} the {c.count} of clause {n}; "
                       f"{p} {_DID[c.verb]} {counts[p]} (an equal share is {number(share)}).")


def _assignment(n: int, c: Assignment, obs: EpisodeObservables, say: Say) -> None:
    owner, target = c.player, c.target
    counts = {"mine": obs.mined, "collect": obs.collected}.get(c.verb)
    if counts is not None:
        did = _DID[c.verb]
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


def _turn(n: int, c: TurnTaking, obs: EpisodeObservables, say: Say) -> None:
    first, item, then = c.first, c.item, c.then
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
    elif c.signal:
        returned_at = ops[returned].time
        signalled = [t for t, sender, _ in obs.signals if sender == first and t >= returned_at]
        if not signalled:
            say(first, f"{first} returned the {item} but never signalled {then} (clause {n}).")
        elif then_took is not None and then_took > returned and ops[then_took].time < signalled[0]:
            say(then, f"{then} took the {item} without waiting for {first}'s signal (clause {n}).")


def _deposit(n: int, c: Deposit, obs: EpisodeObservables, say: Say) -> None:
    ops = [op for op in obs.chest_ops if op.player == c.player and op.item == c.item
           and (not c.chest or obs.chest_names.get(op.chest, "").lower() == c.chest)]
    net = sum(op.delta for op in ops)
    where = f"the {c.chest} chest" if c.chest else "a chest"
    if c.count is None:
        left = obs.inventories.get(c.player, {}).get(c.item, 0)
        if left:
            say(c.player, f"{c.player} kept {left} {c.item} instead of depositing all into {where} (clause {n}).")
    elif net < c.count:
        say(c.player, f"{c.player} deposited {max(net, 0)} {c.item} into {where}, fewer than the {c.count} of clause {n}.")


def _craft(n: int, c: Craft, obs: EpisodeObservables, say: Say) -> None:
    made = obs.crafted.get(c.player, {}).get(c.item, 0)
    if made < c.count:
        say(c.player, f"{c.player} crafted {made} {c.item}, fewer than the {c.count} of clause {n}.")


def _wait(n: int, c: WaitFor, obs: EpisodeObservables, say: Say) -> None:
    signalled = min((t for t, sender, _ in obs.signals if sender == c.signaller), default=math.inf)
    early = [(t, what) for t, p, what in obs.acts if p == c.player and t < signalled]
    if early:
        t, what = min(early)
        before = f"{c.signaller}'s signal" if signalled < math.inf else f"any signal from {c.signaller}"
        say(c.player, f"{c.player} acted ({what} at {number(t - obs.start_time)} s) before {before} (clause {n}).")


def _signal(n: int, c: Signal, obs: EpisodeObservables, say: Say) -> None:
    if not any(sender == c.player for _, sender, _ in obs.signals):
        say(c.player, f"{c.player} never sent the signal of clause {n}.")


_CHECKS: dict[type, Callable] = {
    Assignment: _assignment, TurnTaking: _turn, Quota: _quota, TotalQuota: _total, Deposit: _deposit,
    Craft: _craft, WaitFor: _wait, Signal: _signal,
}


def clause_breaches(n: int, clause: Clause, obs: EpisodeObservables) -> list[Breach]:
    """Every breach of clause number `n` the events show (none for clauses the judge settles)."""
    found: list[Breach] = []
    for part in clause.parts if isinstance(clause, ForEach) else (clause,):
        check = _CHECKS.get(type(part))
        if check is not None:
            check(n, part, obs, lambda player, text: found.append(Breach(n, player, text)))
    return found


def breakable(clause: Clause) -> bool:
    """Whether players can break the clause (else the judge settles it, or it is free text)."""
    parts = clause.parts if isinstance(clause, ForEach) else (clause,)
    return any(type(p) in _CHECKS for p in parts)
