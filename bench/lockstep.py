"""Lockstep's cost and effect: Double-Vein's scripted players on the embedded server, free-running and in lockstep.

    .venv/bin/python bench/lockstep.py --conditions none negotiate --repeats 3

Each repeat plays one episode of seed 0 per (condition, mode), the modes interleaved so that a busier minute of a
shared machine falls on both; one embedded server for all. Reported per episode: wall seconds of the programs (the
first program_start to the last program_end, from the episode's events), seconds the simulated twin took to plan the
batch (lockstep only), the rewards per player, and lockstep's own account (shared actions followed / scheduled, why
it was given up). Per (condition, mode): the median play seconds, the distinct reward splits seen, and whether every
episode ended as the simulator's does. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.world import LiveWorld
from blockpact.bridge.sim import SimWorld
from blockpact.experiments import ScriptedNegotiation, play_scripted_episode
from blockpact.worlds.world_files import load_world


def episode(server: EmbeddedServer, spec, contract: str | None, lockstep: bool, out: Path) -> dict:
    planned: list[float] = []

    def factory(spec, seed=0):
        world = LiveWorld(spec, seed, server=server, lockstep=lockstep)
        if world.lockstep is not None:
            schedule = world.lockstep.twin.schedule

            async def timed(*args):
                begun = time.perf_counter()
                entries = await schedule(*args)
                planned.append(time.perf_counter() - begun)
                return entries

            world.lockstep.twin.schedule = timed  # type: ignore[method-assign]
        return world

    outcome, events = asyncio.run(play_scripted_episode(spec, contract, factory, out))
    starts = [e.time for e in events if e.kind == "program_start"]
    ends = [e.time for e in events if e.kind == "program_end"]
    status = [e.data for e in events if e.kind == "lockstep"]
    return {"play_s": round(max(ends) - min(starts), 2), "plan_s": round(sum(planned), 3) if lockstep else None,
            "rewards": outcome.inventory_rewards, "lockstep": status[0] if status else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conditions", nargs="+", default=["none"], choices=["none", "negotiate"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spec = load_world("double_vein")
    contracts = {"none": None}
    if "negotiate" in args.conditions:
        result = asyncio.run(ScriptedNegotiation().negotiate(spec, 0))
        contracts["negotiate"] = result.contract
    server = EmbeddedServer().start()
    rows: dict[str, list[dict]] = {}
    simulated: dict[str, dict] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for condition in args.conditions:
                outcome, _ = asyncio.run(play_scripted_episode(spec, contracts[condition], SimWorld, Path(tmp) / f"sim-{condition}"))
                simulated[condition] = outcome.inventory_rewards
            for repeat in range(args.repeats):
                for condition in args.conditions:
                    for lockstep in (False, True):
                        key = f"{condition} {'lockstep' if lockstep else 'free'}"
                        out = Path(tmp) / f"{key.replace(' ', '-')}-{repeat}"
                        rows.setdefault(key, []).append(episode(server, spec, contracts[condition], lockstep, out))
    finally:
        server.stop()
    summary = {}
    for key, episodes in rows.items():
        condition = key.split()[0]
        splits = sorted({json.dumps(e["rewards"], sort_keys=True) for e in episodes})
        summary[key] = {"median_play_s": statistics.median(e["play_s"] for e in episodes),
                        "median_plan_s": statistics.median(e["plan_s"] for e in episodes) if "lockstep" in key else None,
                        "splits": [json.loads(s) for s in splits],
                        "all_as_simulated": all(e["rewards"] == simulated[condition] for e in episodes)}
    print(json.dumps({"simulated": simulated, "summary": summary, "episodes": rows,
                      "load_avg": os.getloadavg(), "cores": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()
