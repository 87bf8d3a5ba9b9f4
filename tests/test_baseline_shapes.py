"""The scripted baselines on worlds of the shapes they used to fail on (tests/worlds/, each with its reference optimum
worked out by hand): `blockpact run WORLD` with the scripted negotiators reaches >= 90% of the reference, beats no
contract, leaves no player below its reward without a contract, and has Gini <= 0.1 where the players are alike;
`blockpact world optimum` reports the same welfare and the contract that reaches it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.worlds.world_files import load_world

WORLDS = Path(__file__).parent / "worlds"
SHAPES = {  # world -> whether its players are alike (same values, same place in the game)
    "obsidian_pact": True, "smithy_chain": False, "locked_pick": False, "twin_commons": True, "kelp_fishery": True,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_negotiated_contract_nears_the_optimum_and_leaves_nobody_worse_off(name: str, tmp_path: Path, capsys) -> None:
    world = str(WORLDS / f"{name}.toml")
    out = tmp_path / name
    assert main(["run", world, "--seeds", "1", "--out", str(out)]) == 0
    conditions = json.loads((out / "metrics.json").read_text())["conditions"]
    [none], [negotiated] = conditions["none"]["runs"], conditions["negotiate"]["runs"]
    reference = load_world(world).extra["reference"]["welfare"]
    welfare = sum(negotiated["rewards"].values())
    assert welfare >= 0.9 * reference and welfare > sum(none["rewards"].values())
    assert all(negotiated["rewards"][p] >= none["rewards"][p] - 0.01 for p in none["rewards"]), (negotiated, none)
    if SHAPES[name]:
        assert negotiated["gini"] <= 0.1
    capsys.readouterr()
    assert main(["world", "optimum", world, "--json"]) == 0
    optimum = json.loads(capsys.readouterr().out)
    assert optimum["optimum"]["welfare"] == pytest.approx(welfare) and optimum["optimum"]["contract"] == negotiated["contract"]
    assert optimum["reference_welfare"] == reference and "of the declared reference_welfare" in optimum["reference_check"]


VARIANTS = {"crystal_hunt": True, "forge_line": True, "heirloom": False, "orchard_clans": True, "reef_fishery": True}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_world_optimum_nears_the_reference_on_variants_of_each_shape(name: str, capsys) -> None:
    """Other mechanics than the worlds above (a table to place for a diamond pickaxe, a stone pickaxe from two hands, a
    tool lent out of an inventory into its owner's chest, clans of three, a faster fishery): the search's contract."""
    world = str(WORLDS / f"{name}.toml")
    assert main(["world", "optimum", world, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    best = found["optimum"]
    assert best["welfare"] >= 0.9 * found["reference_welfare"] and best["welfare"] > found["none"]["welfare"]
    assert all(best["rewards"][p] >= v - 0.01 for p, v in found["none"]["rewards"].items())
    if VARIANTS[name]:
        assert best["gini"] <= 0.1


def test_world_optimum_warns_when_the_declared_reference_is_below_what_the_search_reaches(tmp_path: Path, capsys) -> None:
    text = (WORLDS / "obsidian_pact.toml").read_text().replace("reference_welfare = 81", "reference_welfare = 50")
    world = tmp_path / "obsidian_pact.toml"
    world.write_text(text)
    assert main(["world", "optimum", str(world)]) == 0
    printed = capsys.readouterr()
    assert "optimum:      welfare 81" in printed.out and "searched:     2 candidates, 3 simulated episodes" in printed.out
    assert "1. Ivy deposits 1 diamond into the forge chest." in printed.out
    assert "warning:" in printed.err and "reference_welfare 50 is below the 81 the search reaches" in printed.err


def test_world_optimum_says_when_no_candidate_gains_over_no_contract(capsys) -> None:
    """A settlement that moves nothing is not an optimum: the contested vein's only candidate leaves welfare where it is."""
    world = str(WORLDS / "contested_vein.toml")
    assert main(["world", "optimum", world, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["optimum"] is None and found["optimum_missing"] == "no candidate raises welfare above no contract"
    assert main(["world", "optimum", world]) == 0
    text = capsys.readouterr().out
    assert "no candidate raises welfare above the no-contract 3" in text and "settled by" not in text
