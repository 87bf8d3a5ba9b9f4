"""Hostile programs against the simulator body: how each ends, how long it takes, and the Node process's memory.

    .venv/bin/python bench/hostile_programs.py [--compute-budget 5] [--dir tests/programs/hostile]

Runs every program of the directory in turn on one SimBody (one Node runtime), each followed by a normal
program on the same body. Prints one JSON object: per program its failure kind, limit, error, wall seconds,
and whether the next program succeeded; and the Node process's peak resident set (VmHWM) over all of them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path

from blockpact.bridge.runtime import runtime
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.world_files import load_world

ROOT = Path(__file__).resolve().parent.parent
NORMAL = "async function main(bot) {\n  await bot.waitForTicks(2);\n  bot.chat('still here');\n  return 1;\n}\n"


def _peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


async def _bench(directory: Path, compute_budget: float) -> dict[str, object]:
    world = SimWorld(load_world(ROOT / "tests" / "worlds" / "bridge_parity.toml"), compute_budget=compute_budget)
    body = world.body("Gizmo")
    rows = []
    try:
        for path in sorted(directory.glob("*.js"), key=lambda p: (int(p.name.split("_")[0]) if p.name.split("_")[0].isdigit() else 1_000_000, p.name)):
            started = time.monotonic()
            result = await body.run(path.read_text())
            seconds = time.monotonic() - started
            after = await body.run(NORMAL)
            rows.append({"program": path.name, "failure": result.failure, "limit": result.limit, "error": (result.error or "")[:120],
                         "seconds": round(seconds, 2), "next_program_ok": after.success})
    finally:
        await world.close()
    node = runtime()
    peak = _peak_rss_mb(node.pid)
    node.close()
    return {"compute_budget_s": compute_budget, "node_peak_rss_mb": round(peak), "programs": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compute-budget", type=float, default=5.0)
    parser.add_argument("--dir", type=Path, default=ROOT / "tests" / "programs" / "hostile")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(_bench(args.dir, args.compute_budget)), indent=1))


if __name__ == "__main__":
    main()
