"""One simulated world with many scripted players: wall and CPU time per simulated minute, and memory, by crowd size.

    .venv/bin/python bench/sim_scale.py --crowds 16 64 128 256 --seconds 30 --repeats 1

For each size N a crowd world (`blockpact world new NAME --crowd N`: each player digs its own dirt block, all pick
pumpkins from one shared row) is played by `blockpact run WORLD --seeds 1 --contract none` in a child process, the
scripted greedy players on the simulator. Measured per run: wall seconds, CPU seconds of the run and everything it
waited for (its Node runtime too), the largest resident set among them, and the run's welfare (the same on every
repeat: the outcome is deterministic). Sizes are measured in turn within each repeat, and medians are reported.
Prints one JSON line per size, then one with the ratios of the largest size to the smallest.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from blockpact.worlds.crowd import crowd_world_text

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crowds", type=int, nargs="+", default=[16, 64, 128, 256])
    parser.add_argument("--seconds", type=float, default=30.0, help="simulated seconds an episode lasts")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    results: dict[int, list[dict]] = {n: [] for n in args.crowds}
    with tempfile.TemporaryDirectory(prefix="blockpact-sim-scale-") as tmp:
        for repeat in range(args.repeats):
            for n in args.crowds:
                results[n].append(play(n, args.seconds, Path(tmp), repeat))
    rows = {}
    for n, runs in results.items():
        minutes = args.seconds / 60
        wall, cpu = statistics.median(r["wall"] for r in runs), statistics.median(r["cpu"] for r in runs)
        rss = statistics.median(r["max_rss_mb"] for r in runs)
        rows[n] = {"crowd": n, "repeats": len(runs), "simulated_seconds": args.seconds,
                   "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                   "wall_per_simulated_minute_s": round(wall / minutes, 2), "max_rss_mb": round(rss, 1),
                   "rss_per_agent_mb": round(rss / n, 2), "welfare": sorted({r["welfare"] for r in runs}),
                   "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2)}
        print(json.dumps(rows[n]), flush=True)
    small, large = min(rows), max(rows)
    if small != large:
        print(json.dumps({"ratio": f"{large}/{small}", "agents": large / small,
                          "wall": round(rows[large]["wall_s"] / rows[small]["wall_s"], 2),
                          "cpu": round(rows[large]["cpu_s"] / rows[small]["cpu_s"], 2),
                          "max_rss": round(rows[large]["max_rss_mb"] / rows[small]["max_rss_mb"], 2)}))


if __name__ == "__main__":
    main()
