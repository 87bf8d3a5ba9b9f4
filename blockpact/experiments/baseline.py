"""Run scripted baseline policies on the simulator for several seeds and summarise the outcomes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from blockpact.experiments.sim_policies import POLICIES
from blockpact.judge.metrics import gini, mean_std, social_welfare
from blockpact.worlds.loader import load_world
from blockpact.worlds.simulator import Simulation


@dataclass
class EpisodeResult:
    condition: str
    seed: int
    rewards: dict[str, float]
    welfare: float
    gini: float
    sim_seconds: float


def run_episode(world: str, condition: str, seed: int) -> EpisodeResult:
    spec = load_world(world)
    sim = Simulation(spec, seed=seed)
    policy = POLICIES[condition]
    asyncio.run(sim.run({p: policy for p in spec.players}))
    sim.finish()
    rewards = {p: sim.state.reward(p) for p in sorted(spec.players)}
    return EpisodeResult(condition, seed, rewards, social_welfare(rewards), gini(rewards.values()), sim.now)


def summarise(results: list[EpisodeResult]) -> dict[str, dict[str, dict[str, float]]]:
    by_condition: dict[str, list[EpisodeResult]] = {}
    for r in results:
        by_condition.setdefault(r.condition, []).append(r)
    return {
        c: {"welfare": mean_std([r.welfare for r in rs]), "gini": mean_std([r.gini for r in rs])}
        for c, rs in by_condition.items()
    }
