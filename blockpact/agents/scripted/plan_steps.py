"""The parts of a player's plan: steps with dependencies (what the cooperative program carries out), quota limits,
and the reading of a clause's target and share."""

from __future__ import annotations

from dataclasses import dataclass, field

from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.contract import Quota, TotalQuota


@dataclass
class Step:
    id: str
    op: str  # wait_signal | wait_items | take | take_tool | craft | smelt | place | mine | deposit | signal
    what: str  # what it does, in words (the plan, and the chat line when it is given up)
    after: list[str] = field(default_factory=list)
    args: dict[str, object] = field(default_factory=dict)
    filler: bool = False  # done only when nothing the contract asks is ready

    def js(self) -> dict[str, object]:
        return {"id": self.id, "op": self.op, "what": self.what, "after": self.after, "filler": self.filler, **self.args}


@dataclass
class Limit:
    count: int
    period: float | None = None
    start: float | None = None  # seconds from the episode's start the limit is in force from (None: 0)
    until: float | None = None  # ... and until (None: the end)


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # clauses it cannot keep, and why

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

    def find(self, step_id: str) -> Step | None:
        return next((s for s in self.steps if s.id == step_id), None)


def blocks_of(verb: str, target: str, facts: WorldFacts) -> list[str]:
    if verb == "mine":
        return [target] if facts.on_map(target) or target in facts.renewing_blocks else []
    if verb == "collect":
        return facts.blocks_dropping(target)
    return []


def quota_share(clause: Quota | TotalQuota, player: str) -> int | None:
    """The player's part of a quota: its own count, or its share of a total (the remainder to the first by name)."""
    if isinstance(clause, Quota):
        return clause.count if clause.player == player else None
    if player not in clause.players:
        return None
    members = sorted(clause.players)
    base, extra = divmod(clause.count, len(members))
    return base + (members.index(player) < extra)
