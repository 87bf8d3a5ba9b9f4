"""A meeting of an institution between two episodes of a seed: proposals, each player's vote, the result, and the
contract in force for the following episodes. Everything it decides goes into events.jsonl (`meeting_start`,
`meeting_turn`, `proposal`, `vote`, `vote_result`, `meeting_end`: EVENTS.md), so the rules in force are read back
from the log.

Each member gets a turn in player order (agents/meeting_floor.py): it may propose (anyone, or only the leader) and
votes on the proposals made before its turn; once every member has spoken, those who spoke before a later proposal
get a second turn to vote on it. Then the proposals are counted in order, each on the contract as amended so far,
and an adopted one amends it at once (judge/amendment.py). A proposal outside what the institution lets a meeting
change is ruled out of order and not voted. The members come from the run's participants (an LLM member asks the
run's LLM client); an LLM member's turn out of format is a `meeting_turn` with its `error` and replies: no proposal,
and an abstention on each open proposal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from blockpact.agents.meeting_floor import Ballot, Floor, LastEpisode, Member, Motion, OpenProposal, Turn
from blockpact.agents.scripted.voting import ScriptedMember
from blockpact.experiments.play.election import Elections
from blockpact.experiments.plan.institution import InstitutionSpec, institution_from_record
from blockpact.experiments.play.institution_vote import tally
from blockpact.experiments.log.run_events import Coords, EventWriter
from blockpact.judge.amendment import amend, out_of_order
from blockpact.judge.contract import parse_contract, render_clause, render_contract
from blockpact.judge.metrics import resource_curves
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec


Seat = Callable[[int], Mapping[str, Member]]  # a seed's members, by player


class Meeting:
    """The meetings of one run: `seat(seed)` gives each player's member (scripted or LLM)."""

    def __init__(self, institution: InstitutionSpec, spec: WorldSpec, seat: Seat) -> None:
        self.institution = institution
        self.spec = spec
        self.players = sorted(spec.players)
        self.seat = seat
        self.elections = Elections(institution, self.players) if institution.elect else None

    async def hold(self, writer: EventWriter, coords: Coords, after_episode: int, contract: str | None,
                   last: LastEpisode | None = None) -> str | None:
        """The contract in force after the meeting held once `after_episode` ended (None: no contract)."""
        spec, players, for_episode = self.spec, self.players, after_episode + 1
        members = self.seat(int(coords.seed or 0))
        coords = coords.at(episode=None)
        elections = self.elections
        leader = elections.leader(coords, after_episode) if elections else self.institution.leader
        writer.emit("meeting_start", {"after_episode": after_episode, "for_episode": for_episode,
                                      "rules": self.institution.to_json(), "contract": contract, "leader": leader,
                                      "last_episode": last.to_json() if last is not None else None}, coords)
        if elections is not None:  # a recall vote and an election come before the proposals
            leader = await elections.hold(writer, coords, members, after_episode, last)
        clauses = parse_contract(contract, players, spec=spec).clauses
        motions: list[tuple[int, str, Motion, str | None]] = []  # (number, player, motion, why out of order)
        ballots: dict[int, dict[str, Ballot]] = {}
        said: list[tuple[str, str]] = []  # what the members said so far, shown at every later turn
        for second in (False, True):
            for player in players:
                waiting = tuple(OpenProposal(n, who, m.clauses) for n, who, m, problem in motions
                                if problem is None and player not in ballots[n])
                may = not second and self.institution.may_propose(player, leader)
                if second and not waiting:
                    continue
                floor = Floor(self.institution, tuple(clauses), waiting, may, after_episode + 1, last, leader,
                              tuple(said))
                turn = await members[player].turn(floor)
                if turn.message:
                    said.append((player, turn.message))
                self._turn_event(writer, coords, for_episode, player, members[player].source, floor, turn)
                for o in waiting:
                    ballots[o.number][player] = turn.votes.get(o.number) or Ballot("abstain", "no vote given")
                if turn.motion is not None and may:
                    number = len(motions) + 1
                    motions.append((number, player, turn.motion, out_of_order(turn.motion.clauses,
                                                                              self.institution.can_change)))
                    ballots[number] = {}
        adopted: list[int] = []
        for number, player, motion, problem in motions:
            writer.emit("proposal", {
                "for_episode": for_episode, "proposal": number, "player": player,
                "text": render_contract(motion.clauses, world=spec.name),
                "clauses": [render_clause(c, world=spec.name) for c in motion.clauses], "reason": motion.reason,
                "in_order": problem is None, "problem": problem, **_source(members[player].source),
            }, coords)
            if problem is not None:
                continue
            votes = {}
            for voter in players:
                ballot = ballots[number].get(voter) or Ballot("abstain", "no vote given")
                votes[voter] = ballot.vote
                writer.emit("vote", {"for_episode": for_episode, "proposal": number, "player": voter,
                                     "vote": ballot.vote, "weight": self.institution.weight(voter),
                                     "reason": ballot.reason, **_source(members[voter].source)}, coords)
            result = tally(self.institution, votes)
            writer.emit("vote_result", {"for_episode": for_episode, "proposal": number, "rule": self.institution.rule,
                                        "votes": votes, **result.to_json()}, coords)
            if result.passed:
                clauses = amend(clauses, motion.clauses)
                adopted.append(number)
        text = contract
        if adopted:
            text = render_contract(clauses, world=spec.name) if clauses else None
        writer.emit("meeting_end", {"after_episode": after_episode, "for_episode": for_episode,
                                    "proposals": len(motions), "adopted": adopted, "changed": bool(adopted),
                                    "contract": text, "leader": leader}, coords)
        return text

    def outcome(self, episode: int, rewards: Mapping[str, float], events: Sequence[Event],
                scores: Sequence[Mapping[str, Any]] = ()) -> LastEpisode:
        """How an episode ended, as the next meeting shows it: rewards, each renewable stock at start and end, and
        each player's breaches in the formal judge's clause `scores`."""
        stock = {}
        if events:
            for key, curve in resource_curves(events).items():
                if curve.values:
                    stock[key] = (curve.values[0], curve.values[-1])
        breaches: dict[str, list[str]] = {}
        for score in scores:
            for player in score.get("broken_by") or ():  # the judge's own words, those naming the player
                said = [t for t in score.get("breaches") or () if player in str(t)] or [str(score.get("kind"))]
                breaches.setdefault(player, []).extend(f"clause {score.get('clause')}: {t}" for t in said)
        return LastEpisode(episode, dict(rewards), stock, {p: tuple(b) for p, b in sorted(breaches.items())})

    @staticmethod
    def _turn_event(writer: EventWriter, coords: Coords, for_episode: int, player: str, source: str, floor: Floor,
                    turn: Turn) -> None:
        """An LLM member's turn as it answered (its reply, attempts, and the error of a turn out of format)."""
        if source == "scripted":
            return  # deterministic: its proposal and votes say everything
        writer.emit("meeting_turn", {
            "for_episode": for_episode, "player": player, "open": [o.number for o in floor.open],
            "may_propose": floor.may_propose, "proposed": turn.motion is not None,
            "votes": {str(n): b.vote for n, b in sorted(turn.votes.items())}, "message": turn.message, "raw": turn.raw,
            "attempts": turn.attempts, "problems": list(turn.problems), "error": turn.error,
            "replies": list(turn.replies) if turn.error else [], **_source(source),
        }, coords)


