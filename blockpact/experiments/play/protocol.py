"""The experiment protocol per condition and seed: contract (none, given or negotiated) → episodes → outcome.

Who plays is pluggable: an `EpisodeEngine` plays one episode (agents act, a judge may rule) and
reports through an `EpisodeLog`; a `ContractNegotiation` produces the contract for the "negotiate"
condition. The protocol owns the run coordinates and the events that frame them, so every engine's
output lands in events.jsonl the same way. A failing seed is logged with its cause (`failures.py`)
and the run goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import platform
import subprocess
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from blockpact.agents.agent_settings import override_record
from blockpact import __version__
from blockpact.config import PROJECT_ROOT
from blockpact.experiments.play.failures import classify
from blockpact.experiments.plan.run_plan import ConditionSpec, RunPlan, Unit
from blockpact.experiments.log.run_events import CURRENT_COORDS, Coords, EventWriter
from blockpact.numbers import tidy
from blockpact.worlds.events import Event, Listener
from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class Handover:
    """What a player takes from one episode into the next: the "last round" fields of its prompt."""

    last_code: str | None = None
    last_error: str | None = None
    critic_critique: str | None = None
    judge_critique: str | None = None
    chat_log: tuple[str, ...] = ()  # the previous episode's chat, every player's lines
    outcome: str | None = None  # how the episode ended for the player: rewards, each clause's status
    lessons: tuple[str, ...] = ()  # the player's reflection (LLM players), or its earlier lessons when it wrote none

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "chat_log": list(self.chat_log), "lessons": list(self.lessons)}


@dataclass(frozen=True)
class EpisodeInput:
    spec: WorldSpec
    seed: int  # the world seed; the same for every episode of a seed, so episodes differ only by what agents learnt
    condition: str
    contract: str | None
    episode: int
    handover: Mapping[str, Handover] = field(default_factory=dict)  # per player; empty in the first episode
    episodes: int = 1  # episodes of the seed: what is learnt in the last one feeds nothing
    meetings: bool = False  # the players meet between episodes (an institution): the contract may change

    @property
    def followed(self) -> bool:
        """Another episode of this seed comes after this one (so critiques and reflections are read)."""
        return self.episode + 1 < self.episodes

    @property
    def critiques(self) -> dict[str, str]:
        """The critic's and the judge's critiques handed over, per player (for the log and the report)."""
        out = {}
        for player, h in sorted(self.handover.items()):
            text = "\n".join(f"{who}: {c}" for who, c in (("critic", h.critic_critique), ("judge", h.judge_critique)) if c)
            if text:
                out[player] = text
        return out


@dataclass
class EpisodeOutcome:
    rewards: dict[str, float]  # emeralds after transfers
    inventory_rewards: dict[str, float]  # value of inventories before transfers
    transfers: dict[str, float]  # zero-sum
    handover: dict[str, Handover]  # to the next episode
    sim_seconds: float
    transfers_source: str | None = None  # the judge whose transfers were applied ("formal" | "llm"), None: no contract
    replayed_from: str | None = None  # who played the recorded episode this one replayed (episode_replay.py)


class EpisodeLog:
    """An engine's channel into events.jsonl, bound to one (condition, seed, episode)."""

    def __init__(self, writer: EventWriter, coords: Coords, kept: list[Event] | None = None) -> None:
        self.writer = writer
        self.coords = coords
        self.kept = kept  # the world events, also kept here when a meeting after the episode reads them
        self.scores: list[Mapping[str, Any]] = []  # the formal judge's clause scores, kept with `kept` (for recalls)

    def world(self, event: Event) -> None:
        self.writer.emit("world", {"event": event.to_json()}, self.coords)
        if self.kept is not None:
            self.kept.append(event)

    def follow(self, events: Sequence[Event], listen: Callable[[Listener], None]) -> None:
        """Record every world event: those already in `events`, then each new one `listen` passes on."""
        for event in events:
            self.world(event)
        listen(self.world)

    def program_result(self, result: Mapping[str, Any], code: str | None = None, **proposal: Any) -> None:
        """`result` has ProgramResult.to_json()'s fields; the observation is left out (the world events hold it).
        `proposal`: who wrote the program and why (`source`, `explain`, `plan`, `function_name`)."""
        data = {k: v for k, v in result.items() if k != "observation"}
        self.writer.emit("program_result", {**data, "code": code, **proposal}, self.coords)

    def verdict(self, player: str, success: bool, critique: str, reasoning: str, source: str) -> None:
        """The critic's verdict on the player's program, given after the judge (`source`: execution, llm, scripted,
        human or error)."""
        self.writer.emit("verdict", {"player": player, "success": success, "critique": critique,
                                     "reasoning": reasoning, "source": source}, self.coords)

    def reflection(self, player: str, lessons: Sequence[str], **extra: Any) -> None:
        """The lessons the player carries into the next episode (`error`, `replies`: a reflection that gave none)."""
        self.writer.emit("reflection", {"player": player, "lessons": list(lessons), **extra}, self.coords)

    def critique(self, player: str, source: str, text: str, **extra: Any) -> None:
        self.writer.emit("critique", {"player": player, "source": source, "text": text, **extra}, self.coords)

    def judgment(self, source: str, transfers: Mapping[str, float], critiques: Mapping[str, str],
                 reasoning: str = "", *, valid: bool = True, error: str | None = None, attempts: int = 0,
                 problems: Sequence[str] = (), clauses: Sequence[Mapping[str, object]] = ()) -> None:
        """`attempts`: LLM replies asked for; `problems`: why the rejected ones failed validation;
        `clauses`: the formal judge's score of each clause (kept, broken by whom, settled, free text)."""
        if self.kept is not None and source == "formal":
            self.scores = [dict(c) for c in clauses]
        self.writer.emit("judgment", {"source": source, "transfers": tidy(dict(transfers)), "critiques": dict(critiques),
                                      "reasoning": reasoning, "valid": valid, "error": error, "attempts": attempts,
                                      "problems": list(problems), "clauses": [dict(c) for c in clauses]}, self.coords)


