"""The validator warns on settings that load but likely mean something else (a negative item value, a grow rule's
factor below 1, a player in two groups standing at once), with file and line; `world show` and `world render` show
the groups and whose each chest is; a world's reference_welfare gives every run an efficiency in metrics.json and
the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.worlds.render_layout import plan
from blockpact.worlds.world_files import load_world

WORLDS = Path(__file__).parent / "worlds"


def _doubtful(tmp: Path) -> Path:
    text = (WORLDS / "guarded_patch.toml").read_text()
    text = text.replace("values = { pumpkin = 2, melon_slice = 1 }", "values = { pumpkin = 2, melon_slice = -1 }")
    text = text.replace("factor = 2.0\ncap = 4", "factor = 0\ncap = 4")
    text += ('\n[players.Bo]\nspawn = [1, 64, 3]\nvalues = { pumpkin = 1 }\n\n[[groups]]\nname = "one"\nmembers = ["Ann", "Bo"]\n'
             'until = 30\n\n[[groups]]\nname = "two"\nmembers = ["Ann", "Bo"]\nshare = 0.5\nfrom = 20\n\n'
             '[[groups]]\nname = "later"\nmembers = ["Ann", "Bo"]\nfrom = 60\n')
    path = tmp / "doubtful.toml"
    path.write_text(text)
    return path


def test_validate_warns_on_doubtful_settings_with_their_lines(tmp_path: Path, capsys) -> None:
    path = _doubtful(tmp_path)
    assert main(["world", "validate", str(path)]) == 0  # warnings, not errors
    out = capsys.readouterr().out
    lines = path.read_text().splitlines()
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 4, out  # "later" overlaps "two" (from 20 s to the end) but not "one" (until 30 s)
    by_key = {w.split(": ")[2]: w for w in warnings}
    negative = by_key["players.Ann.values.melon_slice"]
    assert "a negative value (-1): holding melon_slice costs Ann emeralds" in negative
    assert "melon_slice = -1" in lines[int(negative.split(":")[2]) - 1]
    factor = by_key["dynamics[0].factor"]
    assert "factor = 0 empties the region at every period" in factor and lines[int(factor.split(":")[2]) - 1] == "factor = 0"
    assert "Ann, Bo also in group one while group two stands" in by_key["groups[1].members"]
    assert "also in group two while group later stands" in by_key["groups[2].members"]


def test_a_sound_world_has_no_such_warning(capsys) -> None:
    assert main(["world", "validate", str(WORLDS / "reward_pot.toml")]) == 0
    assert "warning" not in capsys.readouterr().out


def test_show_and_render_name_groups_and_chest_owners(capsys) -> None:
    assert main(["world", "show", str(WORLDS / "reward_pot.toml")]) == 0
    out = capsys.readouterr().out
    assert "Chest:    locker at [2, 64, 3]: bread 2; counts for Ann at the end" in out
    assert "Chest:    pot at [10, 64, 3]: empty; shared: counts 1/3 for each of the 3 players at the end" in out
    assert "Group:    pair: Ann, Ben pool 50% from 3 s to 5.5 s of what each earns, split equally" in out
    _, _, legend, _ = plan(load_world(WORLDS / "reward_pot.toml"), None, 24)
    texts = [entry.text for entry in legend]
    assert "locker (2, 64, 3), Ann's" in texts and "pot (10, 64, 3), shared by all" in texts
    assert texts[texts.index("Groups (share rewards)") + 1] == "pair: Ann, Ben pool 50% from 3 s to 5.5 s"


def test_reference_welfare_gives_an_efficiency(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", str(WORLDS / "locked_pick.toml"), "--seeds", "1", "--out", str(out)]) == 0
    conditions = json.loads((out / "metrics.json").read_text())["conditions"]
    none, negotiate = conditions["none"]["efficiency"], conditions["negotiate"]["efficiency"]
    assert none["reference_welfare"] == 108 and none["how"].startswith("by hand")
    assert none["settled"]["mean"] == pytest.approx(conditions["none"]["welfare"]["mean"] / 108)
    assert negotiate["inventory"]["mean"] == pytest.approx(conditions["negotiate"]["inventory_welfare"]["mean"] / 108)
    assert f"{negotiate['settled']['mean']:.2f} of 108 (inventories" in (out / "report.html").read_text()
    gift = tmp_path / "gift"
    assert main(["run", str(WORLDS / "paper_gift.toml"), "--seeds", "1", "--contract", "none", "--out", str(gift)]) == 0
    assert json.loads((gift / "metrics.json").read_text())["conditions"]["none"]["efficiency"] is None  # no reference