def _source(source: str) -> dict[str, Any]:
    return {"source": source, "scripted": source == "scripted"}


def scripted_seat(spec: WorldSpec, population: Mapping[str, str], budget: float | None) -> Seat:
    """Every player a scripted member of its slot's kind (a plain `scripted` one when the population names none)."""
    members = {p: ScriptedMember(p, population.get(p, "scripted"), spec, budget) for p in sorted(spec.players)}
    return lambda seed: members


def meeting_for(plan: Any, seat: Callable[[WorldSpec, float | None], Seat] | None = None) -> Meeting | None:
    """The meetings of a RunPlan whose scenario or world declares an institution (None: the contract stays fixed).
    `seat(spec, budget)`: the participants' members (Participants.members); without it every member is scripted."""
    from blockpact.experiments.plan.settings import run_settings

    if plan.scenario is not None:  # a scenario run records the institution in effect (its own, or its world's)
        record = plan.scenario.get("institution")
        institution = institution_from_record(record) if record else None
    else:  # a world run from flags: the world's own; its players are the run's players
        institution = plan.spec.institution
    if institution is None:
        return None
    budget = plan.spec.episode_seconds + run_settings().episode.budget_margin_seconds  # the search plays as episodes do
    members = seat(plan.spec, budget) if seat is not None else scripted_seat(plan.spec, plan.population or {}, budget)
    return Meeting(institution, plan.spec, members)
