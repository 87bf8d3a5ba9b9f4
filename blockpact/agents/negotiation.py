"""Contract negotiation before an episode (the contracting paper's protocol).

Negotiators speak in turn for at most k rounds. Each reply is `[thinking] ... [message] ...` with a
proposal `[contract] ... [contract end]` or `[accept]`; an accept in round i selects the proposal of
round i-1; no accept after k rounds means no contract. Thinking is private: the other side only ever
sees messages, proposals and accepts.

With N > 2 players (the paper's protocol is two-player) a "round" is one reply, still in turn, and
there are ceil(k * N / 2) of them, so each player speaks as often as in a two-player negotiation of k.
The standing proposal is the latest one followed only by accepts; an accept selects it, and it is
adopted when the N - 1 replies after it all accept it (every other player, each in their own turn).
A new proposal replaces it; a reply that neither proposes nor accepts (a message only, or a pass)
rejects it: it stands no longer. With two players this is exactly the paper's rule.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.negotiation_format import NO_PROPOSAL, FormatError, parse_reply
from blockpact.agents.negotiation_plan import social_optimum_clauses
from blockpact.agents.negotiation_reading import read_proposal, revise_until_formal
from blockpact.judge.contract_forms import forms_text
from blockpact.judge.clauses import Clause
from blockpact.llm.repair import ask_until_usable
from blockpact.prompt_files import prompt_template
from blockpact.judge.contract import parse_contract, render_contract
from blockpact.settings import bounds, load_settings
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient

HERE = Path(__file__).parent
SETTINGS_FILE = HERE / "negotiation.toml"
NO_STANDING = "there is no standing proposal to accept; propose a contract instead"
PROMPTS = HERE / "prompts"


@dataclass
class NegotiationTurn:
    round: int
    player: str
    thinking: str  # private: never shown to another negotiator
    message: str
    proposal: str | None
    accept: bool
    raw: str
    source: str = "llm"  # "llm" | "scripted"
    error: str | None = None  # why the turn counts as a pass (format broken after every retry)
    attempts: int = 1
    reading: list[str] | None = None  # the proposal clause by clause: formal (kind) or free text (why); all see it
    revisions: list[dict[str, Any]] = field(default_factory=list)  # earlier versions the proposer revised in its turn

    @property
    def passed(self) -> bool:
        return self.proposal is None and not self.accept


@dataclass
class NegotiationResult:
    """A round is one reply, for any number of players (the paper's with two): `accepted_round` is the reply
    that adopted the contract, so with N seated it is at least N (a proposal and N - 1 accepts); the run's
    records say how many times around the table that was (experiments/log/records.py, SeedRecord.accepted_lap)."""

    contract: str | None
    accepted_round: int | None  # the round of the last accept, the one that adopted the contract
    turns: list[NegotiationTurn] = field(default_factory=list)
    proposed_by: str | None = None  # who proposed the adopted contract ...
    proposed_round: int | None = None  # ... in which round
    accepted_by: list[str] = field(default_factory=list)  # who accepted it, in turn order (every other player)
    seating: list[str] = field(default_factory=list)  # who negotiated, in speaking order


class Negotiator(Protocol):
    player: str

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None,
                    seating: Sequence[str] | None = None) -> NegotiationTurn:
        """`seating`: every seated player in speaking order (negotiate() passes the order it was given)."""
        ...


@dataclass(frozen=True)
class NegotiationTable:
    rounds: int = bounds(ge=1)
    role: str  # an LLM role of llm.toml
    attempts: int = bounds(ge=1)
    revisions: int = bounds(ge=0)


@dataclass(frozen=True)
class ScriptedLines:
    """What the scripted negotiator says."""

    thinking: str
    propose: str
    accept: str


@dataclass(frozen=True)
class NegotiationSettings:
    """`negotiation.toml`'s schema."""

    negotiation: NegotiationTable
    scripted: ScriptedLines


def load_negotiation_settings(path: Path = SETTINGS_FILE, *, override: Path | None = None) -> NegotiationSettings:
    """`path` under the user's override file (`override`, else the one in force: agent_settings.py)."""
    from blockpact.agents.agent_settings import override_file

    extra = override or override_file()
    return load_settings(path, NegotiationSettings, *([extra] if extra else []), table="negotiation")


def turn_budget(rounds: int, players: int) -> int:
    """Replies in a negotiation: `rounds` with two players (or one); with N > 2, ceil(rounds * N / 2), so
    each player gets as many turns as in a two-player negotiation of `rounds`."""
    return rounds if players <= 2 else math.ceil(rounds * players / 2)


def _standing_index(history: Sequence[NegotiationTurn]) -> int | None:
    for i in range(len(history) - 1, -1, -1):
        if history[i].proposal is not None:
            return i
        if not history[i].accept:
            return None
    return None


def standing_proposal(history: Sequence[NegotiationTurn]) -> NegotiationTurn | None:
    """The turn whose proposal stands: the latest proposal with only accepts after it (two players:
    the previous round's proposal). A turn that neither proposes nor accepts ends it."""
    i = _standing_index(history)
    return None if i is None else history[i]


def accepted_by(history: Sequence[NegotiationTurn]) -> list[str]:
    """Who has accepted the standing proposal so far, in turn order."""
    i = _standing_index(history)
    return [] if i is None else [t.player for t in history[i + 1:]]


def can_accept(history: Sequence[NegotiationTurn]) -> bool:
    """An accept needs a standing proposal (two players: a proposal in the round just before)."""
    return standing_proposal(history) is not None


def public_history(history: Sequence[NegotiationTurn]) -> str:
    """The negotiation as every player sees it: messages, proposals and accepts, never thinking."""
    lines: list[str] = []
    for turn in history:
        if turn.passed and not turn.message:  # (a person may pass with a message: it is shown)
            lines.append(f"Round {turn.round}, {turn.player}: (no valid reply; the turn passed)")
            continue
        lines.append(f"Round {turn.round}, {turn.player}: {turn.message}".rstrip())
        if turn.proposal is not None:
            lines.append(f"[contract]\n{turn.proposal}\n[contract end]")
            if turn.reading:
                lines.append("The judge reads it: " + " | ".join(turn.reading))
        if turn.accept:
            lines.append("[accept]")
    return "\n".join(lines) if lines else "(nothing yet: you speak first)"


async def negotiate(negotiators: Sequence[Negotiator], rounds: int | None = None) -> NegotiationResult:
    """Run the protocol; the negotiators speak in the given order, round 1 first. `rounds` is the
    two-player length: with N > 2 negotiators there are `turn_budget(rounds, N)` rounds (one reply each)."""
    if not negotiators:
        raise ValueError("negotiation needs at least one negotiator")
    k = rounds if rounds is not None else load_negotiation_settings().negotiation.rounds
    n = len(negotiators)
    seating = [negotiator.player for negotiator in negotiators]
    budget, needed = turn_budget(k, n), max(1, n - 1)
    no_standing = ("accepted with no proposal in the previous round: counted as a pass" if n <= 2 else
                   "accepted with no standing proposal (none yet, or a reply since it neither proposed nor accepted): "
                   "counted as a pass")
    turns: list[NegotiationTurn] = []
    for round_ in range(1, budget + 1):
        negotiator = negotiators[(round_ - 1) % n]
        turn = await negotiator.reply(list(turns), round_, budget, seating=list(seating))
        if turn.accept and not can_accept(turns):
            turn = replace(turn, accept=False, error=no_standing)
        turns.append(turn)
        if turn.accept and len(accepts := accepted_by(turns)) >= needed:
            standing = standing_proposal(turns)
            assert standing is not None
            return NegotiationResult(standing.proposal, round_, turns, standing.player, standing.round, accepts, seating)
    return NegotiationResult(None, None, turns, seating=seating)


def _value_list(spec: WorldSpec, player: str) -> str:
    values = spec.players[player].values
    return ", ".join(f"{item} {v:g}" for item, v in sorted(values.items())) or "nothing but emeralds"


class LLMNegotiator:
    """Asks the LLM for each turn; a reply that breaks the format is sent back with the reason."""

    def __init__(self, client: LLMClient, player: str, spec: WorldSpec, settings: NegotiationSettings | None = None) -> None:
        if player not in spec.players:
            raise KeyError(f"no player {player!r} in world {spec.name} (players: {', '.join(sorted(spec.players))})")
        self.client = client
        self.player = player
        self.spec = spec
        self.settings = settings or load_negotiation_settings()

    def seated(self, seating: Sequence[str] | None = None) -> list[str]:
        """Who negotiates, in speaking order: the seating negotiate() passes; without one (a prompt asked for
        outside a negotiation) every player of the world, sorted by name, as every caller seats them."""
        return list(seating) if seating else sorted(self.spec.players)

    def many(self, seating: Sequence[str] | None = None) -> bool:
        return len(self.seated(seating)) > 2

    def rules(self, rounds: int, seating: Sequence[str] | None = None) -> tuple[str, str]:
        """How negotiation works and what an [accept] selects: the paper's text with two players."""
        players = self.seated(seating)
        if len(players) <= 2:
            return prompt_template(PROMPTS, "negotiator_rules_two").substitute(rounds=rounds), "the contract proposed in the previous round"
        rules = prompt_template(PROMPTS, "negotiator_rules_many").substitute(
            count=len(players), order=", ".join(players), rounds=rounds, others_count=len(players) - 1)
        return rules, "the standing proposal (the latest contract proposed, accepted by every reply since)"

    def system_prompt(self, rounds: int, seating: Sequence[str] | None = None) -> str:
        others = [p for p in self.seated(seating) if p != self.player]
        rules, accept_what = self.rules(rounds, seating)
        length = (
            f"The scenario lasts {self.spec.episode_seconds:g} seconds."
            if self.spec.length_known
            else "You do not know how long the scenario lasts."
        )
        return prompt_template(PROMPTS, "negotiator").substitute(
            forms=forms_text(self.spec, self.player),
            revisions=self.settings.negotiation.revisions,
            player=self.player,
            others=" and ".join(others),
            other=others[0] if others else self.player,
            title=self.spec.title,
            description=self.spec.description_for(self.player),
            values=_value_list(self.spec, self.player),
            length=length,
            rules=rules,
            accept_what=accept_what,
        )

    def turn_prompt(self, history: Sequence[NegotiationTurn], round_: int, rounds: int,
                    seating: Sequence[str] | None = None) -> str:
        standing = standing_proposal(history)
        many = self.many(seating)
        if standing is None:
            note = ("There is no standing proposal to accept: propose a contract." if many else
                    "There is no proposal from the previous round to accept: propose a contract.")
        elif not many:
            note = f"You may [accept] the contract {standing.player} proposed in round {standing.round}, or propose another."
        else:
            done = accepted_by(history)
            seated = self.seated(seating)
            me = seated.index(self.player) if self.player in seated else -1
            after_me = seated[me + 1:] + seated[:me + 1]  # who speaks after this player, in turn
            waiting = [p for p in after_me if p not in (standing.player, self.player, *done)]
            note = (f"The standing proposal is the contract {standing.player} proposed in round {standing.round}; "
                    f"accepted so far by {', '.join(done) or 'nobody'}. You may [accept] it or propose another. "
                    + (f"It is adopted only if {' and '.join(waiting)} also accept{'s' if len(waiting) == 1 else ''} it after you."
                       if waiting else "If you accept, every other player has accepted it and it is adopted."))
        return prompt_template(PROMPTS, "negotiator_turn").substitute(
            history=public_history(history), round=round_, rounds=rounds, accept_note=note
        )

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None,  # noqa: A002
                    seating: Sequence[str] | None = None) -> NegotiationTurn:
        k = rounds or self.settings.negotiation.rounds
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt(k, seating)},
            {"role": "user", "content": self.turn_prompt(history, round, k, seating)},
        ]
        refusal = NO_STANDING if self.many(seating) else NO_PROPOSAL
        asked = await ask_until_usable(
            self.client, self.settings.negotiation.role, messages,
            lambda raw: parse_reply(raw, can_accept=can_accept(history), refusal=refusal),
            lambda reason: {"role": "user", "content": prompt_template(PROMPTS, "negotiator_retry").substitute(reason=reason)},
            self.settings.negotiation.attempts, errors=(FormatError,))
        if asked.value is not None and asked.value.proposal is not None:
            retry = lambda reason: {"role": "user", "content": prompt_template(PROMPTS, "negotiator_retry").substitute(reason=reason)}  # noqa: E731
            read = await revise_until_formal(self.client, self.settings.negotiation.role, messages, asked.value,
                                             asked.replies[-1], self.spec, self.settings.negotiation.revisions,
                                             self.settings.negotiation.attempts, retry)
            parsed = read.parsed
            return NegotiationTurn(round, self.player, parsed.thinking, parsed.message, parsed.proposal, False, read.raw,
                                   attempts=asked.attempts, reading=read.reading, revisions=read.revisions)
        if asked.value is not None:
            parsed = asked.value
            return NegotiationTurn(round, self.player, parsed.thinking, parsed.message, parsed.proposal, parsed.accept,
                                   asked.replies[-1], attempts=asked.attempts)
        raw = asked.replies[-1] if asked.replies else ""
        error = (f"no reply in the format after {self.settings.negotiation.attempts} attempts ({'; '.join(asked.problems)}): "
                 "counted as a pass")
        return NegotiationTurn(round, self.player, "", "", None, False, raw, error=error, attempts=self.settings.negotiation.attempts)


