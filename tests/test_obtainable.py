"""Values on items nobody in a world can come to hold are warned about (a value on `melon` where melon blocks
drop `melon_slice`: the world would load, run and count 0 without a word)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.worlds.rules import obtainable
from blockpact.bridge.live.world_compiler import compile_world
from blockpact.worlds.rules.obtainable import obtainable_items, smelting_uses, unobtainable_values
from blockpact.worlds.world_files import BUILTIN_DIR, load_world


def _double_vein_with(tmp_path: Path, old: str, new: str, name: str) -> Path:
    """Double-Vein with one line of its file changed."""
    text = (BUILTIN_DIR / "double_vein.toml").read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


def _double_vein_valuing(tmp_path: Path, extra: str) -> Path:
    return _double_vein_with(tmp_path, "values = { raw_iron = 4, diamond = 4 }",
                             f"values = {{ raw_iron = 4, diamond = 4, {extra} }}", "dv.toml")


def _double_vein_with_chest(tmp_path: Path, items: str) -> Path:
    return _double_vein_with(tmp_path, "items = { stone_pickaxe = 1, iron_pickaxe = 1 }",
                             f"items = {{ stone_pickaxe = 1, iron_pickaxe = 1, {items} }}", "dv_chest.toml")


def test_drops_chests_recipes_and_furnaces_count_and_nothing_else(tmp_path: Path) -> None:
    have = obtainable_items(load_world("double_vein"))
    assert {"raw_iron", "diamond", "iron_pickaxe", "stone_pickaxe", "cobblestone"} <= have  # drops and the chest
    assert not {"melon", "wheat", "diamond_sword"} & have  # a sword needs sticks: no wood here
    # no wood: no crafting table for a 3x3 recipe (a diamond block, a furnace), and nothing to burn
    assert not {"iron_ingot", "iron_block", "diamond_block", "crafting_table", "furnace"} & have
    spec = load_world(_double_vein_valuing(tmp_path, "melon = 2, iron_ingot = 1, emerald = 1"))
    assert [path for path, _ in unobtainable_values(spec)] == ["players.Gizmo.values.iron_ingot", "players.Gizmo.values.melon"]
    assert all(unobtainable_values(load_world(w)) == [] for w in ("double_vein", "cleanup", "commons", "cleanup_mp", "forest"))


def test_crafting_tables_furnaces_and_fuel_come_from_what_can_be_had(tmp_path: Path) -> None:
    """Logs make planks make a crafting table (2x2 recipes); with it, the stone floor's cobblestone makes a
    furnace; logs burn: then smelting, and 3x3 recipes of what it makes."""
    have = obtainable_items(load_world(_double_vein_with_chest(tmp_path, "oak_log = 3")))
    assert {"oak_planks", "crafting_table", "furnace", "iron_ingot", "iron_block", "diamond_block"} <= have
    table_only = obtainable_items(load_world(_double_vein_with_chest(tmp_path, "crafting_table = 1")))
    assert {"diamond_block", "furnace", "iron_ingot"} <= table_only  # the table itself burns (smelting.toml)
    coal_only = obtainable_items(load_world(_double_vein_with_chest(tmp_path, "coal = 8")))
    assert not {"furnace", "iron_ingot"} & coal_only  # fuel, but no table to make a furnace with
    furnace_and_coal = obtainable_items(load_world(_double_vein_with_chest(tmp_path, "coal = 8, furnace = 1")))
    assert "iron_ingot" in furnace_and_coal and "iron_block" not in furnace_and_coal  # 3x3: still no table
    assert "iron_ingot" not in obtainable_items(load_world(_double_vein_with_chest(tmp_path, "coal = 8, furnace = 1")),
                                                furnaces=False)


def test_validate_and_run_say_so_where_the_user_looks(tmp_path: Path, capsys) -> None:
    world = _double_vein_valuing(tmp_path, "melon = 2")
    assert main(["world", "validate", str(world)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out
    line = next(i for i, text in enumerate(world.read_text().splitlines(), 1) if "melon = 2" in text)
    assert f"warning: {world}:{line}: players.Gizmo.values.melon: no block of this world drops melon" in out
    assert main(["run", str(world), "--seeds", "1", "--contract", "none", "--out", str(tmp_path / "run")]) == 0
    said = f"{world}:{line}: players.Gizmo.values.melon: no block of this world drops melon"
    assert f"blockpact: warning: world double_vein: {said}" in capsys.readouterr().err
    # and where a reader of the run's files looks, after the run (not on stderr only)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert [w for w in metrics["warnings"] if said in w] and said in (tmp_path / "run" / "report.html").read_text()


@pytest.mark.parametrize("scenario", [False, True])
def test_a_run_works_out_the_world_warnings_once(tmp_path: Path, monkeypatch, capsys, scenario: bool) -> None:
    """Said on stderr by the checks before the run and recorded in run_start: one computation for both (it was
    done twice), from flags and from a scenario file."""
    calls = []

    def counted(spec):
        calls.append(spec.name)
        return real(spec)

    real = obtainable.world_warnings
    monkeypatch.setattr(obtainable, "world_warnings", counted)
    world = _double_vein_valuing(tmp_path, "melon = 2")
    target = world
    if scenario:
        target = tmp_path / "scenario.toml"
        target.write_text(f'[scenario]\nworld = "{world}"\nseeds = 1\n\n[[conditions]]\ncontract = "none"\n')
    assert main(["run", str(target), "--seeds", "1", "--contract", "none", "--out", str(tmp_path / "run")]
                if not scenario else ["run", str(target), "--out", str(tmp_path / "run")]) == 0
    assert calls == ["double_vein"]
    assert "players.Gizmo.values.melon: no block" in capsys.readouterr().err
    (warning,) = read_run(tmp_path / "run" / "events.jsonl").config.world_warnings
    assert "players.Gizmo.values.melon: no block" in warning


def test_what_takes_a_furnace_is_unsupported_on_blockpacts_server_before_play(tmp_path: Path) -> None:
    """The embedded server opens no furnace window; a world whose play takes one (a furnace on its map, a value on
    what only a furnace makes) ran live with a plain zero for it and no word. compile_world
    now lists it as unsupported there, which the live world logs and announces before anyone plays; an external
    (vanilla) server smelts."""
    assert all(smelting_uses(load_world(w)) == [] for w in ("double_vein", "cleanup", "commons", "cleanup_mp", "forest"))
    text = _double_vein_valuing(tmp_path, "iron_ingot = 9").read_text().replace("iron_pickaxe = 1 }", "iron_pickaxe = 1, coal = 4 }")
    smeltery = tmp_path / "smeltery.toml"
    smeltery.write_text(text.replace('"................",\n  "..II', '"....F...........",\n  "..II', 1)
                        .replace('"D" = "diamond_ore"', '"D" = "diamond_ore"\n"F" = "furnace"'))
    spec = load_world(smeltery)
    assert smelting_uses(spec) == ["a furnace at [4, 64, 1]", "iron_ingot is valued and only a furnace makes it"]
    (part,) = compile_world(spec).unsupported
    assert part.startswith("smelting: blockpact's server opens no furnace window (a furnace at [4, 64, 1]; iron_ingot")
    assert compile_world(spec, plugin=False).unsupported == []
    # what a chest already holds is not "only a furnace makes it"
    stocked = load_world(_double_vein_valuing(tmp_path, "iron_pickaxe = 1"))
    assert smelting_uses(stocked) == []
