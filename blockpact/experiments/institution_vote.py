"""How a proposal's votes are counted under an institution's rule: one pure function, so tests and metrics agree.

Every player of the world is a voter; an abstention counts as no yes (a majority is of all the votes, not of
those cast). Each player has the votes the institution's `weights` give it (others 1), under every rule;
`weighted` is a majority of them, `unanimity` every player's yes. A veto holder's "no" defeats the proposal
whatever the count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from blockpact.experiments.institution import InstitutionSpec

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
