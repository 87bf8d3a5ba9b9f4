"""`[institution]` in a scenario or world file: the players meet between the episodes of a seed, may amend
their contract, and may elect (and recall) the leader who alone proposes.

```toml
[institution]
meet = "between_episodes"   # when the players meet (this version: between the episodes of a seed)
propose = "anyone"          # who may propose: "anyone" | "leader"
leader = "Ann"              # the leader (needed with propose = "leader")
rule = "majority"           # "majority" | "quorum" | "unanimity" | "weighted"
quorum = 0.75               # rule = "quorum": the share of all votes that must be yes, in (0, 1]
weights = { Ann = 2 }       # votes per player (others 1), counted under every rule; "weighted" needs them
veto = ["Ann"]              # players whose "no" defeats any proposal, whatever the rule
can_change = ["quota"]      # "quota" (quota clauses on a resource) and/or "clauses" (any formal clause)
elect = "plurality"         # the players elect the leader: "plurality" | "majority" (none: the leader is fixed)
candidates = ["Ann", "Bo"]  # who stands (default: every player)
term = 2                    # episodes per term: an election at the meeting after every `term` episodes
recall = "breach"           # a recall vote when the formal judge found the leader in breach: "breach" | "never"
```

The shape is checked when the file is read (`parse_institution`: each error names the file, line and key, and
what was expected). A world file's players are checked as it loads; a scenario's when a run is planned
(experiments/plan/institution.py, which also refuses members without a voting part). A scenario's [institution]
replaces its world's. The institution in effect is recorded in run_start (`scenario.institution`, or the world's
source text), so metrics and `resume` read it back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Fail = Callable[[str, str], Exception]
KEYS = ("meet", "propose", "leader", "rule", "quorum", "weights", "veto", "can_change", "elect", "candidates", "term",
        "recall")
MEETINGS = ("between_episodes",)
PROPOSERS = ("anyone", "leader")
RULES = ("majority", "quorum", "unanimity", "weighted")
CHANGEABLE = ("quota", "clauses")  # what a meeting may change: quota clauses on a resource, or any formal clause
ELECTIONS = ("plurality", "majority")  # how an election's ballots are counted (experiments/play/institution_vote.py)
RECALLS = ("breach", "never")


@dataclass(frozen=True)
class InstitutionSpec:
    meet: str = "between_episodes"
    propose: str = "anyone"
    leader: str | None = None
    rule: str = "majority"
    quorum: float | None = None  # rule "quorum" only
    weights: dict[str, float] = field(default_factory=dict)  # votes per player, under any rule; one not listed has 1
    veto: tuple[str, ...] = ()
    can_change: tuple[str, ...] = ("quota",)
    elect: str | None = None  # None: no elections (the leader, if any, is fixed)
    candidates: tuple[str, ...] = ()  # who stands (empty: every player)
    term: int = 1  # episodes per term, with elections
    recall: str = "breach"  # with elections: a recall vote on a leader the formal judge found in breach

    def weight(self, player: str) -> float:
        return self.weights.get(player, 1.0)

    def may_propose(self, player: str, leader: str | None = None) -> bool:
        """`leader`: the leader in office (an elected one); the fixed `leader` without elections."""
        return self.propose == "anyone" or player == (leader if self.elect else self.leader)

    def standing(self, players: list[str]) -> list[str]:
        return [p for p in players if p in self.candidates] if self.candidates else list(players)

    def describe(self) -> str:
        """The rules of the meeting in one line, for the event log's readers and the report."""
        rule = {"majority": "a majority of the votes", "unanimity": "every vote",
                "quorum": f"at least {self.quorum or 1:g} of the votes", "weighted": "more than half the weighted votes"}
        who = "anyone" if self.propose == "anyone" else \
            "the elected leader" if self.elect else f"the leader ({self.leader})"
        text = (f"the players meet between episodes; {who} may propose a change to {' and '.join(self.can_change)}"
                f" clauses; a proposal passes with {rule[self.rule]}")
        if self.weights:
            text += " (" + ", ".join(f"{p} {w:g}" for p, w in sorted(self.weights.items())) + ", others 1)"
        text += f"; {', '.join(self.veto)} may veto" if self.veto else ""
        return text + (f"; {self.electing()}" if self.elect else "")

    def electing(self) -> str:
        """The election rules in words (the description's and the members' prompt's)."""
        count = "most votes" if self.elect == "plurality" else "more than half of all the votes"
        stand = ", ".join(self.candidates) if self.candidates else "every player"
        first = f"{self.leader} leads until the first election" if self.leader else "the first meeting elects one"
        text = (f"the leader is elected by {count} (candidates: {stand}) for terms of {self.term} "
                f"episode{'s' if self.term != 1 else ''}; {first}")
        return text + ("; a leader the judge finds in breach of the contract faces a recall vote, passed as a "
                       "proposal is" if self.recall == "breach" else "")

    def passing(self, players: list[str]) -> str:
        """What passing takes, in words, as a member's meeting prompt says it (experiments/play/institution_vote.py counts)."""
        total = sum(self.weight(p) for p in players)
        weights = (" (" + ", ".join(f"{p} has {self.weight(p):g} votes" for p in players if self.weight(p) != 1)
                   + ", every other player 1)") if any(self.weight(p) != 1 for p in players) else ""
        match self.rule:
            case "unanimity":
                text = f"every one of the {len(players)} players votes yes"
            case "quorum":
                text = f"yes votes make at least {self.quorum or 1:g} of all {total:g} votes{weights}"
            case _:
                text = f"yes votes make more than half of all {total:g} votes{weights}"
        text += "; an abstention counts as no yes"
        return text + (f"; a no from {' or '.join(self.veto)} defeats any proposal" if self.veto else "")

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "veto": list(self.veto), "can_change": list(self.can_change),
                "candidates": list(self.candidates), "description": self.describe()}


