"""Leaders by election: at a meeting of an institution with `elect`, before any proposal, a recall vote on a leader
the formal judge found in breach of the contract in force in the episode before, then (when the seat is empty or
the term is over) an election of the leader for the next term. The leader is the only proposer under
`propose = "leader"`. Everything is an event (`recall`, `recall_vote`, `recall_result`, `election`, `ballot`,
`election_result`: EVENTS.md), so metrics read the leaders and their terms back from the log.

Each seed keeps its own office: its leader, when the term began, and each player's record in the seed so far (the
formal judge's breaches, the emeralds earned, the episodes led), which the voters weigh.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from blockpact.agents.meeting_floor import Choice, LastEpisode, Member, Office, Record
from blockpact.experiments.plan.institution import InstitutionSpec
from blockpact.experiments.play.institution_vote import count_ballots, tally
from blockpact.experiments.log.run_events import Coords, EventWriter


@dataclass
class Tenure:
    """One seed's office."""

    leader: str | None
    since: int = 0  # the first episode of the leader's term
    records: dict[str, Record] = field(default_factory=dict)


class Elections:
    """The offices of one run's seeds, held at its meetings (experiments/play/meeting.py)."""

    def __init__(self, institution: InstitutionSpec, players: list[str]) -> None:
        self.institution = institution
        self.players = players
        self.tenures: dict[tuple[str | None, int | None], Tenure] = {}

    def leader(self, coords: Coords, after_episode: int) -> str | None:
        """The leader in office as the meeting after `after_episode` opens (a seed's first meeting starts afresh)."""
        key = (coords.condition, coords.seed)
        if after_episode == 0 or key not in self.tenures:
            self.tenures[key] = Tenure(self.institution.leader)
        return self.tenures[key].leader

    async def hold(self, writer: EventWriter, coords: Coords, members: Mapping[str, Member], after_episode: int,
                   last: LastEpisode | None) -> str | None:
        """The recall vote and the election due at this meeting; the leader for the next episode."""
        tenure = self.tenures[(coords.condition, coords.seed)]
        self._record(tenure, after_episode, last)
        for_episode, recalled = after_episode + 1, None
        broken = last.breaches.get(tenure.leader, ()) if last is not None and tenure.leader else ()
        if self.institution.recall == "breach" and broken:
            reason = f"the judge found {tenure.leader} broke the contract in force: {'; '.join(broken)}"
            writer.emit("recall", {"for_episode": for_episode, "leader": tenure.leader, "breaches": list(broken),
                                   "reason": reason}, coords)
            office = self._office("recall", tenure, (), reason, for_episode, last)
            votes = {}
            for player in self.players:
                choice = await self._ask(writer, coords, members[player], player, office)
                vote = choice.choice if choice.choice in ("yes", "no", "abstain") else "abstain"
                votes[player] = vote
                writer.emit("recall_vote", {"for_episode": for_episode, "leader": tenure.leader, "player": player,
                                            "vote": vote, "weight": self.institution.weight(player),
                                            "reason": choice.reason, **_source(members[player].source)}, coords)
            result = tally(self.institution, votes)
            writer.emit("recall_result", {"for_episode": for_episode, "leader": tenure.leader, "votes": votes,
                                          "rule": self.institution.rule, **result.to_json()}, coords)
            if result.passed:
                recalled, tenure.leader = tenure.leader, None
        why = "recall" if recalled else "vacant" if tenure.leader is None else \
            "term" if for_episode - tenure.since >= self.institution.term else None
        if why is not None:
            await self._elect(writer, coords, members, tenure, why, recalled, for_episode, last)
        return tenure.leader

    def _record(self, tenure: Tenure, episode: int, last: LastEpisode | None) -> None:
        if last is None:
            return
        for player in self.players:
            old = tenure.records.get(player, Record())
            tenure.records[player] = Record(old.breaches + len(last.breaches.get(player, ())),
                                            old.reward + float(last.rewards.get(player, 0.0)),
                                            old.led + (player == tenure.leader))

    def _office(self, kind: str, tenure: Tenure, candidates: tuple[str, ...], reason: str, for_episode: int,
                last: LastEpisode | None) -> Office:
        return Office(kind, self.institution, tenure.leader, candidates, dict(tenure.records), reason, for_episode,
                      last)

    async def _ask(self, writer: EventWriter, coords: Coords, member: Member, player: str, office: Office) -> Choice:
        """A member's answer; an LLM member's turn is a `meeting_turn` (its stage, reply, attempts, error)."""
        choice = await member.office(office)
        if member.source != "scripted":
            writer.emit("meeting_turn", {
                "for_episode": office.for_episode, "player": player, "stage": office.kind, "choice": choice.choice,
                "raw": choice.raw, "attempts": choice.attempts, "problems": list(choice.problems),
                "error": choice.error, "replies": list(choice.replies) if choice.error else [],
                **_source(member.source)}, coords)
        return choice

    async def _elect(self, writer: EventWriter, coords: Coords, members: Mapping[str, Member], tenure: Tenure,
                     why: str, recalled: str | None, for_episode: int, last: LastEpisode | None) -> None:
        candidates = tuple(c for c in self.institution.standing(self.players) if c != recalled)
        reason = {"recall": f"{recalled} was recalled", "vacant": "nobody leads yet",
                  "term": f"{tenure.leader}'s term of {self.institution.term} episode(s) is over"}[why]
        writer.emit("election", {"for_episode": for_episode, "why": why, "reason": reason,
                                 "candidates": list(candidates), "incumbent": tenure.leader,
                                 "count": self.institution.elect}, coords)
        office = self._office("election", tenure, candidates, reason, for_episode, last)
        ballots: dict[str, str | None] = {}
        for player in self.players:
            choice = await self._ask(writer, coords, members[player], player, office)
            ballots[player] = choice.choice if choice.choice in candidates else None
            writer.emit("ballot", {"for_episode": for_episode, "player": player, "candidate": ballots[player],
                                   "weight": self.institution.weight(player), "reason": choice.reason,
                                   **_source(members[player].source)}, coords)
        count = count_ballots(self.institution, list(candidates), ballots)
        previous = tenure.leader
        if count.elected is not None:
            tenure.leader, tenure.since = count.elected, for_episode
        writer.emit("election_result", {"for_episode": for_episode, "why": why, "ballots": ballots,
                                        "previous": previous, "leader": tenure.leader,
                                        "re_elected": count.elected is not None and count.elected == previous,
                                        **count.to_json()}, coords)


def _source(source: str) -> dict[str, Any]:
    return {"source": source, "scripted": source == "scripted"}

