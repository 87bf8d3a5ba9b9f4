"""Live episodes on the embedded server: episode wall time and the world master's tick overhead.

    .venv/bin/python bench/live.py --worlds double_vein cleanup --seconds 90 60

Each world plays one episode under the scripted negotiated contract, through the same episode engine
as the simulator, on one embedded flying-squid server (scripted players: deterministic, no LLM). Reported
per world: setup seconds (build the world, read it back, log the bots in), play seconds (programs, plus
the world running on to the episode's end when it has dynamics), finish seconds (last drain, read-back,
snapshot), the world master's ticks (count, p50/p99/max ms; a tick drains the journals and, with dynamics,
reads the rules' regions back and applies them), events recorded, dynamics commands sent, and the rewards.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path

import blockpact.experiments.sim_engine as sim_engine
from blockpact.bridge.embedded_server import EmbeddedServer
from blockpact.bridge.live_world import LiveWorld
from blockpact.experiments.protocol import EpisodeInput, EpisodeLog
from blockpact.experiments.run_events import Coords, EventWriter
from blockpact.experiments.scripted import ScriptedNegotiation, scripted_minds
from blockpact.worlds.loader import load_world


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else 0.0


async def episode(server: EmbeddedServer, world: str, seconds: float, out: Path) -> dict:
    spec = dataclasses.replace(load_world(world), episode_seconds=seconds)
    contract = (await ScriptedNegotiation().negotiate(spec, 0)).contract
    made: list[tuple[LiveWorld, float]] = []

    def factory(spec, seed=0):
        world = LiveWorld(spec, seed, server=server)
        made.append((world, time.time()))
        finish = world.finish

        def timed_finish():
            begun = time.time()
            event = finish()
            world.finish_seconds = time.time() - begun  # type: ignore[attr-defined]
            world.play_ended = begun  # type: ignore[attr-defined]
            return event

        world.finish = timed_finish  # type: ignore[method-assign]
        return world

    begun = time.time()
    with EventWriter(out / f"{world}.jsonl") as writer:
        outcome = await sim_engine.WorldEpisodeEngine(scripted_minds, factory).play(
            EpisodeInput(spec, 0, "negotiate", contract, 0), EpisodeLog(writer, Coords("negotiate", 0, 0)))
    total = time.time() - begun
    (live, created), = made
    ticks = live.master.stats
    return {
        "world": world, "episode_seconds": seconds, "wall_seconds": round(total, 2),
        "setup_seconds": round(live.master.started_at - created, 2),
        "play_seconds": round(live.play_ended - live.master.started_at, 2),
        "finish_seconds": round(live.finish_seconds, 3),
        "ticks": len(ticks.durations), "tick_p50_ms": _ms(ticks.durations, 0.5), "tick_p99_ms": _ms(ticks.durations, 0.99),
        "tick_max_ms": _ms(ticks.durations, 1.0), "tick_mean_ms": round(1000 * statistics.fmean(ticks.durations), 2),
        "events_recorded": ticks.events, "dynamics_commands": ticks.commands,
        "rewards": outcome.rewards, "welfare": sum(outcome.rewards.values()),
    }


async def main(worlds: list[str], seconds: list[float]) -> dict:
    server = EmbeddedServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return {"worlds": [await episode(server, w, s, Path(tmp)) for w, s in zip(worlds, seconds, strict=True)]}
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", nargs="+", default=["double_vein", "cleanup"])
    parser.add_argument("--seconds", nargs="+", type=float, default=[90.0, 60.0])
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.worlds, args.seconds)), indent=2))
