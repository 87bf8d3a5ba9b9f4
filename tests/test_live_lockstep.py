"""Lockstep (bridge/live/lockstep.py): the simulator writes down the order in which it served the shared actions of a
batch of programs, for a live episode to follow."""

from __future__ import annotations

import asyncio

from blockpact.agents.scripted.greedy import ScriptedGreedyAgent
from blockpact.bridge.live.lockstep import SimulatedTwin
from blockpact.worlds.world_files import load_world


def test_the_simulator_writes_down_its_order_of_shared_actions() -> None:
    """Each block search, dig and chest use, in the order the clock served them, with where the player stood."""
    twin = SimulatedTwin(load_world("double_vein"), 0)
    programs = {p: ScriptedGreedyAgent(p, twin.spec).proposal().code for p in ("Gizmo", "Glitch")}
    entries = asyncio.run(twin.schedule(programs, {}, None, None))
    asyncio.run(twin.close())
    assert [e["time"] for e in entries] == sorted(e["time"] for e in entries)
    chest = [e for e in entries if e["kind"] == "chest"]
    assert [e["player"] for e in chest] == ["Glitch", "Gizmo", "Gizmo"]  # Glitch takes the iron pickaxe first
    assert all(e["stand"] is not None and e["target"] == [6, 64, 7] for e in chest)
    digs = [e for e in entries if e["kind"] == "dig"]
    assert len(digs) == 18 and len({tuple(e["target"]) for e in digs}) == 18  # every ore block, once
    finds = [e for e in entries if e["kind"] == "find" and e["target"] is not None]
    assert all(e["stand"] is not None for e in finds)
    assert twin.world.sim.schedule is None  # asked for per batch only