def institution_from_record(record: Mapping[str, Any]) -> InstitutionSpec:
    return InstitutionSpec(record["meet"], record["propose"], record.get("leader"), record["rule"], record.get("quorum"),
                           {p: float(w) for p, w in (record.get("weights") or {}).items()}, tuple(record.get("veto") or ()),
                           tuple(record.get("can_change") or ("quota",)), record.get("elect"),
                           tuple(record.get("candidates") or ()), int(record.get("term") or 1),
                           record.get("recall") or "breach")


def _choice(raw: Mapping[str, Any], key: str, options: tuple[str, ...], fail: Fail) -> str:
    value = raw.get(key, options[0])
    if value not in options:
        raise fail(f"institution.{key}", f"got {value!r} (expected {' or '.join(map(repr, options))})")
    return str(value)


def _names(value: Any, key: str, fail: Fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise fail(key, f"got {value!r} (expected a list of player names)")
    return tuple(dict.fromkeys(value))


def parse_institution(raw: Any, fail: Fail) -> InstitutionSpec | None:
    """The shape of a scenario's [institution] (None: the file declares none: the contract is fixed)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise fail("institution", "expected a table [institution]")
    for key in raw:
        if key not in KEYS:
            raise fail(f"institution.{key}", f"unknown key (expected {', '.join(KEYS)})")
    meet = raw.get("meet", MEETINGS[0])
    if meet not in MEETINGS:
        raise fail("institution.meet", f"got {meet!r} (expected \"between_episodes\": meetings every S seconds within "
                                       "an episode are not supported yet)")
    propose = _choice(raw, "propose", PROPOSERS, fail)
    leader = raw.get("leader")
    if leader is not None and (not isinstance(leader, str) or not leader):
        raise fail("institution.leader", f"got {leader!r} (expected a player's name)")
    elect = raw.get("elect")
    if elect is not None and elect not in ELECTIONS:
        raise fail("institution.elect", f"got {elect!r} (expected {' or '.join(map(repr, ELECTIONS))})")
    if propose == "leader" and leader is None and elect is None:
        raise fail("institution.leader", "missing (expected the leader's name: propose = \"leader\" lets only the "
                                         "leader propose; or elect = \"plurality\" for an elected one)")
    rule = _choice(raw, "rule", RULES, fail)
    quorum = raw.get("quorum")
    if rule == "quorum":
        if isinstance(quorum, bool) or not isinstance(quorum, (int, float)) or not 0 < quorum <= 1:
            raise fail("institution.quorum", f"got {quorum!r} (expected the share of all votes that must be yes, "
                                             "a number in (0, 1], e.g. 0.75)")
        quorum = float(quorum)
    elif quorum is not None:
        raise fail("institution.quorum", f"applies to rule = \"quorum\" only (the rule is {rule!r})")
    weights = raw.get("weights", {})
    if not isinstance(weights, Mapping) or not all(
            isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0 for w in weights.values()):
        raise fail("institution.weights", f"got {weights!r} (expected a table of player = votes, each a number >= 0)")
    if rule == "weighted" and not weights:
        raise fail("institution.weights", "missing (expected a table of player = votes: rule = \"weighted\" needs one)")
    veto = _names(raw.get("veto", []), "institution.veto", fail)
    can_change = _names(raw.get("can_change", ["quota"]), "institution.can_change", fail)
    wrong = [c for c in can_change if c not in CHANGEABLE]
    if not can_change or wrong:
        raise fail("institution.can_change", f"got {list(can_change)!r} (expected one or more of "
                                             f"{', '.join(map(repr, CHANGEABLE))})")
    candidates, term, recall = _office(raw, elect, fail)
    return InstitutionSpec(str(meet), propose, leader, rule, quorum, {p: float(w) for p, w in weights.items()},
                           veto, can_change, elect, candidates, term, recall)


def _office(raw: Mapping[str, Any], elect: str | None, fail: Fail) -> tuple[tuple[str, ...], int, str]:
    """The election keys (`candidates`, `term`, `recall`): they apply with `elect` only."""
    if elect is None:
        for key in ("candidates", "term", "recall"):
            if key in raw:
                raise fail(f"institution.{key}", "applies with elections only (expected elect = \"plurality\" or "
                                                 "\"majority\" in [institution])")
        return (), 1, "breach"
    candidates = _names(raw.get("candidates", []), "institution.candidates", fail)
    if "candidates" in raw and not candidates:
        raise fail("institution.candidates", "got [] (expected the players who stand, or no key: every player)")
    term = raw.get("term", 1)
    if isinstance(term, bool) or not isinstance(term, int) or term < 1:
        raise fail("institution.term", f"got {term!r} (expected a whole number of episodes >= 1)")
    recall = _choice(raw, "recall", RECALLS, fail)
    return candidates, term, recall
