"""Time windows make the GovSim optimum expressible: on the built-in commons (100 pumpkins, doubling every
60 s up to 100, 12 rounds), harvesting half the stock each round and everything in the last round gives
11 x 50 + 100 = 650. A hand contract says exactly that, the scripted cooperative players keep it, and the
formal judge scores every quota only over its window."""

from __future__ import annotations

import asyncio

from blockpact.agents.scripted import ScriptedCooperativeAgent
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.world_files import load_world

OPTIMUM = """1. Alex mines at most 13 pumpkins every 60 seconds during the first 11 rounds.
2. Blake mines at most 13 pumpkins every 60 seconds during the first 11 rounds.
3. Casey mines at most 12 pumpkins every 60 seconds during the first 11 rounds.
4. Drew mines at most 12 pumpkins every 60 seconds during the first 11 rounds.
5. In the last period each player mines at least 10 pumpkins.
6. All players share their rewards equally."""


def play(text: str):
    spec = load_world("commons")
    contract = parse_contract(text, sorted(spec.players), spec=spec)
    assert not contract.free_text(), contract.free_text()

    async def run():
        world = SimWorld(spec, seed=0)
        try:
            agents = {p: ScriptedCooperativeAgent(p, spec, contract) for p in sorted(spec.players)}
            await world.run_programs({p: a.proposal().code for p, a in agents.items()}, budget=spec.episode_seconds)
            world.finish()
            return list(world.events)
        finally:
            await world.close()

    obs = observables_from_events(spec, asyncio.run(run()))
    return obs, judge_formal(contract, obs)


def test_a_hand_contract_reaches_the_commons_optimum_and_keeps_every_windowed_quota() -> None:
    obs, judgment = play(OPTIMUM)
    harvested = sum(obs.collected[p].get("pumpkin", 0) for p in obs.players)
    assert harvested == 650
    assert [c["status"] for c in judgment.clauses] == ["kept"] * 5 + ["settled"]
    last_round = [t for t, p, b in obs.digs if t - obs.start_time >= 660]
    assert len(last_round) == 100  # the whole stock, in the last period only
