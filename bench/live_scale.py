"""Many acting bots on the embedded server: how many join and how many programs succeed, over one or more Node
runtimes, with and without other processes keeping cores busy.

    .venv/bin/python bench/live_scale.py --bots 8 16 32 64 --runtimes 1 2 --busy 0 1

For each (bots, runtimes, busy): a fresh embedded server builds a yard with one dirt block per bot; `busy`
processes spin on the CPU the whole time; the bots are split over `runtimes` shard processes (each a Python
process with its own JSPyBridge Node runtime, the only way to put bots on several Node main threads from
Python); every shard logs its bots in at once, all shards start their programs together, and every bot
chats, walks to its own cell, digs its dirt block (a program that mined none fails), then walks and chats (`--rounds` times). Counted: bots
joined, programs that succeeded (and why the others failed, counted by cause), bots still connected after the
programs, dirt dug, wall seconds to join and to act, how late each runtime's main thread ran at worst while
joining and while acting (the bots answer the server's keep-alives there), errors closing a shard's bots, the
load average. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import re
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

COLUMNS = 8  # bots stand on a grid of lanes, 3 blocks apart
# Each bot walks up to its own dirt block: within 1 block of it, every other dirt block is at least 2 away, so the
# nearest dirt mineBlock finds is its own. (Walking to within 1 of the lane's cell instead left a bot coming from
# the spawn one block north of the cell, 1 from the row above's dirt and 2 from its own, and some dug their
# neighbour's block: a fault of the bench, counted as failed programs of the bots it left without one.)
PROGRAM = """async function work(bot) {{
  bot.chat('hello');
  await moveTo(bot, new Vec3({x}, 64, {dirt_z}), 1);
  const mined = await mineBlock(bot, 'dirt', 1);
  if (mined !== 1) throw new Error('mined ' + mined + ' dirt');
  for (let i = 0; i < {rounds}; i++) {{
    await moveTo(bot, new Vec3({x}, 64, {z2}), 1);
    await moveTo(bot, new Vec3({x}, 64, {z}), 1);
    bot.chat('round ' + i);
  }}
}}"""


def yard(bots: int) -> str:
    """A world file: a stone floor with one dirt block per bot, just south of its lane's cell."""
    width, depth = yard_size(bots)
    lines = [["." for _ in range(width)] for _ in range(depth)]
    for i in range(bots):
        x, z = cell(i)
        lines[z + 1][x] = "D"
    body = "\n".join(f'  "{"".join(row)}",' for row in lines)
    return (f'[world]\nname = "live_scale"\ndescription = "A yard with one dirt block per bot."\n'
            f"[map]\norigin = [0, 63, 0]\nsize = [{width}, 4, {depth}]\n"
            f'[map.legend]\n"D" = "dirt"\n[[map.layers]]\ny = 63\nfill = "stone"\n'
            f"[[map.layers]]\ny = 64\nrows = [\n{body}\n]\n"
            f"[players.Anyone]\nspawn = [0, 64, 0]\nvalues = {{ dirt = 1 }}\n[episode]\nseconds = 600\n")


