"""One simulated world with many scripted players: wall and CPU time per simulated minute, memory, and primitive round trips, by crowd size.

    .venv/bin/python bench/sim_scale.py --crowds 16 64 128 256 --seconds 30 --repeats 3 --latency 8 256

For each size N a crowd world (`blockpact world new NAME --crowd N`: each player digs its own dirt block, all pick
pumpkins from one shared row) is played by `blockpact run WORLD --seeds 1 --contract none` in a child process, the
scripted greedy players on the simulator. Measured per run: wall seconds, CPU seconds of the run and everything it
waited for (its Node runtime too), the largest resident set among them, and the run's welfare (the same on every
repeat: the outcome is deterministic). Sizes are measured in turn within each repeat, and medians are reported.
Prints one JSON line per size, then one with the ratios of the largest size to the smallest.

With --latency N...: for each N, the same crowd episode is played in this process (SimWorld.run_programs with the
scripted greedy players' programs, packed as `blockpact run` packs them), and every primitive call's round trip is
timed: from Python sending the answer to a call to the same program's next call arriving in Python (Python -> Node's
main thread -> the program's sandbox worker -> its next call -> Python), p50 and p99 over all calls of all players,
with the time a call then waits for its turn on the simulated clock left out. Calls answered at the same simulated
instant reach Node together, so a round trip includes waiting behind the others answered with it. One JSON line per
N ("latency"), then one with the ratio of the largest N's p50 and p99 to the smallest's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from blockpact.agents.scripted.greedy import ScriptedGreedyAgent
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.bridge.sim import SimBody, SimWorld
from blockpact.worlds.crowd import crowd_world_text
from blockpact.worlds.world_files import load_world

BLOCKPACT = [sys.executable, "-m", "blockpact.cli"]


def play(crowd: int, seconds: float, workdir: Path, repeat: int) -> dict:
    world = workdir / f"crowd{crowd}.toml"
    world.write_text(crowd_world_text(f"crowd{crowd}", crowd, seconds), encoding="utf-8")
    out = workdir / f"run{crowd}-{repeat}"
    started = time.perf_counter()
    child = subprocess.Popen([*BLOCKPACT, "run", str(world), "--seeds", "1", "--contract", "none", "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    errors = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crowd {crowd}: blockpact run failed ({status}): {errors[-2000:]}")
    metrics = json.loads((out / "metrics.json").read_text())
    [run] = metrics["conditions"]["none"]["runs"]
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
            "welfare": run["welfare"]}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


TICKS = "async function ticks(bot) {{\n  for (let i = 0; i < {calls}; i++) await bot.waitForTicks(1);\n}}"


async def round_trips(crowd: int, seconds: float, workdir: Path, calls: int) -> dict:
    """The crowd episode in this process, with each call's round trip timed (see the module docstring); with `calls`,
    every player's program instead waits one tick `calls` times (cheap calls, back to back)."""
    world_file = workdir / f"latency{crowd}.toml"
    world_file.write_text(crowd_world_text(f"latency{crowd}", crowd, seconds), encoding="utf-8")
    spec = load_world(str(world_file))
    answered: dict[str, float] = {}  # player -> when Python sent its last answer
    trips: list[float] = []
    settle, on_request = SimBody._settle, SimBody._on_request

    def timed_settle(self: SimBody, call_id: int, ok: bool, payload: str, *cost: float) -> None:
        settle(self, call_id, ok, payload, *cost)
        answered[self.player] = time.perf_counter()

    def timed_request(self: SimBody, call_id: int, kind: str, name: str, args_json: str) -> None:
        sent = answered.pop(self.player, None)
        if sent is not None and kind == "call":
            trips.append((time.perf_counter() - sent) * 1000)
        on_request(self, call_id, kind, name, args_json)

    SimBody._settle, SimBody._on_request = timed_settle, timed_request  # type: ignore[method-assign]
    world = SimWorld(spec, seed=0)
    try:
        facts = WorldFacts(spec)
        programs = {p: TICKS.format(calls=calls) if calls else ScriptedGreedyAgent(p, spec, facts).proposal().code
                    for p in spec.players}
        started = time.perf_counter()
        results = await world.run_programs(programs, budget=seconds + 10, trusted=set(programs))
        wall = time.perf_counter() - started
    finally:
        SimBody._settle, SimBody._on_request = settle, on_request  # type: ignore[method-assign]
        await world.close()
    lost = [f"{p}: {r.failure}: {r.error}" for p, r in results.items() if r.failure in ("bridge", "sandbox")]
    if lost:
        raise SystemExit(f"latency {crowd}: programs lost: {lost[:3]}")
    return {"latency": crowd, "program": f"{calls} x waitForTicks(1)" if calls else "greedy", "calls": len(trips), "round_trip_p50_ms": round(statistics.median(trips), 3),
            "round_trip_p99_ms": round(percentile(trips, 0.99), 3), "episode_wall_s": round(wall, 2),
            "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}


def ratios(runs: dict[int, dict], small: int, large: int) -> dict:
    """The largest size's wall, CPU and memory over the smallest's, within one repeat (measured in turn)."""
    return {key: round(runs[large][key] / runs[small][key], 2) for key in ("wall", "cpu", "max_rss_mb")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowds", type=int, nargs="*", default=[16, 64, 128, 256])
    parser.add_argument("--seconds", type=float, default=30.0, help="simulated seconds an episode lasts")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--latency", type=int, nargs="*", default=[], metavar="N",
                        help="crowd sizes whose primitive round trips to time (in this process)")
    parser.add_argument("--latency-calls", type=int, default=0, metavar="K",
                        help="time K back-to-back waitForTicks(1) calls per player instead of the greedy programs")
    args = parser.parse_args()
    results: dict[int, list[dict]] = {n: [] for n in args.crowds}
    with tempfile.TemporaryDirectory(prefix="blockpact-sim-scale-") as tmp:
        for repeat in range(args.repeats):
            for n in args.crowds:
                results[n].append(play(n, args.seconds, Path(tmp), repeat))
        for n, runs in results.items():
            minutes = args.seconds / 60
            wall, cpu = statistics.median(r["wall"] for r in runs), statistics.median(r["cpu"] for r in runs)
            rss = statistics.median(r["max_rss_mb"] for r in runs)
            print(json.dumps({"crowd": n, "repeats": len(runs), "simulated_seconds": args.seconds,
                              "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                              "wall_per_simulated_minute_s": round(wall / minutes, 2), "max_rss_mb": round(rss, 1),
                              "rss_per_agent_mb": round(rss / n, 2), "welfare": sorted({r["welfare"] for r in runs}),
                              "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}), flush=True)
        if len(results) > 1:
            small, large = min(results), max(results)
            each = [ratios({n: runs[i] for n, runs in results.items()}, small, large) for i in range(args.repeats)]
            print(json.dumps({"ratio": f"{large}/{small}", "agents": large / small, "per_repeat": each}))
        latency = {}
        for n in args.latency:
            latency[n] = asyncio.run(round_trips(n, args.seconds, Path(tmp), args.latency_calls))
            print(json.dumps(latency[n]), flush=True)
        if len(latency) > 1:
            few, many = min(latency), max(latency)
            print(json.dumps({"latency_ratio": f"{many}/{few}",
                              "p50": round(latency[many]["round_trip_p50_ms"] / latency[few]["round_trip_p50_ms"], 2),
                              "p99": round(latency[many]["round_trip_p99_ms"] / latency[few]["round_trip_p99_ms"], 2)}))


if __name__ == "__main__":
    main()
