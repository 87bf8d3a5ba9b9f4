"""Generate the trimmed minecraft-data extract shipped in the wheel.

The simulator and the step API need only a small part of minecraft-data (blocks, items, recipes and
tool materials of one version), yet minecraft-data comes from npm. Shipping that part as package data
lets `pip install blockpact` run the pure-Python engines without Node; Node stays needed only for
programs and live play. Regenerate after a minecraft-data upgrade with

    python -m blockpact.worlds.spec.mcdata_extract [VERSION ...]

(default: the pinned version of `defaults.toml`); `tests/test_mcdata_extract.py` checks the shipped
file equals what this produces from the installed minecraft-data.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from blockpact.config import NODE_MODULES
from blockpact.settings import default_mc_version
from blockpact.errors import UserError

NODE_DATA_ROOT = NODE_MODULES / "minecraft-data" / "minecraft-data" / "data"
EXTRACT_DIR = Path(__file__).resolve().parent.parent / "data" / "minecraft"

# Exactly the fields `mcdata.load` reads; everything else in minecraft-data is dropped.
BLOCK_FIELDS = ("id", "name", "hardness", "material", "harvestTools", "drops", "boundingBox")
ITEM_FIELDS = ("id", "name", "stackSize")
RECIPE_FIELDS = ("result", "inShape", "ingredients")
KINDS = ("blocks", "items", "materials", "recipes")


def extract_path(version: str) -> Path:
    return EXTRACT_DIR / f"{version}.json"


def node_data_paths() -> dict:
    """minecraft-data's index of versions in node_modules (a UserError naming the fix when absent)."""
    index = NODE_DATA_ROOT / "dataPaths.json"
    if not index.exists():
        raise UserError(f"minecraft-data is not installed ({index} is missing): run `npm ci` in {NODE_MODULES.parent}")
    with open(index) as f:
        return json.load(f)["pc"]


def read_node_raw(version: str) -> dict:
    """The untrimmed blocks/items/materials/recipes of `version` from node_modules."""
    paths = node_data_paths()
    if version not in paths:
        raise UserError(f"unknown Minecraft version {version!r} (minecraft-data knows {', '.join(sorted(paths)[-8:])}, ...)")
    raw = {}
    for kind in KINDS:
        with open(NODE_DATA_ROOT / paths[version][kind] / f"{kind}.json") as f:
            raw[kind] = json.load(f)
    return raw


def _pick(entry: dict, fields: tuple[str, ...]) -> dict:
    return {k: entry[k] for k in fields if k in entry}


def trim(raw: dict) -> dict:
    """The fields the Python engines read, in minecraft-data's order (recipe order matters: the first wins)."""
    return {
        "blocks": [_pick(b, BLOCK_FIELDS) for b in raw["blocks"]],
        "items": [_pick(i, ITEM_FIELDS) for i in raw["items"]],
        "materials": raw["materials"],
        "recipes": {rid: [_pick(v, RECIPE_FIELDS) for v in variants] for rid, variants in raw["recipes"].items()},
    }


def minecraft_data_package_version() -> str:
    with open(NODE_MODULES / "minecraft-data" / "package.json") as f:
        return json.load(f)["version"]


def generate(version: str) -> str:
    """The extract file's text for `version` (deterministic: same minecraft-data, same bytes)."""
    doc = {"version": version, "source": f"minecraft-data {minecraft_data_package_version()}", **trim(read_node_raw(version))}
    return json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", help="Minecraft versions (default: the pinned one)")
    args = parser.parse_args(argv)
    EXTRACT_DIR.mkdir(parents=True, exist_ok=True)
    for version in args.versions or [default_mc_version()]:
        text = generate(version)
        extract_path(version).write_text(text)
        print(f"{extract_path(version)}: {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
