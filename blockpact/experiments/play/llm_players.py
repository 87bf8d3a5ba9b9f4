"""LLM participants: negotiators, Voyager-style action agents with a skill library per player and
seed, the LLM critic, and the LLM judge next to the formal one, all through one LLMClient whose
every call goes to the run's transcripts/llm.jsonl (keys never do: the client holds them as secrets)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blockpact.agents.action import ActionAgent, LLMActionAgent
from blockpact.agents.critic import Critic
from blockpact.agents.reflection import LLMReflector
from blockpact.llm.budget import Budget, LLMBudgetSpent
from blockpact.llm.client import Completion, LLMClient, Message
from blockpact.llm.settings import LLMSettings
from blockpact.agents.negotiation import LLMNegotiator, NegotiationResult, negotiate
from blockpact.agents.voyager_loop import LLMSkillDescriber
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.judging import Judges
from blockpact.experiments.play.protocol import EpisodeInput, Participants
from blockpact.experiments.log.run_events import CURRENT_COORDS, EventWriter
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.plan.settings import run_settings
from blockpact.experiments.play.episode_engine import Minds, WorldEpisodeEngine, WorldFactory
from blockpact.judge.llm_judge import LLMJudge
from blockpact.skills.library import SkillLibrary
from blockpact.worlds.spec.schema import WorldSpec

TRANSCRIPT = "llm.jsonl"


class SeededClient:
    """The run's client with the run's seed in every request (the OpenAI `seed` sampling parameter).
    The seed is part of the response cache's key, so each seed is its own sample and a re-run of
    the same seed is answered from the cache."""

    def __init__(self, client: LLMClient, seed: int) -> None:
        self.client = client
        self.seed = seed

    async def complete(self, role: str, messages: Sequence[Message], **overrides: Any) -> Completion:
        return await self.client.complete(role, messages, **{"seed": self.seed, **overrides})


class SkillLibraries:
    """One library per (condition, seed, player) under the run directory: seeds stay independent
    samples, and a player's later episodes reuse what it learnt in the earlier ones."""

    def __init__(self, run_dir: RunDir) -> None:
        self.run_dir = run_dir
        self._open: dict[tuple[str, int, str], SkillLibrary] = {}

    def __call__(self, episode: EpisodeInput, player: str) -> SkillLibrary:
        key = (episode.condition, episode.seed, player)
        if key not in self._open:
            self._open[key] = SkillLibrary(self.run_dir.unit_skills(episode.condition, episode.seed) / player)
        return self._open[key]


class LLMCast:
    """The LLM minds of an episode, every role asking through the seed's view of one client."""

    def __init__(self, client: LLMClient, run_dir: RunDir) -> None:
        self.client = client
        self.libraries = SkillLibraries(run_dir)
        self.seeded = run_settings().llm.seed_requests
        self.apply_llm_judge = run_settings().judge.apply_llm_judge

    def client_for(self, seed: int) -> Any:
        """What the roles of this seed call (they only use `complete`)."""
        return SeededClient(self.client, seed) if self.seeded else self.client

    def __call__(self, episode: EpisodeInput) -> Minds:
        spec, client = episode.spec, self.client_for(episode.seed)
        libraries = {p: self.libraries(episode, p) for p in sorted(spec.players)}
        agents: dict[str, ActionAgent] = {p: LLMActionAgent(client, p, spec, lib) for p, lib in libraries.items()}
        judges = Judges(llm=LLMJudge(client), apply_llm=self.apply_llm_judge)
        reflectors = {p: LLMReflector(client, spec) for p in libraries}
        return Minds(agents, Critic(client), judges, libraries, LLMSkillDescriber(client), reflectors)


class LLMNegotiation:
    def __init__(self, cast: LLMCast) -> None:
        self.cast = cast

    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationResult:
        client = self.cast.client_for(seed)
        return await negotiate([LLMNegotiator(client, p, spec) for p in sorted(spec.players)])


class LLMMembers:
    """Every player an LLM member of the run's institution (a world's [institution] run with --agents llm)."""

    def __init__(self, cast: LLMCast) -> None:
        self.cast = cast

    def __call__(self, spec: WorldSpec, budget: float | None) -> Any:
        from blockpact.agents.meeting_member import LLMMember

        return lambda seed: {p: LLMMember(self.cast.client_for(seed), p, spec) for p in sorted(spec.players)}


class CallLog:
    """Puts every LLM call's accounting into events.jsonl as an `llm_call` event of the unit (and
    episode) it was made for, so metrics and the report count calls, tokens and cost from the log."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.budget_spent: str | None = None

    def bind(self, writer: EventWriter) -> None:
        def log(call: dict[str, Any]) -> None:
            if call["error"] and call["error"].startswith(f"{LLMBudgetSpent.__name__}:"):
                self.budget_spent = call["error"].split(": ", 1)[1]
            writer.emit("llm_call", call, CURRENT_COORDS.get())

        self.client.listeners.append(log)

    def stop_reason(self) -> str | None:
        return self.budget_spent


def llm_participants(settings: LLMSettings, run_dir: RunDir, world_factory: WorldFactory = SimWorld,
                     budget: Budget | None = None) -> Participants:
    client = LLMClient(settings, transcript=run_dir.transcripts / TRANSCRIPT, budget=budget)
    cast = LLMCast(client, run_dir)
    calls = CallLog(client)
    return Participants(WorldEpisodeEngine(cast, world_factory), LLMNegotiation(cast), aclose=client.aclose,
                        bind=calls.bind, stop_reason=calls.stop_reason, members=LLMMembers(cast))
