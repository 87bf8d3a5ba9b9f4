"""Contract negotiation before an episode (the contracting paper's protocol).

Negotiators speak in turn for at most k rounds. Each reply is `[thinking] ... [message] ...` with a
proposal `[contract] ... [contract end]` or `[accept]`; an accept in round i selects the proposal of
round i-1; no accept after k rounds means no contract. Thinking is private: the other side only ever
sees messages, proposals and accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.negotiation_format import FormatError, parse_reply
from blockpact.agents.negotiation_plan import social_optimum_clauses
from blockpact.judge.clauses import Clause
from blockpact.llm.repair import ask_until_usable
from blockpact.judge.contract import parse_contract, render_contract
from blockpact.settings import bounds, load_settings
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient

HERE = Path(__file__).parent
SETTINGS_FILE = HERE / "negotiation.toml"
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

    @property
    def passed(self) -> bool:
        return self.proposal is None and not self.accept


@dataclass
class NegotiationResult:
    contract: str | None
    accepted_round: int | None
    turns: list[NegotiationTurn] = field(default_factory=list)


class Negotiator(Protocol):
    player: str

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None) -> NegotiationTurn: ...


@dataclass(frozen=True)
class NegotiationTable:
    rounds: int = bounds(ge=1)
    role: str  # an LLM role of llm.toml
    attempts: int = bounds(ge=1)


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


def load_negotiation_settings(path: Path = SETTINGS_FILE) -> NegotiationSettings:
    return load_settings(path, NegotiationSettings)


def _template(name: str) -> Template:
    return Template((PROMPTS / name).read_text(encoding="utf-8"))


def can_accept(history: Sequence[NegotiationTurn]) -> bool:
    """An accept needs a proposal in the round just before."""
    return bool(history) and history[-1].proposal is not None


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
        if turn.accept:
            lines.append("[accept]")
    return "\n".join(lines) if lines else "(nothing yet: you speak first)"


async def negotiate(negotiators: Sequence[Negotiator], rounds: int | None = None) -> NegotiationResult:
    """Run the protocol; the negotiators speak in the given order, round 1 first."""
    if not negotiators:
        raise ValueError("negotiation needs at least one negotiator")
    k = rounds if rounds is not None else load_negotiation_settings().negotiation.rounds
    turns: list[NegotiationTurn] = []
    for round_ in range(1, k + 1):
        negotiator = negotiators[(round_ - 1) % len(negotiators)]
        turn = await negotiator.reply(list(turns), round_, k)
        if turn.accept and not can_accept(turns):
            turn = replace(turn, accept=False, error="accepted with no proposal in the previous round: counted as a pass")
        turns.append(turn)
        if turn.accept:
            return NegotiationResult(turns[-2].proposal, round_, turns)
    return NegotiationResult(None, None, turns)


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

    def system_prompt(self, rounds: int) -> str:
        others = [p for p in sorted(self.spec.players) if p != self.player]
        length = (
            f"The scenario lasts {self.spec.episode_seconds:g} seconds."
            if self.spec.length_known
            else "You do not know how long the scenario lasts."
        )
        return _template("negotiator.md").substitute(
            player=self.player,
            others=" and ".join(others),
            other=others[0] if others else self.player,
            title=self.spec.title,
            description=self.spec.description_for(self.player),
            values=_value_list(self.spec, self.player),
            length=length,
            rounds=rounds,
        )

    def turn_prompt(self, history: Sequence[NegotiationTurn], round_: int, rounds: int) -> str:
        if can_accept(history):
            note = f"You may [accept] the contract {history[-1].player} proposed in round {history[-1].round}, or propose another."
        else:
            note = "There is no proposal from the previous round to accept: propose a contract."
        return _template("negotiator_turn.md").substitute(
            history=public_history(history), round=round_, rounds=rounds, accept_note=note
        )

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None) -> NegotiationTurn:  # noqa: A002
        k = rounds or self.settings.negotiation.rounds
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt(k)},
            {"role": "user", "content": self.turn_prompt(history, round, k)},
        ]
        asked = await ask_until_usable(
            self.client, self.settings.negotiation.role, messages, lambda raw: parse_reply(raw, can_accept=can_accept(history)),
            lambda reason: {"role": "user", "content": _template("negotiator_retry.md").substitute(reason=reason)},
            self.settings.negotiation.attempts, errors=(FormatError,))
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
    spec and accepts a proposal exactly when it states the same clauses (in any order or wording)."""

    def __init__(self, player: str, spec: WorldSpec, settings: NegotiationSettings | None = None, *,
                 clauses: Sequence[Clause] | None = None, reason: str | None = None) -> None:
        """`clauses` (with `reason`, what was optimised) come from the contract search; without them the
        closed-form social optimum of `negotiation_plan` is proposed."""
        if player not in spec.players:
            raise KeyError(f"no player {player!r} in world {spec.name} (players: {', '.join(sorted(spec.players))})")
        self.player = player
        self.spec = spec
        self.settings = settings or load_negotiation_settings()
        self.clauses = list(clauses) if clauses is not None else social_optimum_clauses(spec)
        self.reason = reason
        self.contract = render_contract(self.clauses, world=spec.name)

    def agrees_with(self, proposal: str) -> bool:
        parsed = parse_contract(proposal, sorted(self.spec.players), world=self.spec.name)
        return sorted(map(repr, parsed.clauses)) == sorted(map(repr, self.clauses))

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None) -> NegotiationTurn:  # noqa: A002
        lines = asdict(self.settings.scripted)
        if self.reason:
            lines["thinking"] = lines["propose"] = f"scripted: {self.reason}"
        if can_accept(history) and self.agrees_with(history[-1].proposal or ""):
            raw = f"[thinking] {lines['thinking']}\n[message] {lines['accept']}\n[accept]"
            return NegotiationTurn(round, self.player, lines["thinking"], lines["accept"], None, True, raw, source="scripted")
        raw = f"[thinking] {lines['thinking']}\n[message] {lines['propose']}\n[contract]\n{self.contract}\n[contract end]"
        return NegotiationTurn(round, self.player, lines["thinking"], lines["propose"], self.contract, False, raw,
                               source="scripted")
