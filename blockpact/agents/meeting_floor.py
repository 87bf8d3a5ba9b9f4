"""What a member of an institution is given at its turn in a meeting, and what it answers: one shape for scripted
and LLM members, so the meeting (experiments/play/meeting.py) holds them the same way.

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
    """How the episode before the meeting ended: each player's reward, each renewable resource's stock, and who broke
    which clause of the contract in force (the formal judge's breaches, "clause N: ..."; the record a recall reads)."""

    episode: int
    rewards: Mapping[str, float]
    stock: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # "block@region" -> (at start, at end)
    breaches: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # player -> the formal judge's breaches

    @property
    def welfare(self) -> float:
        return sum(self.rewards.values())

    def to_json(self) -> dict[str, object]:
        return {"episode": self.episode, "welfare": self.welfare, "rewards": dict(self.rewards),
                "stock": {k: {"start": a, "end": b} for k, (a, b) in sorted(self.stock.items())},
                "breaches": {p: list(b) for p, b in sorted(self.breaches.items())}}


@dataclass(frozen=True)
class Floor:
    institution: InstitutionSpec
    in_force: tuple[Clause, ...]  # the contract as amended so far at this meeting
    open: tuple[OpenProposal, ...]  # the proposals this member votes on at this turn
    may_propose: bool  # the member may still propose at this turn
    for_episode: int
    last: LastEpisode | None = None
    leader: str | None = None  # the leader in office (elected, or the institution's fixed one)
    said: tuple[tuple[str, str], ...] = ()  # (player, message): what the members said at this meeting before this turn


@dataclass(frozen=True)
class Record:
    """A player's record in the seed so far, as an election's voters weigh it."""

    breaches: int = 0  # clauses of the contract in force the formal judge found it broke
    reward: float = 0.0  # emeralds, over the episodes played
    led: int = 0  # episodes it led


@dataclass(frozen=True)
class Office:
    """A question of office a meeting puts to every member before its proposals: a recall vote on the leader (the
    formal judge found it in breach), or an election of the leader for the next term."""

    kind: str  # "recall" | "election"
    institution: InstitutionSpec
    leader: str | None  # the leader in office (the one a recall is about)
    candidates: tuple[str, ...]  # who stands (an election)
    records: Mapping[str, Record]
    reason: str  # why it is held, in words
    for_episode: int
    last: LastEpisode | None = None


@dataclass(frozen=True)
class Choice:
    """A member's answer to an Office: a recall's "yes" | "no" | "abstain", or an election's candidate (None:
    abstains). The other fields as a Turn's."""

    choice: str | None
    reason: str
    raw: str | None = None
    attempts: int = 0
    problems: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class Turn:
    motion: Motion | None
    votes: Mapping[int, Ballot]  # proposal number -> ballot; a number left out is an abstention
    raw: str | None = None  # the reply used (LLM members)
    attempts: int = 0
    problems: tuple[str, ...] = ()  # why each unusable reply was not usable
    replies: tuple[str, ...] = ()
    error: str | None = None  # no usable reply: counted as no proposal and abstaining
    message: str | None = None  # what it says to the other members (every later turn of the meeting is shown it)


class Member(Protocol):
    source: str  # "scripted" | "llm"

    async def turn(self, floor: Floor) -> Turn: ...

    async def office(self, office: Office) -> Choice: ...
