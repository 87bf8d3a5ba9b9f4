"""Mixed populations: each player slot filled by its own kind of agent (a scenario's [players]).

An LLM focal player among scripted background players, two LLM models against each other, or a
defector (`scripted:greedy`) among conditional cooperators: negotiation, play, critique and judging
go through the same protocol as uniform runs; only who answers for each slot differs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from blockpact.agents.action import ActionAgent
from blockpact.agents.critic import Critic, CriticProtocol, Critique, ScriptedCritic
from blockpact.agents.negotiation import LLMNegotiator, NegotiationResult, ScriptedNegotiator, negotiate
from blockpact.agents.negotiation_plan import social_optimum_clauses
from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.scripted.appraisal import Appraiser
from blockpact.agents.scripted.contract_search import best_contract
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.bridge.sim import SimWorld
from blockpact.errors import UserError
from blockpact.experiments.play.human import HUMAN, HumanAgent, HumanCritic, HumanNegotiator
from blockpact.experiments.play.judging import Judges
from blockpact.experiments.play.protocol import EpisodeInput, Participants
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.plan.settings import run_settings
from blockpact.experiments.play.episode_engine import Minds, WorldEpisodeEngine, WorldFactory
from blockpact.judge.contract import parse_contract, render_contract
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import Completion, LLMClient, Message
    from blockpact.llm.settings import LLMSettings
    from blockpact.llm import Budget
    from blockpact.bridge.protocols import ProgramResult
    from blockpact.bridge.live.human_seats import HumanSeats


def llm_model(kind: str) -> str | None:
    """`llm:MODEL` -> MODEL; `llm` -> None (the endpoint's configured model)."""
    return kind.partition(":")[2] or None


class ModelClient:
    """One slot's view of the run's client: its model in every request (the seed is added below it)."""

    def __init__(self, client: Any, model: str | None) -> None:
        self.client = client
        self.model = model

    async def complete(self, role: str, messages: Sequence[Message], **overrides: Any) -> Completion:
        if self.model is not None:
            overrides = {"model": self.model, **overrides}
        return await self.client.complete(role, messages, **overrides)


class PlayerCritic:
    """Each player's runs reviewed by its own kind of critic (the LLM critic of its model, or scripted)."""

    def __init__(self, critics: Mapping[str, CriticProtocol]) -> None:
        self.critics = critics

    async def critique(self, task: str, result: ProgramResult, contract: str | None = None,
                       outcome: str | None = None) -> Critique:
        return await self.critics[result.player].critique(task, result, contract, outcome)


class PopulationCast:
    """The minds of an episode for a population {player: kind}."""

    def __init__(self, population: Mapping[str, str], judge_model: str | None, apply_llm_judge: bool,
                 client: LLMClient | None, run_dir: RunDir, seats: HumanSeats | None = None) -> None:
        self.population = dict(population)
        self.judge_model = judge_model
        self.apply_llm_judge = apply_llm_judge
        self.client = client
        self.seats = seats  # the people in `human` slots (experiments/play/human.py)
        self.libraries = None
        if any(k.startswith("llm") for k in self.population.values()):  # not for scripted ones: imports `openai`
            from blockpact.experiments.play.llm_players import SkillLibraries

            self.libraries = SkillLibraries(run_dir)

    def client_for(self, seed: int, model: str | None) -> ModelClient:
        from blockpact.experiments.play.llm_players import SeededClient
        from blockpact.experiments.plan.settings import run_settings

        if self.client is None:
            raise ValueError("an LLM slot needs the run's LLM client")
        seeded = SeededClient(self.client, seed) if run_settings().llm.seed_requests else self.client
        return ModelClient(seeded, model)

    def __call__(self, episode: EpisodeInput) -> Minds:
        from blockpact.agents.action import LLMActionAgent
        from blockpact.agents.reflection import LLMReflector
        from blockpact.agents.voyager_loop import LLMSkillDescriber
        from blockpact.judge.llm_judge import LLMJudge

        spec = episode.spec
        facts = WorldFacts(spec)
        players = sorted(spec.players)
        agents: dict[str, ActionAgent] = {}
        critics: dict[str, CriticProtocol] = {}
        libraries = {}
        reflectors = {}
        describer = None
        for p in players:
            kind = self.population[p]
            if kind.startswith("llm"):
                client = self.client_for(episode.seed, llm_model(kind))
                assert self.libraries is not None
                libraries[p] = self.libraries(episode, p)
                agents[p] = LLMActionAgent(client, p, spec, libraries[p])
                critics[p] = Critic(client)
                reflectors[p] = LLMReflector(client, spec)
                describer = describer or LLMSkillDescriber(client)
            elif kind == HUMAN:
                agents[p] = HumanAgent(p)
                critics[p] = HumanCritic()
            else:
                agents[p] = scripted_agent(kind, p, spec, episode.contract, facts)
                critics[p] = ScriptedCritic()
        judge = None
        if self.judge_model is not None:
            judge = LLMJudge(self.client_for(episode.seed, self.judge_model))
        return Minds(agents, PlayerCritic(critics), Judges(llm=judge, apply_llm=self.apply_llm_judge), libraries,
                     describer, reflectors)


def scripted_agent(kind: str, player: str, spec: WorldSpec, contract: str | None, facts: WorldFacts) -> ActionAgent:
    """`scripted`: keeps the contract if any, else greedy; `scripted:greedy`: always greedy;
    `scripted:cooperative`: keeps the contract, and without one plays its part of the social optimum."""
    players = sorted(spec.players)
    if kind == "scripted:greedy" or (kind == "scripted" and contract is None):
        return ScriptedGreedyAgent(player, spec, facts)
    text = contract if contract is not None else render_contract(social_optimum_clauses(spec), world=spec.name)
    return ScriptedCooperativeAgent(player, spec, parse_contract(text, players, spec=spec), facts)


class PopulationMembers:
    """The members of an institution's meetings, each slot as its kind: an LLM slot asks the run's client (its
    model, the seed's view), a scripted one proposes and votes by its kind (agents/scripted/voting.py)."""

    def __init__(self, cast: PopulationCast) -> None:
        self.cast = cast

    def __call__(self, spec: WorldSpec, budget: float | None) -> Callable[[int], dict[str, Any]]:
        from blockpact.agents.meeting_member import LLMMember
        from blockpact.agents.scripted.voting import ScriptedMember

        scripted = {p: ScriptedMember(p, kind, spec, budget) for p, kind in self.cast.population.items()
                    if kind.startswith("scripted")}

        def seat(seed: int) -> dict[str, Any]:
            members: dict[str, Any] = dict(scripted)
            for p, kind in self.cast.population.items():
                if kind.startswith("llm"):
                    members[p] = LLMMember(self.cast.client_for(seed, llm_model(kind)), p, spec)
            return members

        return seat


class PopulationNegotiation:
    """Each slot negotiates as its kind: the LLM negotiator of its model, or the scripted negotiator."""

    def __init__(self, cast: PopulationCast) -> None:
        self.cast = cast

    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationResult:
        negotiators: list[Any] = []
        found = None
        for p in sorted(spec.players):
            kind = self.cast.population[p]
            if kind.startswith("llm"):
                negotiators.append(LLMNegotiator(self.cast.client_for(seed, llm_model(kind)), p, spec))
            elif kind == HUMAN:
                assert self.cast.seats is not None
                negotiators.append(HumanNegotiator(p, spec, self.cast.seats))
            else:  # the contract search's best, and an appraisal of what the others propose (outside options kept)
                budget = spec.episode_seconds + run_settings().episode.budget_margin_seconds
                found = found or await best_contract(spec, budget=budget)
                clauses = found.best.candidate.clauses if found.best.admissible else ()
                negotiators.append(ScriptedNegotiator(p, spec, clauses=clauses, reason=found.summary(),
                                                      appraise=Appraiser(spec, p, found, budget=budget)))
        return await negotiate(negotiators)


def population_participants(population: Mapping[str, str], judge_model: str | None, apply_llm_judge: bool,
                            run_dir: RunDir, llm: LLMSettings | None,
                            world_factory: WorldFactory = SimWorld, budget: Budget | None = None) -> Participants:
    uses_llm = judge_model is not None or any(k.startswith("llm") for k in population.values())
    client = None
    if uses_llm:
        if llm is None:
            raise ValueError("LLM slots need LLM settings")
        from blockpact.llm.client import LLMClient
        from blockpact.experiments.play.llm_players import TRANSCRIPT, CallLog

        client = LLMClient(llm, transcript=run_dir.transcripts / TRANSCRIPT, budget=budget)
    humans = sorted(p for p, kind in population.items() if kind == HUMAN)
    seats = None
    if humans:
        if not hasattr(world_factory, "seat_humans"):
            raise UserError("a `human` slot needs a live server (backend \"minecraft\"): on the simulator nobody "
                            "can join to play it")
        seats = world_factory.seat_humans(humans)
    cast = PopulationCast(population, judge_model, apply_llm_judge, client, run_dir, seats)
    if client is None:
        return Participants(WorldEpisodeEngine(cast, world_factory), PopulationNegotiation(cast),
                            members=PopulationMembers(cast))
    calls = CallLog(client)  # every call an llm_call event, as in an all-LLM run (accounting, budget)
    return Participants(WorldEpisodeEngine(cast, world_factory), PopulationNegotiation(cast), aclose=client.aclose,
                        bind=calls.bind, stop_reason=calls.stop_reason, members=PopulationMembers(cast))


def plan_participants(plan: Any, run_dir: RunDir, llm: LLMSettings | None,
                      worlds: WorldFactory | None = None, budget: Budget | None = None) -> Participants:
    """The participants of a scenario run's RunPlan (its population and judge, as recorded in run_start)."""
    judge = plan.judge or {}
    return population_participants(plan.population, judge.get("llm"), bool(judge.get("apply_llm", True)), run_dir,
                                   llm, worlds or SimWorld, budget)
