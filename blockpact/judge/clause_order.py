"""Steps said in order ("Ivy puts 1 diamond into the cache chest, then signals Hal"): each step must be
done after the one before it. Every step is also checked on its own (clause_checks); this adds the order.

Walking the steps with a clock from the episode's start, a step with a moment it is done moves the clock
to that moment, counting only what happened from the clock on: a deposit or withdrawal of N items when
the N-th has moved, a return when the item is back, a signal when it is sent, a craft when made, an
"at least N" quota when the N-th is mined, a wait when every awaited signal has come (a signal sent
earlier counts: it is kept until read). Steps with no such moment (an assignment, an exclusion, an
"at most" quota) hold on their own and leave the clock where it is.
"""

from __future__ import annotations

import math

from blockpact.judge.clause_events import Breach, actions
from blockpact.judge.clauses import Clause, Craft, Deposit, Quota, Return, Signal, Steps, WaitFor, Withdraw
from blockpact.judge.contract_render import number, render_clause
from blockpact.judge.observables import EpisodeObservables


def _nth(times_counts: list[tuple[float, int]], after: float, count: int) -> float | None:
    """The moment the `count`-th item moved, counting from `after` on."""
    total = 0
    for t, k in sorted(times_counts):
        if t < after:
            continue
        total += k
        if total >= max(count, 1):
            return t
    return None


def done_at(step: Clause, obs: EpisodeObservables, after: float) -> float | None | bool:
    """When `step` was done, counting from `after`; None when it was not; False when it has no such moment."""
    match step:
        case Deposit(player, item, count, chest) if count is not None:
            ops = [(op.time, op.delta) for op in obs.chest_ops if op.player == player and op.item == item and op.delta > 0
                   and (not chest or obs.chest_names.get(op.chest, "").lower() == chest)]
            return _nth(ops, after, count)
        case Withdraw(player, item, count, chest) if count is not None:
            ops = [(t, k) for t, p, k in actions(obs, "take", item, chest) if p == player]
            return _nth(ops, after, count)
        case Return(player, item, chest):
            ops = [(op.time, op.delta) for op in obs.chest_ops if op.player == player and op.item == item and op.delta > 0
                   and (not chest or obs.chest_names.get(op.chest, "").lower() == chest)]
            return _nth(ops, after, 1)
        case Signal(player):
            return next((t for t, sender, _ in sorted(obs.signals) if sender == player and t >= after), None)
        case WaitFor(_, signaller):
            first = min((t for t, sender, _ in obs.signals if sender == signaller), default=math.inf)
            return None if first == math.inf else max(first, after)
        case Craft(player, item, count):
            return _nth([(t, k) for t, p, i, k in obs.craft_events if p == player and i == item], after, count)
        case Quota(player, verb, target, count, "at_least", None, chest, region, None, None):
            return _nth([(t, k) for t, p, k in actions(obs, verb, target, chest, region) if p == player], after, count)
        case Steps(parts, _):
            moments = [done_at(p, obs, after) for p in parts]
            if any(m is None for m in moments):
                return None
            timed = [m for m in moments if m is not False]
            return max(timed) if timed else False  # type: ignore[type-var]
    return False


def order_breaches(n: int, steps: Steps, obs: EpisodeObservables) -> list[Breach]:
    """A breach for the first step not done after the step before it (a step never done at all is the
    step's own breach, found by its own check)."""
    clock, before = obs.start_time, None
    for step in steps.parts:
        moment = done_at(step, obs, clock)
        if moment is False:
            continue
        if moment is None:
            if isinstance(step, WaitFor):  # the signal never came: any later step done is done without it
                index = steps.parts.index(step)
                done = next((later for later in steps.parts[index + 1:]
                             if done_at(later, obs, obs.start_time) not in (None, False)), None)
                if done is not None:
                    player = getattr(done, "player", "") or steps_player(done)
                    return [Breach(n, player, f"{player} did '{_plain(done)}' although {step.signaller}'s signal, "
                                              f"which clause {n} waits for, never came.")]
                return []
            if before is not None and done_at(step, obs, obs.start_time) not in (None, False):
                player = getattr(step, "player", "") or steps_player(step)
                return [Breach(n, player, f"{player} did '{_plain(step)}' only before '{_plain(before)}' was done "
                                          f"(at {number(clock - obs.start_time)} s), not after it as clause {n} orders.")]
            return []
        clock, before = moment, step  # type: ignore[assignment]
    return []


def steps_player(step: Clause) -> str:
    return next((getattr(p, "player", "") for p in getattr(step, "parts", ()) if getattr(p, "player", "")), "")


def _plain(step: Clause) -> str:
    return render_clause(step).rstrip(".")
