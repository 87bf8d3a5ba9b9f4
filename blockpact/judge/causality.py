"""Causality in the judge: a clause left undone because another player's breach made it impossible is excused.

A breach that says what the player left undone (`Breach.lacked`: took fewer, mined fewer, never took the tool)
is excused, and names by whom, when another player's breach is a deed that left too little for it, before it
was due (a take from a chest by a player who broke the contract counts as such a deed, though no clause
forbids that take itself):
- the same thing taken or mined against the contract (`Breach.did`: beyond a quota, what another was assigned,
  what a clause rules out), with what was left of it too little for the shortfall and the deeds' count
  covering the gap: for a take, the most the chests held at any moment from that deed to the time it was
  due; for mining, the blocks the world held when it was due (an at-least quota crowded out by another's
  over-harvest);
- or, for mining, a tool taken against the contract: the block needs a tool, the player never held one, and the
  chests held none from that deed to the time it was due.
An excused breach is not fined and does not count as the player's breach; a breach that is a deed is never
excused. A clause is "excused" when every breach of it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from blockpact.judge.clause_events import Breach, Deed
from blockpact.judge.observables import EpisodeObservables

_SAME = {"mine": {"mine", "collect"}, "collect": {"mine", "collect"}, "take": {"take"}}
EPSILON = 1e-9


@dataclass(frozen=True)
class Excuse:
    breach: Breach
    causes: tuple[Breach, ...]  # the other players' breaches that made it impossible

    @property
    def by(self) -> list[str]:
        return sorted({c.player for c in self.causes})

    @property
    def text(self) -> str:
        because = "; ".join(c.text.rstrip(".") for c in self.causes)
        return (f"{self.breach.player} is excused: {self.breach.text.rstrip('.')}, made impossible by "
                f"{' and '.join(self.by)}'s breach ({because}).")

    def to_json(self) -> dict[str, object]:
        return {"player": self.breach.player, "breach": self.breach.text, "by": self.by,
                "causes": [c.text for c in self.causes], "text": self.text}


def excuse(breaches: Sequence[Breach], obs: EpisodeObservables) -> tuple[list[Breach], list[Excuse]]:
    """The breaches that stand, and the ones another player's breach made impossible (with their causes)."""
    deeds = [b for b in breaches if b.did is not None]
    deeds += _breakers_takes(breaches, obs)
    standing, excused = [], []
    for b in breaches:
        causes = _causes(b, deeds, obs) if b.lacked is not None else []
        if causes:
            excused.append(Excuse(b, tuple(causes)))
        else:
            standing.append(b)
    return standing, excused


def _causes(breach: Breach, deeds: Iterable[Breach], obs: EpisodeObservables) -> list[Breach]:
    lack = breach.lacked
    assert lack is not None
    before = [d for d in deeds if d.player != breach.player and d.did is not None and d.did.at <= lack.at + EPSILON]
    same = [d for d in before if d.did.verb in _SAME.get(lack.verb, ()) and d.did.thing == lack.thing]  # type: ignore[union-attr]
    if same and _too_little(lack, [d.did for d in same], obs):  # type: ignore[misc]
        return _distinct(same)
    tools = obs.harvest_tools.get(lack.thing or "", frozenset()) if lack.verb == "mine" else frozenset()
    if tools and not tools & obs.held.get(breach.player, set()):
        grabs = [d for d in before if d.did.verb == "take" and d.did.thing in tools]  # type: ignore[union-attr]
        if grabs and max(_in_chests(obs, tools, g.did.at, lack.at) for g in grabs) < 1:  # type: ignore[union-attr]
            return _distinct(grabs)
    return []


def _breakers_takes(breaches: Sequence[Breach], obs: EpisodeObservables) -> list[Breach]:
    """A take from a chest by a player who broke the contract (a breach that is not a part left undone) counts as
    a deed against it, though no clause forbids that take itself: the greedy player who grabs the tool the
    contract gives another, then mines with it what is assigned to that other."""
    first: dict[str, Breach] = {}
    for b in breaches:
        if b.lacked is None:
            first.setdefault(b.player, b)
    covered = {(b.player, b.did.thing) for b in breaches if b.did is not None and b.did.verb == "take"}
    out = []
    for op in obs.chest_ops:
        if op.delta < 0 and op.player in first and (op.player, op.item) not in covered:
            why = first[op.player]
            out.append(Breach(why.clause, op.player, f"{op.player} took {-op.delta} {op.item} from a chest, and broke "
                              f"clause {why.clause} ({why.text.rstrip('.')})",
                              did=Deed("take", op.item, -op.delta, op.time - obs.start_time)))
    return out


def _distinct(breaches: list[Breach]) -> list[Breach]:
    return list(dict.fromkeys(breaches))


def _too_little(lack: Deed, deeds: list[Deed], obs: EpisodeObservables) -> bool:
    """What was left fell short of the player's shortfall, and the others' deeds against the contract cover the gap:
    without them it could have been done."""
    if lack.verb == "take":
        left = _in_chests(obs, frozenset({lack.thing or ""}), min(d.at for d in deeds), lack.at)
    elif lack.thing in obs.harvest_tools:
        left = _blocks_at(obs, lack.thing, lack.at)
    else:  # an item, not a block the world has: no count of what was left
        return False
    return left < lack.count <= left + sum(d.count for d in deeds) + EPSILON


def _in_chests(obs: EpisodeObservables, items: frozenset[str], start: float, end: float) -> int:
    """The most of `items` the chests held together at any moment from just after `start` to `end` (seconds from
    the start): the state after every change up to `start`, then after each change until `end`."""
    ops = sorted((op.time - obs.start_time, op.delta) for op in obs.chest_ops if op.item in items)
    total = sum(n for held in obs.chests.values() for i, n in held.items() if i in items) - sum(d for _, d in ops)
    total += sum(d for t, d in ops if t <= start + EPSILON)
    most = total
    for t, delta in ops:
        if start + EPSILON < t <= end + EPSILON:
            total += delta
            most = max(most, total)
    return most


def _blocks_at(obs: EpisodeObservables, block: str | None, at: float) -> int:
    """How many cells held `block` at `at` seconds from the start (the world's rules' changes counted)."""
    cells = dict(obs.start_blocks)
    for t, cell, _, new in obs.block_changes:
        if t - obs.start_time <= at + EPSILON:
            cells[cell] = new
    return sum(b == block for b in cells.values())
