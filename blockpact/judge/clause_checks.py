"""Which players broke which clause, read from an episode's events (the formal judge's evidence).

One function per clause kind; each reports `Breach`es through `say`, and returns why the clause had
nothing to apply to (its window lay past the episode's end, its condition never held, a return of
something never taken), or None. Clauses the judge settles itself (transfers, gifts, reward sharing,
penalties) cannot be broken and report none. Steps said in order ("A, then B") are checked in
`clause_order`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

from blockpact.judge.clause_events import Breach, Deed, actions, not_applicable, span, window_text, within
from blockpact.judge.clause_order import order_breaches
from blockpact.judge.clauses import (
    Assignment, Clause, Craft, Deposit, Exclusion, ForEach, MineOnly, Quota, RegionLimit, Return, Signal, Steps, TotalQuota,
    TurnTaking, WaitFor, Window, Withdraw, gated_waits, parts,
)
from blockpact.judge.contract_render import number
from blockpact.judge.observables import EpisodeObservables

_DID = {"mine": "mined", "collect": "collected", "take": "took"}


class Say(Protocol):
    """Reports a breach by `player`; `did`/`lacked` say what it is about, for the judge's causality."""

    def __call__(self, player: str, text: str, did: Deed | None = None, lacked: Deed | None = None) -> None: ...


def _period_span(obs: EpisodeObservables, k: int, period: float | None, window: Window | None) -> tuple[float, float]:
    """Seconds from the start at which the k-th period of a window begins and ends (cut at the episode's end)."""
    lo, hi = span(obs, window)
    if not period:
        return lo, hi
    return lo + k * period, min(lo + (k + 1) * period, hi)


