"""Bodies under load: primitive round trips on the simulator, and how many live bots one Node runtime keeps acting.

    .venv/bin/python bench/bridge.py --calls 2000 --bots 8 16 32 64 --rounds 3

(a) Simulator: one program (then two at once) calls a cheap primitive back to back on SimWorld; the gaps
between successive calls arriving in Python are full round trips (Python answers -> JS main thread ->
sandbox worker -> next call -> Python), taken as p50/p99.
(b) Live: for each bot count, one MineflayerWorld (one Node runtime) logs the bots into the embedded server
at once, then every bot runs a program that walks between two cells of the yard and chats, `--rounds`
times. Counted: bots spawned, programs that succeeded, bots still connected afterwards.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
from blockpact.bridge.sim import SimBody, SimWorld
from blockpact.bridge.live.world_compiler import build_world_on_server
from blockpact.worlds.world_files import load_world

ROOT = Path(__file__).resolve().parent.parent
YARD = ROOT / "tests" / "worlds" / "bridge_parity.toml"
TIGHT_LOOP = "async function ping(bot) {{\n  for (let i = 0; i < {calls}; i++) await sendSignal(bot, 'ping');\n}}"
PACE = """async function pace(bot) {{
  for (let i = 0; i < {rounds}; i++) {{
    await moveTo(bot, new Vec3({x}, 64, {z}), 1);
    await moveTo(bot, new Vec3({x2}, 64, {z2}), 1);
    bot.chat('round ' + i);
  }}
}}"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def sim_round_trips(calls: int, players: list[str]) -> dict[str, float | int]:
    arrivals: dict[str, list[float]] = defaultdict(list)
    original = SimBody._on_request

    def timed(self: SimBody, call_id: int, kind: str, name: str, args_json: str) -> None:
        if kind != "stop":
            arrivals[self.player].append(time.perf_counter())
        original(self, call_id, kind, name, args_json)

    SimBody._on_request = timed  # type: ignore[method-assign]
    world = SimWorld(load_world(YARD), seed=0)
    try:
        started = time.perf_counter()
        results = await world.run_programs({p: TIGHT_LOOP.format(calls=calls) for p in players}, budget=calls * 10)
        wall = time.perf_counter() - started
    finally:
        SimBody._on_request = original  # type: ignore[method-assign]
        await world.close()
    failed = [r.error for r in results.values() if not r.success]
    if failed:
        raise SystemExit(f"simulator programs failed: {failed}")
    gaps = [(b - a) * 1000 for times in arrivals.values() for a, b in zip(times, times[1:])]
    return {"programs": len(players), "calls": len(gaps), "p50_ms": round(statistics.median(gaps), 3),
            "p99_ms": round(percentile(gaps, 0.99), 3), "calls_per_s": round(calls * len(players) / wall)}


async def live_bots(server: EmbeddedServer, count: int, rounds: int) -> dict[str, float | int]:
    world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
    names = [f"bench{count}_{i}" for i in range(count)]
    try:
        started = time.perf_counter()
        joined = await asyncio.gather(*(world.connect(name) for name in names), return_exceptions=True)
        connect_s = time.perf_counter() - started
        bodies = [b for b in joined if not isinstance(b, BaseException)]
        programs = {}
        for i, body in enumerate(bodies):
            x, z = i % 10, 6 + (i // 10) % 4  # the free rows of the yard (ore and chest are at z <= 4)
            programs[body.player] = PACE.format(rounds=rounds, x=x, z=z, x2=9 - x, z2=15 - z)
        started = time.perf_counter()
        results = await world.run_programs(programs, budget=120)
        act_s = time.perf_counter() - started
        durations = [r.duration for r in results.values() if r.success]
        still = len(server.request("players"))
    finally:
        await world.close()
    errors = sorted({r.error for r in results.values() if not r.success})
    return {
        "bots": count, "spawned": len(bodies), "connect_all_s": round(connect_s, 2),
        "programs_ok": len(durations), "act_all_s": round(act_s, 2),
        "program_median_s": round(statistics.median(durations), 2) if durations else None,
        "still_connected": still, "errors": errors[:3],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="primitive calls per simulator program")
    parser.add_argument("--bots", type=int, nargs="+", default=[8, 16, 32, 64], help="live bot counts to try")
    parser.add_argument("--rounds", type=int, default=3, help="walk-and-chat rounds per live program")
    args = parser.parse_args()
    out: dict[str, object] = {"simulator": [await sim_round_trips(args.calls, ["Gizmo"]), await sim_round_trips(args.calls, ["Gizmo", "Glitch"])]}
    live = []
    with EmbeddedServer() as server:
        await build_world_on_server(server, load_world(YARD))
        for count in args.bots:
            live.append(await live_bots(server, count, args.rounds))
    out["live"] = live
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
