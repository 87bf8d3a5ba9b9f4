"""Scripted members of an institution: deterministic proposals and votes, by slot kind (labelled "scripted").

- `scripted:cooperative` proposes the quota clauses of the contract the contract search finds best on the
  simulator (contract_search.best_contract), when the contract in force lacks them, and votes for any limit;
- `scripted:greedy` proposes nothing and votes against any limit (and for anything else);
- `scripted` (keeps a contract when there is one) proposes nothing and votes for a limit, as a conditional
  cooperator: it will keep what is agreed.
A proposal without a limit (lifting one) gets the opposite votes: the cooperative ones vote no, the greedy yes.

Offices: the greedy vote against recalling a leader (a recall enforces the rules) and for themselves when they
stand, else for the candidate who earned most; the others vote to recall a leader the formal judge found in
breach, and for the candidate with the best record: fewest breaches, then most emeralds, then the first listed.
"""

from __future__ import annotations

from collections.abc import Sequence

from blockpact.agents.meeting_floor import Ballot, Choice, Floor, Motion, Office, Record, Turn
from blockpact.agents.scripted.contract_search import best_contract
from blockpact.judge.amendment import is_limit, is_quota
from blockpact.judge.clauses import Clause
from blockpact.worlds.spec.schema import WorldSpec

MEMBER_KINDS = ("scripted", "scripted:greedy", "scripted:cooperative")


__all__ = ["MEMBER_KINDS", "Ballot", "Motion", "ScriptedMember"]


class ScriptedMember:
    """One player's part at a meeting. `budget`: the simulated seconds of the search's programs (as in play)."""

    source = "scripted"

    def __init__(self, player: str, kind: str, spec: WorldSpec, budget: float | None = None) -> None:
        if kind not in MEMBER_KINDS:
            raise ValueError(f"no scripted member of kind {kind!r} (expected one of {', '.join(MEMBER_KINDS)})")
        self.player = player
        self.kind = kind
        self.spec = spec
        self.budget = budget

    async def turn(self, floor: Floor) -> Turn:
        """Its proposal (when it may propose, and none of the same clauses is open) and its vote on each open one."""
        motion = await self.propose(floor.in_force) if floor.may_propose else None
        if motion is not None and any(set(o.clauses) == set(motion.clauses) for o in floor.open):
            motion = None  # the same limit is put to the vote already
        return Turn(motion, {o.number: self.vote(o.clauses) for o in floor.open})

    async def propose(self, in_force: Sequence[Clause]) -> Motion | None:
        if self.kind != "scripted:cooperative":
            return None
        found = await best_contract(self.spec, budget=self.budget)
        if not found.best.admissible:
            return None
        quota = tuple(c for c in found.best.candidate.clauses if is_quota(c))
        if not quota or all(c in in_force for c in quota):
            return None  # nothing to limit, or the limit is in force already
        return Motion(quota, f"the quota of the best contract the search found ({found.best.candidate.name}: "
                             f"welfare {found.best.welfare:g} on the simulator, {found.none_welfare:g} without a contract)")

    def vote(self, clauses: Sequence[Clause]) -> Ballot:
        limit = any(is_limit(c) for c in clauses)
        if self.kind == "scripted:greedy":
            return Ballot("no", "a greedy player votes against any limit") if limit else \
                Ballot("yes", "no limit on what it takes")
        if limit:
            return Ballot("yes", "a limit that keeps the resource alive" if self.kind == "scripted:cooperative"
                          else "it keeps a contract once agreed, and this limit keeps the resource alive")
        return Ballot("no", "it sets no limit on what is taken")

    async def office(self, office: Office) -> Choice:
        greedy = self.kind == "scripted:greedy"
        if office.kind == "recall":
            if greedy:
                return Choice("no", "a greedy player votes against enforcing the rules")
            broken = (office.last.breaches.get(office.leader or "", ()) if office.last else ())
            return Choice("yes", f"the judge found {office.leader} broke the contract: {'; '.join(broken)}") \
                if broken else Choice("no", f"the judge found no breach by {office.leader}")
        if greedy and self.player in office.candidates:
            return Choice(self.player, "a greedy player votes for itself")
        records = office.records
        if greedy:
            best = max(office.candidates, key=lambda c: records.get(c, _NONE).reward, default=None)
            return Choice(best, "the candidate who earned most")
        best = min(office.candidates, default=None, key=lambda c: (records.get(c, _NONE).breaches,
                                                                    -records.get(c, _NONE).reward))
        if best is None:
            return Choice(None, "nobody stands")
        record = records.get(best, _NONE)
        return Choice(best, f"the best record: {record.breaches} breaches, {record.reward:g} emeralds")


_NONE = Record()
