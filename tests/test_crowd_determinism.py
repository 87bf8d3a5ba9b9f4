"""A crowd world played by scripted players gives one outcome: two runs of the same seed record the same events and
results, and packing the trusted programs into shared sandbox workers changes nothing (real Node, real SES)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from blockpact.agents.scripted.greedy import ScriptedGreedyAgent
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.crowd import crowd_world_text
from blockpact.worlds.world_files import load_world


def _crowd(tmp_path: Path, players: int):
    path = tmp_path / f"crowd{players}.toml"
    path.write_text(crowd_world_text(f"crowd{players}", players, 30), encoding="utf-8")
    return load_world(str(path))


def _play(spec, *, packed: bool):
    """(world events, program results, rewards) of one episode from seed 0 of the greedy players' programs."""
    facts = WorldFacts(spec)
    programs = {p: ScriptedGreedyAgent(p, spec, facts).proposal().code for p in spec.players}
    world = SimWorld(spec, seed=0)

    async def play():
        try:
            return await world.run_programs(programs, budget=40, trusted=set(programs) if packed else ())
        finally:
            await world.close()

    results = asyncio.run(play())
    world.finish()
    events = [(e.time, e.agent, e.kind, e.data) for e in world.events]
    return events, {p: r.to_json() for p, r in results.items()}, {p: world.state.reward(p) for p in spec.players}


def test_two_runs_of_a_32_player_crowd_give_the_same_outcome(tmp_path: Path) -> None:
    spec = _crowd(tmp_path, 32)
    first, second = _play(spec, packed=True), _play(spec, packed=True)
    events, results, rewards = first
    assert all(r["success"] or r["failure"] == "cancelled" or r["timed_out"] for r in results.values()), results
    assert sum(rewards.values()) > 0
    assert sum(1 for e in events if e[2] == "block") >= 32, "every player dug at least its dirt block"
    assert second[2] == rewards
    assert second[1] == results
    assert second[0] == events


def test_packed_and_unpacked_programs_play_the_same_episode(tmp_path: Path) -> None:
    spec = _crowd(tmp_path, 6)
    assert _play(spec, packed=True) == _play(spec, packed=False)
