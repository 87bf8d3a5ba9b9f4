"""How a proposal's votes (and an election's ballots) are counted under an institution's rule: one pure function, so tests and metrics agree.

Every player of the world is a voter; an abstention counts as no yes (a majority is of all the votes, not of
those cast). Each player has the votes the institution's `weights` give it (others 1), under every rule;
`weighted` is a majority of them, `unanimity` every player's yes. A veto holder's "no" defeats the proposal
whatever the count. A recall is voted as a proposal is. An election's ballots name a candidate (or none: an
abstention), each with its player's weight; `plurality` elects the candidate with the most votes, `majority` the one
with more than half of all the votes (else nobody: the seat stays as it was); a tie goes to the candidate listed first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from blockpact.experiments.plan.institution import InstitutionSpec

VOTES = ("yes", "no", "abstain")


@dataclass(frozen=True)
class Tally:
    passed: bool
    yes: float  # weighted votes
    no: float
    abstain: float
    total: float  # every voter's weight
    needed: str  # what passing takes, in words
    vetoed_by: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "yes": self.yes, "no": self.no, "abstain": self.abstain, "total": self.total,
                "needed": self.needed, "vetoed_by": list(self.vetoed_by)}


def tally(institution: InstitutionSpec, votes: Mapping[str, str]) -> Tally:
    """`votes`: {player: "yes" | "no" | "abstain"} for every voter."""
    bad = {p: v for p, v in votes.items() if v not in VOTES}
    if bad:
        raise ValueError(f"votes must be one of {VOTES}: {bad}")
    weight = {p: institution.weight(p) for p in votes}
    count = {v: math.fsum(weight[p] for p, cast in votes.items() if cast == v) for v in VOTES}
    total = math.fsum(weight.values())
    yes = count["yes"]
    match institution.rule:
        case "unanimity":
            passed, needed = bool(votes) and all(v == "yes" for v in votes.values()), f"all {len(votes)} players"
        case "quorum":
            share = institution.quorum or 1.0
            passed, needed = total > 0 and yes >= share * total - 1e-9, f"at least {share:g} of {total:g} votes"
        case _:  # majority, weighted: more than half of all the (weighted) votes
            passed, needed = yes > total / 2, f"more than {total / 2:g} of {total:g} votes"
    vetoed = tuple(p for p in institution.veto if votes.get(p) == "no")
    if vetoed:
        passed = False
    return Tally(passed, yes, count["no"], count["abstain"], total, needed, vetoed)


@dataclass(frozen=True)
class Count:
    elected: str | None  # None: nobody reached what the rule needs
    votes: dict[str, float]  # weighted votes per candidate (every candidate, 0 included)
    abstain: float
    total: float
    needed: str

    def to_json(self) -> dict[str, Any]:
        return {"elected": self.elected, "votes": dict(self.votes), "abstain": self.abstain, "total": self.total,
                "needed": self.needed}


def count_ballots(institution: InstitutionSpec, candidates: list[str], ballots: Mapping[str, str | None]) -> Count:
    """`ballots`: {voter: candidate or None (an abstention)} for every voter; `candidates` in their listed order."""
    wrong = {p: c for p, c in ballots.items() if c is not None and c not in candidates}
    if wrong:
        raise ValueError(f"ballots must name a candidate ({', '.join(candidates)}) or none: {wrong}")
    votes = {c: math.fsum(institution.weight(p) for p, b in ballots.items() if b == c) for c in candidates}
    total = math.fsum(institution.weight(p) for p in ballots)
    abstain = math.fsum(institution.weight(p) for p, b in ballots.items() if b is None)
    best = max(candidates, key=lambda c: (votes[c], -candidates.index(c))) if candidates else None
    if institution.elect == "majority":
        needed = f"more than {total / 2:g} of {total:g} votes"
        elected = best if best is not None and votes[best] > total / 2 else None
    else:
        needed = "the most votes (a tie: the candidate listed first)"
        elected = best if best is not None and votes[best] > 0 else None
    return Count(elected, votes, abstain, total, needed)
