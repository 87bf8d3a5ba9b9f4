"""An LLM member of an institution: its turn at a meeting between episodes (prompts/member_*.md).

The "member" role is shown the rules and the contract in force, what a meeting may change and how a proposal
passes, the last episode's outcome (welfare, each player's reward, the stock of each renewable resource), the
clause forms the formal judge reads (those the meeting may change, made from the grammar as the negotiator's are)
and the proposals open for its vote. It answers in a strict format: a proposal or `[proposal] none`, and
`[vote N] yes|no|abstain` for each open proposal. A reply out of format (or a proposal the judge would not read,
or one outside what may be changed) is sent back with the reason, in the same repair loop as every other role;
after the attempts the turn is no proposal and an abstention on every open proposal, and `Turn.error` with the
replies says so, for the meeting to record as the member's failure.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from blockpact.agents.action_prompts import render
from blockpact.agents.meeting_floor import Ballot, Choice, Floor, LastEpisode, Motion, Office, Turn
from blockpact.agents.meeting_office import ask_office, office_messages
from blockpact.judge.amendment import out_of_order
from blockpact.judge.clauses import Clause, ForEach, Quota
from blockpact.judge.contract import parse_contract, render_clause, render_contract
from blockpact.judge.contract_forms import contract_forms
from blockpact.llm.repair import ask_until_usable
from blockpact.plain_text import plain_line
from blockpact.worlds.spec.institution import InstitutionSpec
from blockpact.worlds.spec.schema import WorldSpec

ROLE = "member"
ATTEMPTS = 3  # replies asked for per turn, as a negotiation turn's
VOTES = ("yes", "no", "abstain")
_THINKING = re.compile(r"\[thinking\](.*?)(?=\[message\]|\[proposal\]|\Z)", re.DOTALL | re.IGNORECASE)
_MESSAGE = re.compile(r"\[message\](.*?)(?=\[proposal\]|\[vote|\Z)", re.DOTALL | re.IGNORECASE)
MESSAGE_CHARS = 600  # a longer message is cut here: every later member's prompt shows it
_NONE = re.compile(r"\[proposal\][ \t]*none\b", re.IGNORECASE)
_PROPOSAL = re.compile(r"\[proposal\](.*?)\[proposal end\]", re.DOTALL | re.IGNORECASE)
_VOTE = re.compile(r"^\s*\[vote\s+(\d+)\]\s*(\w+)", re.MULTILINE | re.IGNORECASE)
_CLAUSE = re.compile(r"^\s*\d+[.)]\s+\S", re.MULTILINE)


class MemberFormatError(ValueError):
    """A member's reply that cannot be used as its turn, with the reason sent back to it."""


def changeable_forms(spec: WorldSpec, player: str, changeable: Sequence[str]) -> str:
    """The negotiator's clause forms (contract_forms: the grammar's own sentences) that a meeting may change."""
    players = sorted(spec.players)
    lines = []
    for purpose, sentence in contract_forms(spec, player):
        clauses = parse_contract(f"1. {sentence}", players, spec=spec).clauses
        if out_of_order(clauses, changeable) is None:
            lines.append(f'  "{sentence}"  ({purpose})')
        if purpose == "a quota per period" and len(clauses) == 1 and isinstance(quota := clauses[0], Quota):
            each = ForEach("each player", tuple(dataclasses.replace(quota, player=p) for p in players))
            sentence = render_clause(each, world=spec.name)  # the limit a commons meeting votes on, if it reads back
            if parse_contract(f"1. {sentence}", players, spec=spec).clauses == (each,):
                lines.append(f'  "{sentence}"  (the same quota for each player)')
    return "\n".join(lines)


def outcome_text(last: LastEpisode | None) -> str:
    if last is None:
        return "no play has ended yet."
    rewards = ", ".join(f"{p} {r:g}" for p, r in sorted(last.rewards.items()))
    text = f"play {last.episode + 1}: welfare {last.welfare:g} emeralds in all ({rewards})."
    for key, (start, end) in sorted(last.stock.items()):
        block, _, region = key.partition("@")
        text += f" {block} in {region}: {end:g} left at the end (of {start:g} at the start)."
    return text


def parse_turn(text: str, spec: WorldSpec, floor: Floor) -> tuple[str, Motion | None, dict[int, Ballot]]:
    """(thinking, proposal, ballots) of a reply; raises MemberFormatError saying what is wrong."""
    thinking = m.group(1).strip() if (m := _THINKING.search(text)) else ""
    motion = None
    if (m := _PROPOSAL.search(text)) is not None:
        body = m.group(1)
        if not _CLAUSE.search(body):
            raise MemberFormatError('the proposal has no numbered clause ("1. ..."): write [proposal] none to '
                                    "propose nothing")
        if not floor.may_propose:
            raise MemberFormatError("you may not propose at this turn: write [proposal] none")
        clauses = parse_contract(body.strip(), sorted(spec.players), spec=spec).clauses
        problem = out_of_order(clauses, floor.institution.can_change)
        if problem is not None:
            raise MemberFormatError(f"the proposal cannot be put to the vote: {problem}")
        motion = Motion(tuple(clauses), thinking or "(no reason given)")
    elif not _NONE.search(text):
        raise MemberFormatError("no [proposal] ... [proposal end] and no [proposal] none")
    ballots: dict[int, Ballot] = {}
    open_numbers = {o.number for o in floor.open}
    for number, vote in _VOTE.findall(text):
        n, vote = int(number), vote.lower()
        if n not in open_numbers:
            raise MemberFormatError(f"there is no open proposal {n} (open: {_numbers(floor)})")
        if vote not in VOTES:
            raise MemberFormatError(f"[vote {n}] must be yes, no or abstain, not {vote!r}")
        if n in ballots and ballots[n].vote != vote:
            raise MemberFormatError(f"two different votes on proposal {n}")
        ballots[n] = Ballot(vote, thinking or "(no reason given)")
    missing = sorted(open_numbers - set(ballots))
    if missing:
        raise MemberFormatError(f"no vote on proposal {', '.join(map(str, missing))}: one line [vote N] yes, no or "
                                "abstain for each open proposal")
    return thinking, motion, ballots


