"""The default drop tables, one data file that the Python engines and the server plugin both read.

A world file's `[drops]` overrides a block's drops; `data/drops.json` says what a block yields when the
world does not (where vanilla differs from minecraft-data's block list, e.g. mushroom blocks). The loader
merges it under each world's own table, so the simulator, the step API and the live world master (which
sends every drop table to the server) follow one edit of the file; the server plugin reads the same file
for servers run without a world master.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from blockpact.errors import UserError
from blockpact.worlds.spec.schema import Drop

DROPS_FILE = Path(__file__).resolve().parent.parent / "data" / "drops.json"


def default_drops() -> dict[str, Drop]:
    """Block -> Drop from `DROPS_FILE` (a UserError naming the file and key for a malformed entry)."""
    return _read(DROPS_FILE)


@cache
def _read(path: Path) -> dict[str, Drop]:
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: cannot read the default drop tables: {exc}") from None
    drops: dict[str, Drop] = {}
    for block, entry in raw.items():
        if block.startswith("_"):
            continue
        where = f"{path}: {block}"
        if not isinstance(entry, dict) or set(entry) - {"item", "counts", "weights"} or not isinstance(entry.get("item"), str):
            raise UserError(f"{where}: expected {{item, counts, weights}}, got {entry!r}")
        counts, weights = entry.get("counts", [1]), entry.get("weights")
        if not isinstance(counts, list) or not counts or not all(isinstance(c, int) and c >= 0 for c in counts):
            raise UserError(f"{where}.counts: got {counts!r} (expected a non-empty list of counts >= 0)")
        weights = [1.0 / len(counts)] * len(counts) if weights is None else weights
        if (not isinstance(weights, list) or len(weights) != len(counts)
                or not all(isinstance(w, (int, float)) and 0 <= w <= 1 for w in weights) or abs(sum(weights) - 1) > 1e-6):
            raise UserError(f"{where}.weights: got {weights!r} (expected one probability per count, summing to 1)")
        drops[block] = Drop(entry["item"], tuple(counts), tuple(float(w) for w in weights))
    return drops