class EpisodeEngine(Protocol):
    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome: ...


class NegotiationOutcome(Protocol):
    """Matches blockpact.agents.negotiation.NegotiationResult."""

    contract: str | None
    accepted_round: int | None  # the round of the accept that adopted it
    turns: Sequence[Any]  # NegotiationTurn: round, player, thinking, message, proposal, accept, raw, source, error
    proposed_by: str | None
    proposed_round: int | None
    accepted_by: Sequence[str]  # with N > 2 players every other player, in turn order
    seating: Sequence[str]  # who negotiated, in speaking order


class ContractNegotiation(Protocol):
    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationOutcome: ...


@dataclass(frozen=True)
class Participants:
    engine: EpisodeEngine
    negotiation: ContractNegotiation
    aclose: Callable[[], Awaitable[None]] | None = None  # releases what they hold (an LLM client's connections)
    bind: Callable[[EventWriter], None] | None = None  # given the run's log (LLM participants log every call)
    stop_reason: Callable[[], str | None] | None = None  # why no further unit may start (LLM budget spent)
    # The members of an institution's meetings: members(spec, budget)(seed) -> {player: Member} (an LLM slot's
    # asks the run's client); None: every member scripted, of its slot's kind (experiments/play/meeting.py).
    members: Callable[[WorldSpec, float | None], Callable[[int], Mapping[str, Any]]] | None = None


def versions(spec: WorldSpec) -> dict[str, str | None]:
    return {
        "blockpact": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "minecraft": spec.mc_version,
        "git_commit": _git_commit(),
    }


