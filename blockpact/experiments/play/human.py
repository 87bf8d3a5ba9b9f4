"""A scenario's `human` slot: a person with their own Minecraft client negotiates and plays in place of
an agent (the live backend's embedded server only; bridge/live/human_seats.py waits for them and talks to them).

- Negotiation: on their turn the person is told (in chat only they see) what the others said and
  proposed, and answers in chat: plain lines are their message, `propose <contract>` proposes (numbered
  clauses may share one line), `accept` accepts the standing proposal (two players: the previous
  round's; more: the latest, which every other player must accept in turn), `pass` ends the turn.
  Their lines become their turn (source "human") in the negotiation every player reads.
- Play: no program is written for them; their part of the episode is whatever they do on the server
  until they say `done` or the episode ends. Their inventory is scored like anyone's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from blockpact.agents.action import Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.critic import Critique
from blockpact.agents.negotiation import (NegotiationSettings, NegotiationTurn, can_accept, load_negotiation_settings,
                                          standing_proposal)
from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.live.human_seats import HumanSeats
from blockpact.judge.contract import parse_contract
from blockpact.worlds.spec.schema import WorldSpec

HUMAN = "human"
PLAYED_BY_A_PERSON = "// played by a person with their own Minecraft client (a human slot): no program"


class HumanProposal(Proposal):
    @property
    def label(self) -> str:
        return HUMAN


class HumanAgent:
    """Stands in the action-agent seat for a person: nothing to write, they play themselves."""

    def __init__(self, player: str) -> None:
        self.player = player

    async def propose(self, ctx: ActionContext) -> Proposal:
        return HumanProposal("a person plays this slot", "", PLAYED_BY_A_PERSON, "", scripted=False)


class HumanCritic:
    """A person's part is not reviewed: whatever they did is the outcome."""

    async def critique(self, task: str, result: ProgramResult, contract: str | None = None,
                       outcome: str | None = None) -> Critique:
        return Critique(True, "", "a person played this slot", HUMAN)


def _turn_lines(turn: NegotiationTurn) -> list[str]:
    if turn.passed and not turn.message:
        return [f"[round {turn.round}] {turn.player} passed"]
    lines = [f"[round {turn.round}] {turn.player}: {turn.message}".rstrip()]
    if turn.proposal is not None:
        lines.append(f"{turn.player} proposes: {' '.join(turn.proposal.split())}")
    if turn.accept:
        lines.append(f"{turn.player} accepts.")
    return lines


class HumanNegotiator:
    """A person's negotiation turns, read from their chat."""

    def __init__(self, player: str, spec: WorldSpec, seats: HumanSeats, settings: NegotiationSettings | None = None) -> None:
        self.player = player
        self.spec = spec
        self.seats = seats
        self.settings = settings or load_negotiation_settings()
        self.shown = 0  # turns of the history already told to the person

    def _seated(self, seating: Sequence[str] | None) -> list[str]:
        """Who negotiates, in speaking order (negotiate()'s seating; without one, the world's players sorted)."""
        return list(seating) if seating else sorted(self.spec.players)

    def _briefing(self, rounds: int, seating: Sequence[str] | None = None) -> str:
        values = ", ".join(f"{item} {v:g}" for item, v in sorted(self.spec.players[self.player].values.items()))
        seated = self._seated(seating)
        head = (f"You are {self.player} in {self.spec.title}. Items are worth to you (emeralds): {values or 'nothing'}.\n"
                f"Negotiation: {rounds} rounds in turn")
        if len(seated) <= 2:
            return head + (". On your turn say anything; 'propose 1. ... 2. ...' proposes a contract; 'accept' accepts "
                           "the previous round's proposal; 'pass' ends your turn.")
        return head + (f", {len(seated)} players in this order: {', '.join(seated)}. On your turn say anything; "
                       "'propose 1. ... 2. ...' proposes a contract; 'accept' accepts the standing (latest) proposal, "
                       f"adopted only once all {len(seated) - 1} other players accept it in turn; a new proposal replaces "
                       "it; 'pass' ends your turn and rejects it.")

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None,  # noqa: A002
                    seating: Sequence[str] | None = None) -> NegotiationTurn:
        k = rounds or self.settings.negotiation.rounds
        many = len(self._seated(seating)) > 2
        await self.seats.wait_for(self.player)
        if self.shown == 0:
            self.seats.tell(self.player, self._briefing(k, seating))
        for turn in history[self.shown:]:
            self.seats.tell(self.player, "\n".join(_turn_lines(turn)))
        self.shown = len(history) + 1
        seconds = self.seats.settings.turn_seconds
        standing = standing_proposal(history)
        note = f" 'accept' takes {standing.player}'s proposal." if standing is not None else ""
        self.seats.tell(self.player, f"Round {round} of {k}: your turn ({seconds:g} s).{note}")
        said: list[str] = []  # every line, for `raw`
        message: list[str] = []  # the plain lines: their message
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            for line in await self.seats.next_lines(self.player, left):
                said.append(line)
                turn = self._read(line, history, round, many)
                if turn is None:
                    message.append(line.strip())
                elif isinstance(turn, NegotiationTurn):
                    return self._turn(turn, message, said)
        ran_out = f"no proposal, accept or pass within {seconds:g} s: the turn passed"
        return self._turn(NegotiationTurn(round, self.player, "", "", None, False, "", error=ran_out), message, said)

    def _read(self, line: str, history: Sequence[NegotiationTurn], round_: int, many: bool) -> NegotiationTurn | bool | None:
        """The turn `line` ends; None for a line of their message; False for a word that cannot apply now."""
        word, _, rest = line.strip().partition(" ")
        word, rest = word.lower().rstrip(":"), rest.strip()
        if word in ("accept", "[accept]") and not rest:
            if can_accept(history):
                return NegotiationTurn(round_, self.player, "", "", None, True, "")
            self.seats.tell(self.player, "There is no standing proposal to accept: propose one or pass."
                            if many else "There is no proposal from the previous round to accept: propose one or pass.")
            return False
        if word == "propose" and rest:
            contract = parse_contract(rest, sorted(self.spec.players), spec=self.spec)
            loose = [c for c in contract.clauses if not c.formal]
            if loose:
                self.seats.tell(self.player, f"Noted. {len(loose)} clause(s) are free text the formal judge cannot check.")
            return NegotiationTurn(round_, self.player, "", "", rest, False, "")
        if word == "pass" and not rest:
            return NegotiationTurn(round_, self.player, "", "", None, False, "")
        return None

    def _turn(self, turn: NegotiationTurn, message: list[str], said: list[str]) -> NegotiationTurn:
        """`turn` with their message (the plain lines they said this turn) and every line as `raw`."""
        return dataclasses.replace(turn, message=" ".join(m for m in message if m), raw="\n".join(said), source=HUMAN)
