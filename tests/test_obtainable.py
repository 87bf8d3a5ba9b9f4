"""Values on items nobody in a world can come to hold are warned about (a new user valued `melon` where melon blocks
drop `melon_slice`: the world loaded, ran and counted 0 without a word)."""

from __future__ import annotations

from pathlib import Path

from blockpact.cli import main
from blockpact.worlds.rules.obtainable import obtainable_items, unobtainable_values
from blockpact.worlds.world_files import BUILTIN_DIR, load_world


def _double_vein_valuing(tmp_path: Path, extra: str) -> Path:
    text = (BUILTIN_DIR / "double_vein.toml").read_text()
    old = "values = { raw_iron = 4, diamond = 4 }"
    assert old in text
    path = tmp_path / "dv.toml"
    path.write_text(text.replace(old, f"values = {{ raw_iron = 4, diamond = 4, {extra} }}"))
    return path


def test_drops_chests_recipes_and_furnaces_count_and_nothing_else(tmp_path: Path) -> None:
    have = obtainable_items(load_world("double_vein"))
    assert {"raw_iron", "diamond", "iron_pickaxe", "stone_pickaxe"} <= have  # drops and the chest
    assert {"iron_ingot", "iron_block", "diamond_block"} <= have  # furnace, then recipes from what that makes
    assert not {"melon", "wheat", "diamond_sword"} & have  # a sword needs sticks: no wood here
    spec = load_world(_double_vein_valuing(tmp_path, "melon = 2, iron_ingot = 1, emerald = 1"))
    assert [path for path, _ in unobtainable_values(spec)] == ["players.Gizmo.values.melon"]
    assert all(unobtainable_values(load_world(w)) == [] for w in ("double_vein", "cleanup", "commons", "cleanup_mp", "forest"))


def test_validate_and_run_say_so_where_the_user_looks(tmp_path: Path, capsys) -> None:
    world = _double_vein_valuing(tmp_path, "melon = 2")
    assert main(["world", "validate", str(world)]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "warning: players.Gizmo.values.melon: no block of this world drops melon" in out
    assert main(["run", str(world), "--seeds", "1", "--contract", "none", "--out", str(tmp_path / "run")]) == 0
    assert "blockpact: warning: world double_vein: players.Gizmo.values.melon" in capsys.readouterr().err
