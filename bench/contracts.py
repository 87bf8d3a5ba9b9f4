"""The contract language's parser and the scripted negotiator's contract search.

    .venv/bin/python bench/contracts.py --clauses 2000 --worlds double_vein commons cleanup_mp tests/worlds/stag_hunt.toml

(a) Parsing: the example clauses of docs/contracts.md, `--clauses` parses in all (Lark's Earley
parser on the normalised tokens, then the tree to clause objects), first parses (cache cleared) and
repeated ones (the per-clause cache).
(b) Search: for each world, the candidates the search builds, the simulated episodes it plays (one per candidate and
the no-contract one, seed 0) and their wall time, the no-contract welfare, the best admissible candidate's welfare,
Gini and settlement, and its share of the world's declared reference_welfare.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path

from blockpact.agents.scripted.contract_search import search
from blockpact.judge.contract import parse_contract
from blockpact.judge import contract_grammar
from blockpact.judge.contract_grammar import _parse_cached
from blockpact.worlds.world_files import load_world

ROOT = Path(__file__).resolve().parent.parent


def _clear() -> None:
    """Forget every parse: the per-clause cache and the parse trees kept for step splitting."""
    _parse_cached.cache_clear()
    trees = getattr(contract_grammar, "_tree_or_error", None)
    if trees is not None:
        trees.cache_clear()


def _timed(clauses: list[str], count: int, fresh: bool) -> dict:
    start = time.perf_counter()
    done = 0
    while done < count:
        for line in clauses[: count - done]:
            if fresh:
                _clear()
            parse_contract(line, ["Ada", "Ben", "Cy"])
            done += 1
    seconds = time.perf_counter() - start
    return {"clauses": done, "seconds": round(seconds, 3), "clauses_per_second": round(done / seconds, 1),
            "ms_per_clause": round(1000 * seconds / done, 3)}


def parse_bench(count: int) -> dict:
    blocks = re.findall(r"```contract\n(.*?)```", (ROOT / "docs" / "contracts.md").read_text(), flags=re.S)
    clauses = [line for block in blocks for line in block.strip().splitlines()]
    start = time.perf_counter()
    parse_contract(clauses[0], ["Ada", "Ben", "Cy"])  # build the parser once, outside the timing
    build = time.perf_counter() - start
    return {"distinct_clauses": len(clauses), "parser_build_seconds": round(build, 3),
            "first_parse": _timed(clauses, count, fresh=True), "cached": _timed(clauses, count, fresh=False),
            "in_a_world": _world_timed(count)}


def _world_timed(count: int) -> dict:
    """The docs' `contract-world` examples read with tests/worlds/contract_language.toml (chests, regions,
    windows, conditions, steps), first parses only."""
    spec = load_world(ROOT / "tests" / "worlds" / "contract_language.toml")
    blocks = re.findall(r"```contract-world\n(.*?)```", (ROOT / "docs" / "contracts.md").read_text(), flags=re.S)
    clauses = [line for block in blocks if "Ann" in block for line in block.strip().splitlines()]
    start, done = time.perf_counter(), 0
    while done < count:
        for line in clauses[: count - done]:
            _clear()
            parse_contract(line, sorted(spec.players), spec=spec)
            done += 1
    seconds = time.perf_counter() - start
    return {"clauses": done, "distinct_clauses": len(clauses), "ms_per_clause": round(1000 * seconds / done, 3)}


def search_bench(world: str) -> dict:
    spec = load_world(world)
    start = time.perf_counter()
    result = asyncio.run(search(spec))
    reference = spec.extra.get("reference", {}).get("welfare")  # type: ignore[union-attr]
    best = result.best
    return {
        "world": spec.name, "players": len(spec.players), "episode_seconds": spec.episode_seconds,
        "candidates": len(result.evaluations), "episodes": result.episodes,
        "wall_seconds": round(time.perf_counter() - start, 2), "none_welfare": result.none_welfare,
        "best": best.candidate.name if best.admissible else None, "welfare": best.welfare if best.admissible else None,
        "gini": round(best.gini, 6) if best.gini is not None and best.admissible else None,
        "settlement": best.settlement if best.admissible else None, "reference_welfare": reference,
        "of_reference": round(best.welfare / reference, 3) if reference and best.admissible else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clauses", type=int, default=2000)
    parser.add_argument("--worlds", nargs="*", default=["double_vein", "commons", "cleanup_mp"])
    args = parser.parse_args()
    print(json.dumps({"parse": parse_bench(args.clauses), "search": [search_bench(w) for w in args.worlds]}, indent=1))


if __name__ == "__main__":
    main()
