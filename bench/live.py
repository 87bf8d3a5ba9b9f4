"""Live episodes on the embedded server: episode wall time and the world master's tick overhead.

    .venv/bin/python bench/live.py --worlds double_vein cleanup --seconds 90 60

Each world plays one episode under the scripted negotiated contract, through the same Runner as
`blockpact run --backend minecraft` (experiments/play/runner.py; this bench only supplies a world factory that
times the world's phases), on one embedded flying-squid server (scripted players: deterministic, no LLM).
Reported per world: wall seconds of the whole one-unit run (scripted negotiation, episode, metrics.json and
report; no plots), setup seconds (build the world, read it back, log the bots in), play seconds (programs, plus
the world running on to the episode's end when it has dynamics), finish seconds (last drain, read-back,
snapshot), the world master's ticks (count, p50/p99/max ms; a tick drains the journals and, with dynamics,
reads the rules' regions back and applies them), events recorded, dynamics commands sent, and the rewards.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
from pathlib import Path

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.world import LiveWorld
from blockpact.experiments import ConditionSpec, RunOptions, Runner, RunPlan
from blockpact.worlds.world_files import load_world


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else 0.0


def episode(server: EmbeddedServer, world: str, seconds: float, out: Path) -> dict:
    spec = dataclasses.replace(load_world(world), episode_seconds=seconds)
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

    plan = RunPlan(spec, "minecraft", "scripted", [ConditionSpec("negotiate", "negotiate")], [0], 1)
    begun = time.time()
    outcome = Runner.create(plan, out / world, RunOptions(worlds=factory, plots=False)).run()
    total = time.time() - begun
    unit, = outcome.units
    if unit.status != "completed":
        raise SystemExit(f"{world}: the episode did not complete ({unit.status}, {unit.cause}): {unit.message}")
    final = outcome.run.seeds[0].final
    assert final is not None and final.rewards is not None
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
        "rewards": final.rewards, "welfare": sum(final.rewards.values()),
    }


def main(worlds: list[str], seconds: list[float]) -> dict:
    server = EmbeddedServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return {"worlds": [episode(server, w, s, Path(tmp)) for w, s in zip(worlds, seconds, strict=True)]}
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", nargs="+", default=["double_vein", "cleanup"])
    parser.add_argument("--seconds", nargs="+", type=float, default=[90.0, 60.0])
    args = parser.parse_args()
    print(json.dumps(main(args.worlds, args.seconds), indent=2))
