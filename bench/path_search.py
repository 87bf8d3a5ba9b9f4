"""CPU per path search (`Grid.path`, what every walking primitive of the simulator runs) on a built-in
world: from each player's spawn to within reach of each block of one kind; prints JSON.

    .venv/bin/python bench/path_search.py                # cleanup, to each water block
    .venv/bin/python bench/path_search.py --world double_vein --block iron_ore
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from blockpact.worlds.grid import within_reach
from blockpact.worlds.state import WorldState
from blockpact.worlds.world_files import load_world


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", default="cleanup")
    parser.add_argument("--block", default="water")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    state = WorldState(load_world(args.world))
    starts = list(state.positions.values())
    targets = state.find_blocks(args.block, starts[0], 1e9, 10_000)
    reach = 4.5
    per_search, found = [], 0
    for _ in range(args.repeats):
        started, found = time.process_time(), 0
        for start in starts:
            for target in targets:
                found += state.grid.path(start, lambda c, t=target: within_reach(c, t, reach)) is not None
        per_search.append((time.process_time() - started) / (len(starts) * len(targets)))
    print(json.dumps({"bench": "path_search", "world": args.world, "block": args.block, "searches": len(starts) * len(targets),
                      "found": found, "ms_per_search_median": round(statistics.median(per_search) * 1000, 3),
                      "repeats": args.repeats, "load_avg_1m": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