def yard_size(bots: int) -> tuple[int, int]:
    """Width (x) and depth (z) of the yard: 8 lanes a row, 3 blocks apart, and room to walk."""
    return 3 * COLUMNS + 2, 3 * max(1, -(-bots // COLUMNS)) + 6


def cell(i: int) -> tuple[int, int]:
    return 1 + 3 * (i % COLUMNS), 1 + 3 * (i // COLUMNS)


def shard(port: int, version: str, lanes: dict[str, int], rounds: int, budget: float, barrier: Any, out: Any) -> None:
    """One shard process: its own Node runtime logs its bots in (name -> lane), waits for every shard, runs
    their programs."""
    from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress

    async def play() -> dict[str, Any]:
        world = MineflayerWorld(ServerAddress(port=port, version=version))
        try:
            started = time.perf_counter()
            joined = await asyncio.gather(*(world.connect(n) for n in lanes), return_exceptions=True)
            join_s = time.perf_counter() - started
            join_delay = _latest(world)
            bodies = [b for b in joined if not isinstance(b, BaseException)]
            join_errors = sorted({f"{type(b).__name__}: {b}"[:200] for b in joined if isinstance(b, BaseException)})
            await asyncio.to_thread(barrier.wait)
            programs = {}
            for body in bodies:
                x, z = cell(lanes[body.player])
                programs[body.player] = PROGRAM.format(rounds=rounds, x=x, z=z, z2=z + 2, dirt_z=z + 1)
            started = time.perf_counter()
            results = await world.run_programs(programs, budget=budget) if programs else {}
            act_s = time.perf_counter() - started
            act_delay = _latest(world)
            connected = _connected(world, [b.player for b in bodies])
        except BaseException:
            await world.close()
            raise
        try:  # a shard that cannot close its bots has still played: its results stand, and so does that failure
            await world.close()
            close_error = None
        except Exception as exc:  # noqa: BLE001 - reported
            close_error = f"{type(exc).__name__}: {exc}"[:300]
        return {"joined": len(bodies), "connected": connected, "join_s": join_s, "join_errors": join_errors, "act_s": act_s,
                "ok": [r.duration for r in results.values() if r.success], "close_error": close_error,
                "loop_delay_max_ms": {"join": join_delay, "act": act_delay},
                "errors": [f"{r.failure}: {r.error} (last said: {r.chat[-1] if r.chat else 'nothing'})"[:300]
                           for r in results.values() if not r.success]}

    try:
        out.put(asyncio.run(play()))
    except BaseException as exc:  # noqa: BLE001 - reported, not raised: the driver must hear from every shard
        barrier.abort()
        out.put({"joined": 0, "connected": 0, "join_s": 0, "join_errors": [f"shard failed: {type(exc).__name__}: {exc}"[:300]],
                 "act_s": 0, "ok": [], "errors": [], "close_error": None, "loop_delay_max_ms": None})


def _latest(world: Any) -> int | None:
    """How late the shard's runtime ran at worst since the last call, in ms; None once it is gone (the programs'
    results then say why, cause `bridge`, and must not be lost to this question)."""
    from blockpact.bridge.runtime import BridgeBroken

    try:
        return int(world.loop_delay()["max"])
    except BridgeBroken:
        return None


def _connected(world: Any, players: list[str]) -> int:
    """How many of `players` are still connected; none once the runtime is gone."""
    from blockpact.bridge.runtime import BridgeBroken

    try:
        return sum(world.connection_lost(p) is None for p in players)
    except BridgeBroken:
        return 0


def spinners(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def one_config(bots: int, runtimes: int, busy: int, rounds: int, budget: float, entity_range: int | None = None) -> dict[str, Any]:
    from blockpact.bridge.live.embedded_server import EmbeddedServer
    from blockpact.bridge.live.settings import live_settings
    from blockpact.bridge.live.world_compiler import build_world_on_server
    from blockpact.worlds.world_files import load_world

    ctx = multiprocessing.get_context("spawn")
    load_before = os.getloadavg()[0]
    spinning = spinners(busy)
    try:
        with EmbeddedServer(entity_range=entity_range) as server, tempfile.TemporaryDirectory(prefix="live-scale-") as tmp:
            world_file = Path(tmp) / "live_scale.toml"
            world_file.write_text(yard(bots))
            asyncio.run(build_world_on_server(server, load_world(world_file)))
            names = [f"s{bots}_{i}" for i in range(bots)]
            groups = [names[k::runtimes] for k in range(runtimes)]
            barrier, out = ctx.Barrier(runtimes), ctx.Queue()
            procs = [ctx.Process(target=shard, args=(server.port, server.version, {n: names.index(n) for n in group},
                                                     rounds, budget, barrier, out)) for group in groups]
            started = time.perf_counter()
            for p in procs:
                p.start()
            reports = [out.get(timeout=budget + 600) for _ in procs]
            wall = time.perf_counter() - started
            for p in procs:
                p.join(timeout=30)
            width, depth = yard_size(bots)
            left = server.request("countBlocks", **{"from": [0, 64, 0], "to": [width - 1, 64, depth - 1], "block": "dirt"})
    finally:
        for p in spinning:
            p.kill()
            p.wait()
    ok = [d for r in reports for d in r["ok"]]
    errors = [e for r in reports for e in r["errors"]]
    joined = sum(r["joined"] for r in reports)
    return {
        "bots": bots, "runtimes": runtimes, "busy_processes": busy,
        "entity_range": live_settings().server.entity_range if entity_range is None else entity_range, "joined": joined,
        "join_all_s": round(max(r["join_s"] for r in reports), 2), "programs_ok": len(ok),
        "programs_ok_fraction": round(len(ok) / bots, 3), "act_all_s": round(max(r["act_s"] for r in reports), 2),
        "program_median_s": round(statistics.median(ok), 2) if ok else None,
        "connected_at_end": sum(r["connected"] for r in reports), "dirt_dug": bots - int(left.get("dirt", 0)),
        "wall_s": round(wall, 2), "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
        "join_errors": sorted({e for r in reports for e in r["join_errors"]})[:3], "errors": sorted(set(errors))[:3],
        "close_errors": [r["close_error"] for r in reports if r["close_error"]],
        "loop_delay_max_ms": [r["loop_delay_max_ms"] for r in reports],
        "error_causes": collections.Counter(re.sub(r"-?\d+", "N", e) for e in errors).most_common(6),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--runtimes", type=int, nargs="+", default=[1], help="Node runtimes (shard processes) to split the bots over")
    parser.add_argument("--busy", type=int, nargs="+", default=[0], help="processes spinning on the CPU meanwhile")
    parser.add_argument("--rounds", type=int, default=2, help="chat-walk-dig rounds per program")
    parser.add_argument("--budget", type=float, default=180.0, help="wall seconds each program may take")
    parser.add_argument("--entity-range", type=int, default=None,
                        help="blocks within which the server sends a bot the other entities (default: live.toml's)")
    args = parser.parse_args()
    results = [one_config(b, r, busy, args.rounds, args.budget, args.entity_range)
               for busy in args.busy for r in args.runtimes for b in args.bots]
    print(json.dumps({"bench": "live_scale", "cpus": os.cpu_count(), "rounds": args.rounds, "results": results}))


if __name__ == "__main__":
    main()
