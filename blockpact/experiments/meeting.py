"""A meeting of an institution between two episodes of a seed: proposals, each player's vote, the result, and the
contract in force for the following episodes. Everything it decides goes into events.jsonl (`meeting_start`,
`proposal`, `vote`, `vote_result`, `meeting_end`: EVENTS.md), so the rules in force are read back from the log.

Proposals come in player order (only the leader's under propose = "leader"); each is put to the vote on the
contract as amended so far, and an adopted one amends it at once (judge/amendment.py). A proposal outside what the
institution lets a meeting change is ruled out of order and not voted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blockpact.agents.scripted.voting import ScriptedMember
from blockpact.experiments.institution import InstitutionSpec, institution_from_record
from blockpact.experiments.institution_vote import tally
from blockpact.experiments.run_events import Coords, EventWriter
from blockpact.judge.amendment import amend, out_of_order
from blockpact.judge.contract import parse_contract, render_clause, render_contract
from blockpact.worlds.spec.schema import WorldSpec


class Meeting:
    """The meetings of one run: `population` says which scripted member each player is."""

    def __init__(self, institution: InstitutionSpec, spec: WorldSpec, population: Mapping[str, str],
                 budget: float | None = None) -> None:
        self.institution = institution
        self.spec = spec
        self.players = sorted(spec.players)
        self.members = {p: ScriptedMember(p, population.get(p, "scripted"), spec, budget) for p in self.players}

    async def hold(self, writer: EventWriter, coords: Coords, after_episode: int, contract: str | None) -> str | None:
        """The contract in force after the meeting held once `after_episode` ended (None: no contract)."""
        spec, players = self.spec, self.players
        coords = coords.at(episode=None)
        writer.emit("meeting_start", {"after_episode": after_episode, "for_episode": after_episode + 1,
                                      "rules": self.institution.to_json(), "contract": contract}, coords)
        clauses = parse_contract(contract, players, spec=spec).clauses
        adopted: list[int] = []
        number = 0
        proposers = [p for p in players if self.institution.may_propose(p)]
        for player in proposers:
            motion = await self.members[player].propose(clauses)
            if motion is None:
                continue
            number += 1
            problem = out_of_order(motion.clauses, self.institution.can_change)
            writer.emit("proposal", {
                "for_episode": after_episode + 1, "proposal": number, "player": player,
                "text": render_contract(motion.clauses, world=spec.name),
                "clauses": [render_clause(c, world=spec.name) for c in motion.clauses], "reason": motion.reason,
                "in_order": problem is None, "problem": problem, **_source(self.members[player].source),
            }, coords)
            if problem is not None:
                continue
            votes = {}
            for voter in players:
                ballot = self.members[voter].vote(motion.clauses)
                votes[voter] = ballot.vote
                writer.emit("vote", {"for_episode": after_episode + 1, "proposal": number, "player": voter,
                                     "vote": ballot.vote, "weight": self.institution.weight(voter),
                                     "reason": ballot.reason, **_source(self.members[voter].source)}, coords)
            result = tally(self.institution, votes)
            writer.emit("vote_result", {"for_episode": after_episode + 1, "proposal": number, "rule": self.institution.rule,
                                        "votes": votes, **result.to_json()}, coords)
            if result.passed:
                clauses = amend(clauses, motion.clauses)
                adopted.append(number)
        text = contract
        if adopted:
            text = render_contract(clauses, world=spec.name) if clauses else None
        writer.emit("meeting_end", {"after_episode": after_episode, "for_episode": after_episode + 1,
                                    "proposals": number, "adopted": adopted, "changed": bool(adopted),
                                    "contract": text}, coords)
        return text


def _source(source: str) -> dict[str, Any]:
    return {"source": source, "scripted": source == "scripted"}


def meeting_for(plan: Any) -> Meeting | None:
    """The meetings of a RunPlan whose scenario or world declares an institution (None: the contract stays fixed)."""
    from blockpact.experiments.settings import run_settings

    if plan.scenario is not None:  # a scenario run records the institution in effect (its own, or its world's)
        record = plan.scenario.get("institution")
        institution = institution_from_record(record) if record else None
    else:  # a world run from flags: the world's own; its players are the run's scripted players
        institution = plan.spec.institution
    if institution is None:
        return None
    budget = plan.spec.episode_seconds + run_settings().episode.budget_margin_seconds  # the search plays as episodes do
    return Meeting(institution, plan.spec, plan.population or {}, budget)
