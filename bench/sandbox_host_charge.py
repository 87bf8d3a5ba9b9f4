"""What a synchronous bot query costs the simulator's host, to set what each query is charged (config.js
queryChargeMs) against a program's compute budget.

    .venv/bin/python bench/sandbox_host_charge.py [--queries 5000]

Runs one program making `--queries` `bot.blockAt` queries back to back (each a round trip: sandbox worker ->
Node's main thread -> Python -> back), with a compute budget large enough not to end it, and prints one JSON
object: wall seconds, the CPU seconds of the Python process and of the Node process over the run, and per query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from blockpact.bridge.runtime import runtime
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.world_files import load_world

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "tests" / "worlds" / "bridge_parity.toml"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / 100


async def _measure(queries: int) -> dict[str, float]:
    program = f"async function main(bot) {{\n  const p = bot.entity.position;\n  for (let i = 0; i < {queries}; i++) bot.blockAt(p);\n}}\n"
    world = SimWorld(load_world(WORLD), compute_budget=600.0)
    try:
        await world.run_programs({"Gizmo": "async function main(bot) { return 1; }"})  # worker started, modules loaded
        node = runtime().pid
        wall, python, node_cpu = time.monotonic(), time.process_time(), _cpu_seconds(node)
        result = (await world.run_programs({"Gizmo": program}))["Gizmo"]
        wall, python, node_cpu = time.monotonic() - wall, time.process_time() - python, _cpu_seconds(node) - node_cpu
    finally:
        await world.close()
    if not result.success:
        raise SystemExit(f"the measuring program failed: {result.error}")
    return {"queries": queries, "wall_s": round(wall, 2), "python_cpu_s": round(python, 2), "node_cpu_s": round(node_cpu, 2),
            "per_query_ms": {"wall": round(wall / queries * 1000, 3), "python_cpu": round(python / queries * 1000, 3),
                             "node_cpu": round(node_cpu / queries * 1000, 3)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    args = parser.parse_args()
    try:
        print(json.dumps(asyncio.run(_measure(args.queries)), indent=2))
    finally:
        runtime().close()


if __name__ == "__main__":
    main()