@functools.cache  # one `git rev-parse` per process, not one per unit of a sweep
def _git_commit() -> str | None:
    if not (PROJECT_ROOT / ".git").exists():
        return None
    try:
        done = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def run_start_data(plan: RunPlan) -> dict[str, Any]:
    from blockpact.worlds.rules.obtainable import world_warnings  # the rules' data: only when a run starts

    spec = plan.spec
    return {
        "world": spec.name,
        "world_path": str(spec.source) if spec.source else None,
        "world_source": spec.source.read_text(encoding="utf-8") if spec.source else None,
        # said on stderr before the run; metrics.json and the report keep them
        "world_warnings": list(plan.world_warnings if plan.world_warnings is not None else world_warnings(spec)),
        "backend": plan.backend,
        "agents": plan.agents,
        "conditions": [dataclasses.asdict(c) for c in plan.conditions],
        "seeds": plan.seeds,
        "episodes": plan.episodes,
        "players": sorted(spec.players),
        "values": {p: dict(s.values) for p, s in sorted(spec.players.items())},
        "episode_seconds": spec.episode_seconds,
        "versions": versions(spec),
        "llm": dict(plan.llm) if plan.llm is not None else None,
        "live": dict(plan.live) if plan.live is not None else None,
        "population": dict(plan.population) if plan.population is not None else None,
        "judge": dict(plan.judge) if plan.judge is not None else None,
        "scenario": dict(plan.scenario) if plan.scenario is not None else None,
        "agent_settings": override_record(),  # --agent-settings: the override of action.toml / negotiation.toml
    }


def _turn_data(turn: Any) -> dict[str, Any]:
    fields = ("round", "player", "thinking", "message", "proposal", "accept", "raw", "error", "reading", "revisions")
    source = getattr(turn, "source", "llm")
    return {**{f: getattr(turn, f, None) for f in fields}, "source": source, "scripted": source == "scripted"}