def spoken(text: str) -> str | None:
    """The reply's [message] to the other members, on one line and at most MESSAGE_CHARS (None: it said nothing)."""
    if (m := _MESSAGE.search(text)) is None:
        return None
    words = plain_line(" ".join(m.group(1).split()))
    return (words[:MESSAGE_CHARS] + ("…" if len(words) > MESSAGE_CHARS else "")) or None


def said_text(floor: Floor) -> str:
    return "\n".join(f"{player}: {message}" for player, message in floor.said) or "Nothing yet."


def _numbers(floor: Floor) -> str:
    return ", ".join(str(o.number) for o in floor.open) or "none"


def _contract(clauses: Sequence[Clause], world: str) -> str:
    return render_contract(tuple(clauses), world=world) if clauses else "No contract."


class LLMMember:
    """A player's part at meetings, answered by the run's LLM client (its slot's model) on the "member" role."""

    source = "llm"

    def __init__(self, client: Any, player: str, spec: WorldSpec, *, role: str = ROLE, attempts: int = ATTEMPTS) -> None:
        self.client = client
        self.player = player
        self.spec = spec
        self.role = role
        self.attempts = attempts

    def system(self, institution: InstitutionSpec, leader: str | None) -> str:
        """The member's system prompt: the rules of the meeting (and of its elections), as the leader in office
        stands."""
        spec, players = self.spec, sorted(self.spec.players)
        values = ", ".join(f"{i} {v:g}" for i, v in sorted(spec.players[self.player].values.items())) or "nothing"
        changeable = {"quota": "quota clauses (a limit on how much of a block players take in a period)",
                      "clauses": "any clause the judge reads"}
        if institution.propose == "anyone":
            may = "You may propose."
        elif institution.may_propose(self.player, leader):
            may = "You are the leader: you alone may propose."
        else:
            may = f"Only the leader ({leader or 'nobody yet'}) may propose: you vote."
        if institution.elect:
            may += f"\nElections: {institution.electing()}."
        return render(
            "member_system", player=self.player, title=spec.title or spec.name,
            others=" and ".join(p for p in players if p != self.player), description=spec.description_for(self.player),
            values=values, rules=institution.describe(),
            changeable="; ".join(changeable[c] for c in institution.can_change) + ".",
            passing=institution.passing(players) + ".",
            may_propose=may, forms=changeable_forms(spec, self.player, institution.can_change))

    def messages(self, floor: Floor) -> list[dict[str, str]]:
        spec = self.spec
        system = self.system(floor.institution, floor.leader)
        open_text = "\n\n".join(f"Proposal {o.number}, by {o.player}:\n{_contract(o.clauses, spec.name)}"
                                for o in floor.open) or "None (write no [vote] line)."
        ask = ("Propose a change to the contract, or write [proposal] none, then vote on each open proposal."
               if floor.may_propose else "You may not propose now: write [proposal] none, then vote on each open proposal.")
        user = render("member_turn", for_episode=floor.for_episode + 1, outcome=outcome_text(floor.last),
                      contract=_contract(floor.in_force, spec.name), said=said_text(floor), open=open_text, ask=ask)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def office(self, office: Office) -> Choice:
        """Its vote on a recall, or its ballot in an election (agents/meeting_office.py)."""
        messages = office_messages(self.system(office.institution, office.leader), office, sorted(self.spec.players),
                                   outcome_text(office.last))
        return await ask_office(self.client, self.role, messages, office, self.attempts)

    async def turn(self, floor: Floor) -> Turn:
        retry = lambda reason: {"role": "user", "content": render("member_retry", reason=reason,  # noqa: E731
                                                                  numbers=_numbers(floor))}
        asked = await ask_until_usable(self.client, self.role, self.messages(floor),
                                       lambda text: parse_turn(text, self.spec, floor), retry, self.attempts,
                                       errors=(MemberFormatError,))
        replies, problems = tuple(asked.replies), tuple(asked.problems)
        if asked.value is None:
            error = (f"no reply in the format after {asked.attempts} attempts ({'; '.join(problems)}): counted as no "
                     "proposal and an abstention on every open proposal")
            ballots = {o.number: Ballot("abstain", "no reply in the format") for o in floor.open}
            return Turn(None, ballots, replies[-1] if replies else "", asked.attempts, problems, replies, error)
        _, motion, ballots = asked.value
        return Turn(motion, ballots, replies[-1], asked.attempts, problems, replies, message=spoken(replies[-1]))
