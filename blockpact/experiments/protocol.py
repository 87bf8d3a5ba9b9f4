"""The experiment protocol per condition and seed: contract (none, given or negotiated) → episodes → outcome.

Who plays is pluggable: an `EpisodeEngine` plays one episode (agents act, a judge may rule) and
reports through an `EpisodeLog`; a `ContractNegotiation` produces the contract for the "negotiate"
condition. The protocol owns the run coordinates and the events that frame them, so every engine's
output lands in events.jsonl the same way. A failing seed is logged and the run goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import platform
import subprocess
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from blockpact import __version__
from blockpact.config import PROJECT_ROOT
from blockpact.errors import UserError
from blockpact.experiments.records import ConditionSpec
from blockpact.experiments.run_events import Coords, EventWriter
from blockpact.worlds.events import Event, EventLog
from blockpact.worlds.spec import WorldSpec


@dataclass(frozen=True)
class EpisodeInput:
    spec: WorldSpec
    seed: int  # the world seed; the same for every episode of a seed, so episodes differ only by what agents learnt
    condition: str
    contract: str | None
    episode: int
    critiques: Mapping[str, str]  # per player, from the previous episode (empty in the first)


@dataclass
class EpisodeOutcome:
    rewards: dict[str, float]  # emeralds after transfers
    inventory_rewards: dict[str, float]  # value of inventories before transfers
    transfers: dict[str, float]  # zero-sum
    critiques: dict[str, str]  # handed to the next episode
    sim_seconds: float


class EpisodeLog:
    """An engine's channel into events.jsonl, bound to one (condition, seed, episode)."""

    def __init__(self, writer: EventWriter, coords: Coords) -> None:
        self.writer = writer
        self.coords = coords

    def world(self, event: Event) -> None:
        self.writer.emit("world", {"event": event.to_json()}, self.coords)

    def follow(self, log: EventLog) -> None:
        """Record every world event of `log`: those already in it, then each new one as it happens."""
        for event in log.events:
            self.world(event)
        log.listeners.append(self.world)

    def program_result(self, result: Mapping[str, Any], code: str | None = None) -> None:
        """`result` has ProgramResult.to_json()'s fields; the observation is left out (the world events hold it)."""
        data = {k: v for k, v in result.items() if k != "observation"}
        self.writer.emit("program_result", {**data, "code": code}, self.coords)

    def critique(self, player: str, source: str, text: str) -> None:
        self.writer.emit("critique", {"player": player, "source": source, "text": text}, self.coords)

    def judgment(self, source: str, transfers: Mapping[str, float], critiques: Mapping[str, str],
                 reasoning: str = "") -> None:
        self.writer.emit("judgment", {"source": source, "transfers": dict(transfers), "critiques": dict(critiques),
                                      "reasoning": reasoning}, self.coords)


class EpisodeEngine(Protocol):
    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome: ...


class NegotiationOutcome(Protocol):
    """Matches blockpact.agents.negotiation.NegotiationResult."""

    contract: str | None
    accepted_round: int | None
    turns: Sequence[Any]  # NegotiationTurn: round, player, thinking, message, proposal, accept, raw, source, error


class ContractNegotiation(Protocol):
    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationOutcome: ...


@dataclass(frozen=True)
class Participants:
    engine: EpisodeEngine
    negotiation: ContractNegotiation


@dataclass(frozen=True)
class RunPlan:
    spec: WorldSpec
    backend: str
    agents: str
    conditions: list[ConditionSpec]
    seeds: list[int]
    episodes: int

    @property
    def total_episodes(self) -> int:
        return len(self.conditions) * len(self.seeds) * self.episodes


def participants_for(agents: str, backend: str) -> Participants:
    """The agents and body behind a run. Only scripted agents on the simulator exist so far."""
    if backend != "sim":
        raise UserError(f"--backend {backend} is not available yet: the live-server protocol is still being built "
                        "(use --backend sim)")
    if agents != "scripted":
        raise UserError(f"--agents {agents} is not available yet: the LLM agents are still being built "
                        "(use --agents scripted)")
    from blockpact.experiments.scripted import ScriptedNegotiation, ScriptedSimEngine

    return Participants(ScriptedSimEngine(), ScriptedNegotiation())


def versions(spec: WorldSpec) -> dict[str, str | None]:
    return {
        "blockpact": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "minecraft": spec.mc_version,
        "git_commit": _git_commit(),
    }


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
    spec = plan.spec
    return {
        "world": spec.name,
        "world_path": str(spec.source) if spec.source else None,
        "world_source": spec.source.read_text(encoding="utf-8") if spec.source else None,
        "backend": plan.backend,
        "agents": plan.agents,
        "conditions": [dataclasses.asdict(c) for c in plan.conditions],
        "seeds": plan.seeds,
        "episodes": plan.episodes,
        "players": sorted(spec.players),
        "values": {p: dict(s.values) for p, s in sorted(spec.players.items())},
        "episode_seconds": spec.episode_seconds,
        "versions": versions(spec),
    }


def _turn_data(turn: Any) -> dict[str, Any]:
    fields = ("round", "player", "thinking", "message", "proposal", "accept", "raw", "error")
    source = getattr(turn, "source", "llm")
    return {**{f: getattr(turn, f, None) for f in fields}, "source": source, "scripted": source == "scripted"}


class RunProtocol:
    """Runs a plan and writes its events; constructed once per run."""

    def __init__(self, plan: RunPlan, participants: Participants, writer: EventWriter) -> None:
        self.plan = plan
        self.participants = participants
        self.writer = writer

    async def run(self) -> None:
        self.writer.emit("run_start", run_start_data(self.plan))
        status = "interrupted"
        try:
            for condition in self.plan.conditions:
                for seed in self.plan.seeds:
                    await self.run_seed(condition, seed)
            status = "complete"
        finally:
            self.writer.emit("run_end", {"status": status})

    async def run_seed(self, condition: ConditionSpec, seed: int) -> None:
        coords = Coords(condition.name, seed)
        self.writer.emit("seed_start", {}, coords)
        try:
            contract = await self.contract(condition, seed, coords)
            critiques: Mapping[str, str] = {}
            for index in range(self.plan.episodes):
                critiques = await self.episode(EpisodeInput(self.plan.spec, seed, condition.name, contract, index,
                                                            critiques), coords.at(episode=index))
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # one seed's failure is a result to report, not the end of the run
            self.writer.emit("seed_error", {"error": f"{type(exc).__name__}: {exc}",
                                            "traceback": traceback.format_exc()}, coords)
            self.writer.emit("seed_end", {"status": "error"}, coords)
            return
        self.writer.emit("seed_end", {"status": "ok"}, coords)

    async def contract(self, condition: ConditionSpec, seed: int, coords: Coords) -> str | None:
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
        self.writer.emit("contract", {"text": text, "source": source, "accepted_round": accepted}, coords)
        return text

    async def episode(self, episode: EpisodeInput, coords: Coords) -> dict[str, str]:
        self.writer.emit("episode_start", {"world_seed": episode.seed, "contract": episode.contract,
                                           "critiques": dict(episode.critiques)}, coords)
        outcome = await self.participants.engine.play(episode, EpisodeLog(self.writer, coords))
        self.writer.emit("transfers", {"transfers": outcome.transfers}, coords)
        self.writer.emit("episode_end", {"rewards": outcome.rewards, "inventory_rewards": outcome.inventory_rewards,
                                         "transfers": outcome.transfers, "sim_seconds": outcome.sim_seconds}, coords)
        return outcome.critiques
