"""Scripted (deterministic, no LLM) participants: every output they produce is labelled "scripted".

Negotiation: the scripted negotiators of blockpact.agents.negotiation; the first proposes the
contract the search of blockpact.agents.scripted.contract_search found best on the simulator (saying what it
optimised), the others accept it. Play: E's JavaScript
players run through the program runner: `ScriptedGreedyAgent` without a contract,
`ScriptedCooperativeAgent` under one (it follows the clauses in the controlled form and says in its
explanation which ones it cannot follow). The scripted critic reviews the runs; the formal judge
settles the contract.
"""

from __future__ import annotations

import json
from pathlib import Path

from blockpact.agents.action import ActionAgent
from blockpact.agents.scripted.appraisal import Appraiser
from blockpact.agents.scripted.contract_search import best_contract
from blockpact.agents.critic import ScriptedCritic
from blockpact.agents.negotiation import NegotiationResult, ScriptedNegotiator, negotiate
from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.experiments.play.judging import Judges
from blockpact.experiments.play.protocol import EpisodeInput, EpisodeLog, EpisodeOutcome, Participants
from blockpact.experiments.log.run_events import Coords, EventWriter
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.episode_engine import Minds, WorldEpisodeEngine, WorldFactory
from blockpact.experiments.play.episode_replay import EpisodeReplays
from blockpact.experiments.plan.settings import run_settings
from blockpact.judge.contract import parse_contract
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec


class ScriptedNegotiation:
    """`replays`: where the search's episodes are recorded, so the negotiate condition's seed-0 episode
    (the same game as the search's play of the winning contract) replays it instead of playing it again."""

    def __init__(self, replays: EpisodeReplays | None = None) -> None:
        self.replays = replays

    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationResult:
        # The programs' budget the episodes give them (episode_engine), so the search's episodes are theirs.
        budget = spec.episode_seconds + run_settings().episode.budget_margin_seconds
        recorder = self.replays.recorder("the contract search") if self.replays is not None else None
        found = await best_contract(spec, world_factory=recorder, budget=budget)
        clauses = found.best.candidate.clauses if found.best.admissible else ()  # nothing beats no contract for all
        return await negotiate([
            ScriptedNegotiator(p, spec, clauses=clauses, reason=found.summary(),
                               appraise=Appraiser(spec, p, found, budget=budget))
            for p in sorted(spec.players)
        ])


def scripted_minds(episode: EpisodeInput) -> Minds:
    spec = episode.spec
    players = sorted(spec.players)
    facts = WorldFacts(spec)
    agents: dict[str, ActionAgent]
    if episode.contract is None:
        agents = {p: ScriptedGreedyAgent(p, spec, facts) for p in players}
    else:
        contract = parse_contract(episode.contract, players, spec=spec)
        agents = {p: ScriptedCooperativeAgent(p, spec, contract, facts) for p in players}
    return Minds(agents, ScriptedCritic(), Judges())


def scripted_participants(world_factory: WorldFactory = SimWorld) -> Participants:
    """On the simulator (the default `world_factory`), episodes the contract search has played are replayed."""
    if world_factory is not SimWorld:
        return Participants(WorldEpisodeEngine(scripted_minds, world_factory), ScriptedNegotiation())
    replays = EpisodeReplays()
    return Participants(WorldEpisodeEngine(scripted_minds, replays.world), ScriptedNegotiation(replays))


async def play_scripted_episode(spec: WorldSpec, contract: str | None, world_factory: WorldFactory,
                                out: Path) -> tuple[EpisodeOutcome, list[Event]]:
    """Seed 0 of `spec` played once by the scripted players under `contract` (None: none) on the worlds
    `world_factory(spec, seed)` makes, logged to out/events.jsonl; the outcome and the world events. For checks and
    benches that compare backends episode by episode (the parity matrix, bench/lockstep.py)."""
    engine = WorldEpisodeEngine(scripted_minds, world_factory=world_factory)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "events.jsonl"
    with EventWriter(path) as writer:
        outcome = await engine.play(EpisodeInput(spec, 0, "c", contract, 0), EpisodeLog(writer, Coords("c", 0, 0)))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return outcome, [Event(**e["data"]["event"]) for e in lines if e["kind"] == "world"]
