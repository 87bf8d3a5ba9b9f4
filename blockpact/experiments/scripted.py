"""Scripted (deterministic, no LLM) participants on the Python simulator.

Negotiation: the scripted negotiators of blockpact.agents.negotiation (the first proposes the
social-optimum contract, the other accepts it). Play: the Python policies of sim_policies, `greedy`
without a contract and `social_split` under one (scripted players cannot read a contract, so any
contract text stands for "play the welfare-maximising split"). The formal judge then settles the
contract on the episode's events.
"""

from __future__ import annotations

import asyncio
from typing import Any

from blockpact.agents.negotiation import NegotiationResult, ScriptedNegotiator, negotiate
from blockpact.experiments.judging import settle
from blockpact.experiments.protocol import EpisodeInput, EpisodeLog, EpisodeOutcome
from blockpact.experiments.sim_policies import POLICIES
from blockpact.worlds.simulator import ProgramOutcome, Simulation
from blockpact.worlds.spec import WorldSpec


class ScriptedNegotiation:
    async def negotiate(self, spec: WorldSpec, seed: int) -> NegotiationResult:
        return await negotiate([ScriptedNegotiator(p, spec) for p in sorted(spec.players)])


def _program_result(sim: Simulation, outcome: ProgramOutcome) -> dict[str, Any]:
    chat = [e.data["message"] for e in sim.state.log.of_kind("chat") if e.agent == outcome.agent]
    return {
        "player": outcome.agent,
        "success": outcome.success,
        "error": outcome.error,
        "error_line": None,
        "stack": None,
        "chat": chat,
        "logs": [],
        "duration": outcome.ended - outcome.started,
        "timed_out": not outcome.success and outcome.ended >= sim.spec.episode_seconds,
    }


class ScriptedSimEngine:
    """Plays an episode on the Python simulator with the scripted policies, then the judge settles it."""

    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome:
        spec = episode.spec
        sim = Simulation(spec, seed=episode.seed)
        log.follow(sim.state.log)
        policy = "greedy" if episode.contract is None else "social_split"
        outcomes = await sim.run({p: POLICIES[policy] for p in spec.players})
        sim.finish()
        for player in sorted(outcomes):
            log.program_result(_program_result(sim, outcomes[player]), code=f"scripted policy: {policy}")
        s = settle(spec, episode.contract, sim.state.log.events, log)
        return EpisodeOutcome(s.rewards, s.inventory_rewards, s.transfers, s.critiques, sim.now)


def run_policy(spec: WorldSpec, policy: str, seed: int) -> Simulation:
    """One finished episode in which every player runs `policy` (for checks of the dilemmas)."""
    sim = Simulation(spec, seed=seed)
    asyncio.run(sim.run({p: POLICIES[policy] for p in spec.players}))
    sim.finish()
    return sim