class ScriptedNegotiator:
    """Deterministic, labelled "scripted": proposes the social-optimum contract derived from the world
    spec and accepts a proposal when it states the same clauses (in any order or wording), or when `appraise`
    (the contract search's appraiser: the proposal played on the simulator) finds nothing against it for this player."""

    def __init__(self, player: str, spec: WorldSpec, settings: NegotiationSettings | None = None, *,
                 clauses: Sequence[Clause] | None = None, reason: str | None = None,
                 appraise: Callable[[str], Awaitable[str | None]] | None = None) -> None:
        """`clauses` (with `reason`, what was optimised) come from the contract search; without them the
        closed-form social optimum of `negotiation_plan` is proposed; an empty list: nothing is proposed (no
        contract leaves every player at least its outside option). `appraise(proposal)` returns why this player
        refuses a proposal it would not make itself, or None to accept it."""
        if player not in spec.players:
            raise KeyError(f"no player {player!r} in world {spec.name} (players: {', '.join(sorted(spec.players))})")
        self.player = player
        self.spec = spec
        self.settings = settings or load_negotiation_settings()
        self.clauses = list(clauses) if clauses is not None else social_optimum_clauses(spec)
        self.reason = reason
        self.appraise = appraise
        self.contract = render_contract(self.clauses, world=spec.name)

    def agrees_with(self, proposal: str) -> bool:
        parsed = parse_contract(proposal, sorted(self.spec.players), spec=self.spec)
        return sorted(map(repr, parsed.clauses)) == sorted(map(repr, self.clauses))

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None,  # noqa: A002
                    seating: Sequence[str] | None = None) -> NegotiationTurn:
        lines = asdict(self.settings.scripted)
        if self.reason:
            lines["thinking"] = lines["propose"] = f"scripted: {self.reason}"
        standing = standing_proposal(history)
        refusal = None
        if standing is not None:
            agreed = self.agrees_with(standing.proposal or "")
            if not agreed and self.appraise is not None and standing.player != self.player:
                refusal = await self.appraise(standing.proposal or "")
            if agreed or (self.appraise is not None and refusal is None):
                raw = f"[thinking] {lines['thinking']}\n[message] {lines['accept']}\n[accept]"
                return NegotiationTurn(round, self.player, lines["thinking"], lines["accept"], None, True, raw, source="scripted")
        message = lines["propose"] if refusal is None else f"I refuse the standing proposal: {refusal}. {lines['propose']}"
        if not self.clauses:
            message = message if refusal is not None else lines["thinking"]
            raw = f"[thinking] {lines['thinking']}\n[message] {message}"
            return NegotiationTurn(round, self.player, lines["thinking"], message, None, False, raw, source="scripted")
        raw = f"[thinking] {lines['thinking']}\n[message] {message}\n[contract]\n{self.contract}\n[contract end]"
        return NegotiationTurn(round, self.player, lines["thinking"], message, self.contract, False, raw,
                               source="scripted", reading=read_proposal(self.contract, self.spec))
