"""What a member of an institution is given at its turn in a meeting, and what it answers: one shape for scripted
and LLM members, so the meeting (experiments/meeting.py) holds them the same way.

A turn shows the rules and the contract in force, the proposals open for this member's vote, whether it may
propose, and how the last episode ended; the member answers with a proposal or none and a ballot on each open
proposal. An LLM member that gave no usable reply says why in `error` (with its replies): it proposed nothing and
abstained on every open proposal, and the meeting records that as the member's failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from blockpact.judge.clauses import Clause
from blockpact.worlds.spec.institution import InstitutionSpec


@dataclass(frozen=True)
class Motion:
    clauses: tuple[Clause, ...]
    reason: str


@dataclass(frozen=True)
class Ballot:
    vote: str  # "yes" | "no" | "abstain"
    reason: str


@dataclass(frozen=True)
class OpenProposal:
    number: int  # within the meeting: 1, 2, ...
    player: str
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class LastEpisode:
    """How the episode before the meeting ended: each player's reward, and each renewable resource's stock."""

    episode: int
    rewards: Mapping[str, float]
    stock: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # "block@region" -> (at start, at end)

    @property
    def welfare(self) -> float:
        return sum(self.rewards.values())

    def to_json(self) -> dict[str, object]:
        return {"episode": self.episode, "welfare": self.welfare, "rewards": dict(self.rewards),
                "stock": {k: {"start": a, "end": b} for k, (a, b) in sorted(self.stock.items())}}


@dataclass(frozen=True)
class Floor:
    institution: InstitutionSpec
    in_force: tuple[Clause, ...]  # the contract as amended so far at this meeting
    open: tuple[OpenProposal, ...]  # the proposals this member votes on at this turn
    may_propose: bool  # the member may still propose at this turn
    for_episode: int
    last: LastEpisode | None = None


@dataclass(frozen=True)
class Turn:
    motion: Motion | None
    votes: Mapping[int, Ballot]  # proposal number -> ballot; a number left out is an abstention
    raw: str | None = None  # the reply used (LLM members)
    attempts: int = 0
    problems: tuple[str, ...] = ()  # why each unusable reply was not usable
    replies: tuple[str, ...] = ()
    error: str | None = None  # no usable reply: counted as no proposal and abstaining


class Member(Protocol):
    source: str  # "scripted" | "llm"

    async def turn(self, floor: Floor) -> Turn: ...