def _windows(obs: EpisodeObservables, events: Iterable[tuple[float, str, int]], period: float | None,
             players: Iterable[str], *, full_only: bool, window: Window | None = None) -> dict[int, Counter[str]]:
    """Counts per player in each period from the window's start (one window without a period). Every
    window appears, an empty one with zeros; `full_only` leaves out a last window the end cut short."""
    players = list(players)
    lo, hi = span(obs, window)
    length = max(hi - lo, 0.0)
    if period:
        full = int(length / period + 1e-9)
        count = full if full_only else max(full + (length - full * period > 1e-9), 1)
    else:
        count = 1
    windows: dict[int, Counter[str]] = {k: Counter({p: 0 for p in players}) for k in range(count)}
    for t, p, n in events:
        k = int((t - obs.start_time - lo) // period) if period else 0
        if k in windows:
            windows[k][p] += n
        elif not full_only:
            windows[k] = Counter({q: 0 for q in players}) + Counter({p: n})
    return windows


def _when(k: int, period: float | None, window: Window | None) -> str:
    start = window.start if window is not None else 0.0
    if period:
        return f" in seconds {number(start + k * period)}-{number(start + (k + 1) * period)}"
    return window_text(window)


def _where(region: str | None) -> str:
    return f" in the {region}" if region else ""


def _quota(n: int, c: Quota, obs: EpisodeObservables, say: Say) -> str | None:
    na = not_applicable(obs, c.window, c.condition)
    if na:
        return na
    events = [(t, p, k) for t, p, k in actions(obs, c.verb, c.target, c.chest, c.region) if p == c.player]
    events = within(obs, events, c.window, c.condition)
    windows = _windows(obs, events, c.period, [c.player], full_only=c.bound == "at_least", window=c.window)
    if not windows:
        return f"the episode (or its window) held no full period of {number(c.period or 0)} s"
    for k, counts in sorted(windows.items()):
        got, what = counts[c.player], f"{c.target}{_where(c.region)}{_when(k, c.period, c.window)}"
        begin, due = _period_span(obs, k, c.period, c.window)
        if c.bound == "at_most" and got > c.count:
            say(c.player, f"{c.player} {_DID[c.verb]} {got} {what}, more than the {c.count} clause {n} allows.",
                did=Deed(c.verb, c.target, got - c.count, begin))
        elif c.bound == "at_least" and got < c.count:
            say(c.player, f"{c.player} {_DID[c.verb]} {got} {what}, fewer than the {c.count} clause {n} asks.",
                lacked=Deed(c.verb, c.target, c.count - got, due))
    return None


def _total(n: int, c: TotalQuota, obs: EpisodeObservables, say: Say) -> str | None:
    na = not_applicable(obs, c.window, c.condition)
    if na:
        return na
    members = set(c.players)
    events = within(obs, [e for e in actions(obs, c.verb, c.target, None, c.region) if e[1] in members], c.window, c.condition)
    windows = _windows(obs, events, c.period, c.players, full_only=c.bound == "at_least", window=c.window)
    share = c.count / len(c.players)
    for k, counts in sorted(windows.items()):
        total = sum(counts.values())
        over = c.bound == "at_most" and total > c.count
        under = c.bound == "at_least" and total < c.count
        if not (over or under):
            continue
        word = "more than" if over else "fewer than"
        begin, due = _period_span(obs, k, c.period, c.window)
        for p in c.players:  # the members beyond (or short of) an equal share broke it
            if (over and counts[p] > share) or (under and counts[p] < share):
                deed = Deed(c.verb, c.target, abs(counts[p] - share), begin if over else due)
                say(p, f"Together {_DID[c.verb]} {total} {c.target}{_where(c.region)}{_when(k, c.period, c.window)}, {word} "
                       f"the {c.count} of clause {n}; {p} {_DID[c.verb]} {counts[p]} (an equal share is {number(share)}).",
                    did=deed if over else None, lacked=None if over else deed)
    return None


def _assignment(n: int, c: Assignment, obs: EpisodeObservables, say: Say) -> str | None:
    owner, target = c.player, c.target
    na = not_applicable(obs, c.window, c.condition)
    if na:
        return na
    events = within(obs, actions(obs, c.verb, target, None, c.region), c.window, c.condition)
    first = {p: t - obs.start_time for t, p, _ in reversed(events)}  # when each player first did it
    due = span(obs, c.window)[1]
    if c.verb == "take":
        takers = list(dict.fromkeys(p for _, p, _ in events))
        for other in takers:
            if other != owner:
                say(other, f"{other} took the {target} that clause {n} gives to {owner}.",
                    did=Deed("take", target, sum(k for _, p, k in events if p == other), first[other]))
        if owner not in takers:
            say(owner, f"{owner} never took the {target} (clause {n}).", lacked=Deed("take", target, 1, due))
        return None
    did = _DID[c.verb]
    where = f"{_where(c.region)}{window_text(c.window)}"
    by = Counter()
    for _, p, k in events:
        by[p] += k
    for other in sorted(by):
        if other != owner and by[other]:
            say(other, f"{other} {did} {by[other]} {target}{where} assigned to {owner} (clause {n}).",
                did=Deed(c.verb, target, by[other], first[other]))
    if not by[owner]:
        say(owner, f"{owner} {did} no {target}{where} although clause {n} assigns it to him.",
            lacked=Deed(c.verb, target, 1, due))
    return None


def _exclusion(n: int, c: Exclusion, obs: EpisodeObservables, say: Say) -> str | None:
    na = not_applicable(obs, c.window, c.condition)
    if na:
        return na
    events = within(obs, [e for e in actions(obs, c.verb, c.target, c.chest, c.region) if e[1] == c.player], c.window, c.condition)
    signalled = max((min((t for t, sender, _ in obs.signals if sender == s), default=math.inf)
                     for s in c.until_signals_from), default=math.inf)
    events = [e for e in events if e[0] < signalled]  # with no senders: every act (signalled is then infinite)
    done = sum(k for _, _, k in events)
    if done:
        what = c.target or ("items" if c.verb == "take" else "blocks")
        when = f" while {c.condition}" if c.condition else ""
        if c.until_signals_from:
            said = " and ".join(f"{s}'s" for s in c.until_signals_from)
            when += f" before {said} signal" if signalled < math.inf else f" with no signal from {' and '.join(c.until_signals_from)}"
        say(c.player, f"{c.player} {_DID[c.verb]} {done} {what}{_where(c.region)}{window_text(c.window)}{when}, "
                      f"which clause {n} rules out.", did=Deed(c.verb, c.target, done, min(events)[0] - obs.start_time))
    return None


def _region_limit(n: int, c: RegionLimit, obs: EpisodeObservables, say: Say) -> str | None:
    lo, hi = span(obs, c.window)
    box = obs.regions.get(c.region)
    outside = [(t, b, cell) for t, p, b, cell in obs.dig_cells if p == c.player and (c.target is None or b == c.target)
               and lo <= t - obs.start_time < hi and (box is None or not box.contains(cell))]
    if outside:
        t, block, cell = outside[0]
        say(c.player, f"{c.player} mined {len(outside)} {c.target or 'blocks'} outside the {c.region} (the first, {block} "
                      f"at {list(cell)}, at {number(t - obs.start_time)} s), which clause {n} rules out.")
    return None


def _mine_only(n: int, c: MineOnly, obs: EpisodeObservables, say: Say) -> str | None:
    na = not_applicable(obs, c.window, None)
    if na:
        return na
    lo, hi = span(obs, c.window)
    other = [(t, b) for t, p, b in obs.digs if p == c.player and b not in c.blocks and lo <= t - obs.start_time < hi]
    if other:
        t, block = other[0]
        say(c.player, f"{c.player} mined {len(other)} blocks other than {' and '.join(c.blocks)} (the first, {block}, at "
                      f"{number(t - obs.start_time)} s){window_text(c.window)}, which clause {n} rules out.")
    return None


def _before(obs: EpisodeObservables, by: float | None):
    """Whether a chest operation at time t counts for a clause with deadline `by` (seconds from the start)."""
    return lambda t: by is None or t - obs.start_time <= by + 1e-9


def _by(by: float | None) -> str:
    return "" if by is None else f" by {number(by)} s"


def _turn(n: int, c: TurnTaking, obs: EpisodeObservables, say: Say) -> str | None:
    first, item, then = c.first, c.item, c.then
    ops = [op for op in obs.chest_ops if op.item == item]
    took = next((i for i, op in enumerate(ops) if op.player == first and op.delta < 0), None)
    returned = next((i for i, op in enumerate(ops) if took is not None and i > took and op.player == first and op.delta > 0
                     and _in_chest(obs, c.chest, op.chest)), None)
    then_took = next((i for i, op in enumerate(ops) if op.player == then and op.delta < 0), None)
    if then_took is not None and (returned is None or then_took < returned):
        say(then, f"{then} took the {item} before {first} had used and returned it (clause {n}).",
            did=Deed("take", item, -ops[then_took].delta, ops[then_took].time - obs.start_time))
    if took is None:
        say(first, f"{first} did not take the {item} first (clause {n}).",
            lacked=Deed("take", item, 1, span(obs, None)[1]))
    elif returned is None:
        say(first, f"{first} did not return the {item} to {f'the {c.chest} chest' if c.chest else 'the chest'} (clause {n}).")
    elif c.signal:
        returned_at = ops[returned].time
        signalled = [t for t, sender, _ in obs.signals if sender == first and t >= returned_at]
        if not signalled:
            say(first, f"{first} returned the {item} but never signalled {then} (clause {n}).")
        elif then_took is not None and then_took > returned and ops[then_took].time < signalled[0]:
            say(then, f"{then} took the {item} without waiting for {first}'s signal (clause {n}).")
    return None


def _in_chest(obs: EpisodeObservables, chest: str, op_chest: str) -> bool:
    return not chest or obs.chest_names.get(op_chest, "").lower() == chest


def _deposit(n: int, c: Deposit, obs: EpisodeObservables, say: Say) -> str | None:
    counts = _before(obs, c.by)
    ops = [op for op in obs.chest_ops if op.player == c.player and op.item == c.item and _in_chest(obs, c.chest, op.chest)
           and counts(op.time)]
    net = sum(op.delta for op in ops)
    where = f"the {c.chest} chest" if c.chest else "a chest"
    if c.count is None:
        left = obs.inventories.get(c.player, {}).get(c.item, 0)
        if left:
            say(c.player, f"{c.player} kept {left} {c.item} instead of depositing all into {where} (clause {n}).")
        elif not ops:
            return f"{c.player} never held any {c.item} to deposit"
    elif net < c.count:
        say(c.player, f"{c.player} deposited {max(net, 0)} {c.item} into {where}{_by(c.by)}, fewer than the {c.count} of clause {n}.")
    return None


def _withdraw(n: int, c: Withdraw, obs: EpisodeObservables, say: Say) -> str | None:
    counts = _before(obs, c.by)
    took = sum(-op.delta for op in obs.chest_ops if op.player == c.player and op.item == c.item and op.delta < 0
               and _in_chest(obs, c.chest, op.chest) and counts(op.time))
    where = f"the {c.chest} chest" if c.chest else "a chest"
    if c.count is None:
        left = sum(items.get(c.item, 0) for pos, items in obs.chests.items() if _in_chest(obs, c.chest, pos))
        if left:
            say(c.player, f"{c.player} left {left} {c.item} in {where} instead of taking all (clause {n}).")
    elif took < c.count:
        say(c.player, f"{c.player} took {took} {c.item} from {where}{_by(c.by)}, fewer than the {c.count} of clause {n}.",
            lacked=Deed("take", c.item, c.count - took, span(obs, None)[1]))
    return None


def _return(n: int, c: Return, obs: EpisodeObservables, say: Say) -> str | None:
    ops = [op for op in obs.chest_ops if op.player == c.player and op.item == c.item]
    taken = sum(-op.delta for op in ops if op.delta < 0)
    if not taken:
        return f"{c.player} never took a {c.item}, so there was nothing to return"
    counts = _before(obs, c.by)
    back = sum(op.delta for op in ops if op.delta > 0 and counts(op.time)
               and (_in_chest(obs, c.chest, op.chest) if c.chest else any(o.chest == op.chest and o.delta < 0 for o in ops)))
    if back < taken:
        where = f"the {c.chest} chest" if c.chest else "the chest it came from"
        say(c.player, f"{c.player} took {taken} {c.item} and put {max(back, 0)} back into {where}{_by(c.by)} (clause {n}).")
    return None


def _craft(n: int, c: Craft, obs: EpisodeObservables, say: Say) -> str | None:
    counts = _before(obs, c.by)
    made = sum(k for t, p, i, k in obs.craft_events if p == c.player and i == c.item and counts(t))
    if made < c.count:
        say(c.player, f"{c.player} crafted {made} {c.item}{_by(c.by)}, fewer than the {c.count} of clause {n}.")
    return None


def _wait(n: int, c: WaitFor, obs: EpisodeObservables, say: Say) -> str | None:
    signalled = min((t for t, sender, _ in obs.signals if sender == c.signaller), default=math.inf)
    early = [(t, what) for t, p, what in obs.acts if p == c.player and t < signalled]
    if early:
        t, what = min(early)
        before = f"{c.signaller}'s signal" if signalled < math.inf else f"any signal from {c.signaller}"
        say(c.player, f"{c.player} acted ({what} at {number(t - obs.start_time)} s) before {before} (clause {n}).")
    return None


def _signal(n: int, c: Signal, obs: EpisodeObservables, say: Say) -> str | None:
    sent = sorted(t for t, sender, _ in obs.signals if sender == c.player)
    if not sent:
        say(c.player, f"{c.player} never sent the signal of clause {n}.")
    elif not _before(obs, c.by)(sent[0]):
        say(c.player, f"{c.player} sent the signal of clause {n} first at {number(sent[0] - obs.start_time)} s, "
                      f"after its deadline of {number(c.by or 0)} s.")
    return None


_CHECKS: dict[type, Callable[..., str | None]] = {
    Assignment: _assignment, Exclusion: _exclusion, RegionLimit: _region_limit, MineOnly: _mine_only, TurnTaking: _turn, Quota: _quota,
    TotalQuota: _total, Deposit: _deposit, Withdraw: _withdraw, Return: _return, Craft: _craft, WaitFor: _wait,
    Signal: _signal,
}


def clause_reading(n: int, clause: Clause, obs: EpisodeObservables) -> tuple[list[Breach], str | None]:
    """Every breach of clause number `n` the events show, and, when it had nothing to apply to in this
    episode (every part of it), why (the clause is then "not applicable", neither kept nor broken)."""
    found: list[Breach] = []
    reasons: list[str | None] = []
    gating = [wait for wait, _ in gated_waits(clause)]  # checked as steps of their sequence (clause_order)
    for part in parts(clause):
        if any(part is wait for wait in gating):
            continue
        check = _CHECKS.get(type(part))
        if check is not None:
            reasons.append(check(n, part, obs, lambda player, text, did=None, lacked=None:
                                 found.append(Breach(n, player, text, did, lacked))))
    for steps in _ordered(clause):
        found.extend(order_breaches(n, steps, obs))
    na = None
    if reasons and all(reasons) and not found:
        na = "; ".join(dict.fromkeys(r for r in reasons if r))
    return found, na


def _ordered(clause: Clause) -> list[Steps]:
    if isinstance(clause, Steps):
        return ([clause] if clause.ordered else []) + [s for p in clause.parts for s in _ordered(p)]
    if isinstance(clause, ForEach):
        return [s for p in clause.parts for s in _ordered(p)]
    return []


def clause_breaches(n: int, clause: Clause, obs: EpisodeObservables) -> list[Breach]:
    """Every breach of clause number `n` the events show (none for clauses the judge settles)."""
    return clause_reading(n, clause, obs)[0]


def breakable(clause: Clause) -> bool:
    """Whether players can break the clause (else the judge settles it, or it is free text)."""
    return any(type(p) in _CHECKS for p in parts(clause))