class RunProtocol:
    """Runs a plan and writes its events; constructed once per run."""

    def __init__(self, plan: RunPlan, participants: Participants, writer: EventWriter, parallel: int = 1) -> None:
        self.plan = plan
        self.participants = participants
        self.writer = writer
        self.parallel = parallel  # units (condition, seed) in progress at once
        if participants.bind is not None:
            participants.bind(writer)
        from blockpact.experiments.play.meeting import meeting_for

        self.meeting = meeting_for(plan, participants.members)  # an institution's meetings between episodes (None: the contract is fixed)

    async def run(self) -> None:
        self.writer.emit("run_start", run_start_data(self.plan))
        await self.run_units(self.plan.units)

    async def resume(self, units: Sequence[Unit], note: Mapping[str, Any]) -> None:
        """Continue a run's log: `note` (what the resume found and did) goes into a run_resumed event,
        then `units` (the unfinished ones, each from its start) run as in `run`."""
        self.writer.emit("run_resumed", note)
        await self.run_units(units)

    async def run_units(self, units: Sequence[Unit]) -> None:
        """Every unit, `parallel` at a time (each one's events carry its coordinates, and a unit's outcome
        depends only on its seed, so the order in which they interleave changes nothing)."""
        status = "interrupted"
        slots = asyncio.Semaphore(max(self.parallel, 1))

        async def one(condition: ConditionSpec, seed: int) -> bool:
            async with slots:
                if (reason := self.stop_reason()) is not None:
                    self.not_run([(condition, seed)], reason)
                    return False
                await self.run_seed(condition, seed)
                return True

        try:
            if self.parallel <= 1:
                ran = [await one(condition, seed) for condition, seed in units]
            else:  # the longest first (negotiating units have a whole negotiation more): a shorter tail
                longest_first = sorted(units, key=lambda u: u[0].contract_mode != "negotiate")
                ran = await asyncio.gather(*(one(condition, seed) for condition, seed in longest_first))
            status = "complete" if all(ran) else "stopped"
        finally:
            self.writer.emit("run_end", {"status": status})
            if self.participants.aclose is not None:
                await self.participants.aclose()

    def stop_reason(self) -> str | None:
        return self.participants.stop_reason() if self.participants.stop_reason is not None else None

    def not_run(self, units: Sequence[Unit], reason: str) -> None:
        """Units the run will not start (their seeds stay unfinished: `blockpact resume` runs them)."""
        for condition, seed in units:
            self.writer.emit("unit_not_run", {"reason": reason}, Coords(condition.name, seed))

    async def run_seed(self, condition: ConditionSpec, seed: int) -> None:
        coords = Coords(condition.name, seed)
        CURRENT_COORDS.set(coords)
        self.writer.emit("seed_start", {}, coords)
        try:
            contract = await self.contract(condition, seed, coords)
            handover: Mapping[str, Handover] = {}
            last = None  # how the episode before a meeting ended, for its members
            for index in range(self.plan.episodes):
                if index > 0 and self.meeting is not None:  # the contract in force from this episode on
                    contract = await self.meeting.hold(self.writer, coords, index - 1, contract, last)
                handover, last = await self.episode(EpisodeInput(self.plan.spec, seed, condition.name, contract, index,
                                                                 handover, self.plan.episodes, self.meeting is not None),
                                                    coords.at(episode=index))
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a failed unit is reported with its cause; the run goes on
            failure = classify(exc)
            self.writer.emit("seed_error", {"error": failure.message, "cause": failure.cause,
                                            "traceback": traceback.format_exc()}, coords)
            self.writer.emit("seed_end", {"status": "failed"}, coords)
            return
        self.writer.emit("seed_end", {"status": "completed"}, coords)

    async def contract(self, condition: ConditionSpec, seed: int, coords: Coords) -> str | None:
        agreement: dict[str, Any] = {}
        if condition.contract_mode == "none":
            text, source, accepted = None, "none", None
        elif condition.contract_mode == "given":
            text, source, accepted = condition.contract_text, "given", None
        else:
            result = await self.participants.negotiation.negotiate(self.plan.spec, seed)
            for turn in result.turns:
                self.writer.emit("negotiation_turn", _turn_data(turn), coords)
            text, accepted = result.contract, result.accepted_round
            source = "negotiated" if text is not None else "no_agreement"
            agreement = {"proposed_by": result.proposed_by, "proposed_round": result.proposed_round,
                         "accepted_by": list(result.accepted_by), "seating": list(result.seating)}
        self.writer.emit("contract", {"text": text, "source": source, "accepted_round": accepted, **agreement}, coords)
        return text

    async def episode(self, episode: EpisodeInput, coords: Coords) -> tuple[dict[str, Handover], Any]:
        """The handover to the next episode, and how this one ended for a meeting after it (None: no meeting)."""
        self.writer.emit("episode_start", {
            "world_seed": episode.seed, "contract": episode.contract, "critiques": episode.critiques,
            "handover": {p: h.to_json() for p, h in sorted(episode.handover.items())},
        }, coords)
        CURRENT_COORDS.set(coords)
        kept: list[Event] | None = [] if self.meeting is not None and episode.followed else None
        log = EpisodeLog(self.writer, coords, kept)
        outcome = await self.participants.engine.play(episode, log)
        CURRENT_COORDS.set(coords.at(episode=None))
        # rewards and transfers are derived sums: written to twelve significant digits (blockpact.numbers)
        transfers = tidy(outcome.transfers)
        self.writer.emit("transfers", {"transfers": transfers, "source": outcome.transfers_source}, coords)
        replayed = {"replayed_from": outcome.replayed_from} if outcome.replayed_from is not None else {}
        self.writer.emit("episode_end", {"rewards": tidy(outcome.rewards),
                                         "inventory_rewards": tidy(outcome.inventory_rewards),
                                         "transfers": transfers, "sim_seconds": outcome.sim_seconds, **replayed}, coords)
        last = self.meeting.outcome(episode.episode, outcome.rewards, kept, log.scores) \
            if self.meeting and kept is not None else None
        return outcome.handover, last
