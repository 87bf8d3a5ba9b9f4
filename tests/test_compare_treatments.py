"""`blockpact compare` pools samples only of one treatment. A new user's check: two fixed contracts under the
condition name `contract`, a simulator and a live run, and two world files named alike each came out as one row
(n=8, welfare 1228.6 [860, 1597] from 911 and ~1759), with only a warning about seeds run twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from blockpact.cli import main
from blockpact.experiments.compare import Paired, compare
from blockpact.worlds.world_files import BUILTIN_DIR

FAIR = "1. Glitch mines all diamond_ore.\n2. Gizmo mines all iron_ore."
GREEDY = "1. Glitch mines all diamond_ore.\n2. Glitch mines all iron_ore."


def _run(out: Path, *args: str) -> Path:
    assert main(["run", *args, "--seeds", "2", "--out", str(out)]) == 0
    return out


def _as_backend(run: Path, copy: Path, backend: str) -> Path:
    """The same log, said to have run on `backend` (compare reads the backend from run_start)."""
    copy.mkdir()
    lines = (run / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    start["data"]["backend"] = backend
    (copy / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    return copy


def test_contracts_backends_and_world_files_are_not_pooled(tmp_path: Path, capsys) -> None:
    fair = _run(tmp_path / "fair", "double_vein", "--contract", FAIR)
    greedy = _run(tmp_path / "greedy", "double_vein", "--contract", GREEDY)
    c = compare([fair, greedy])
    labels = sorted(g.condition for g in c.groups)
    assert len(labels) == 2 and all(label.startswith("contract (text ") for label in labels), labels
    assert all(len(g.samples) == 2 for g in c.groups)
    assert [w for w in c.warnings if "2 different contract texts" in w and repr(FAIR) in w and repr(GREEDY) in w]
    assert not [w for w in c.warnings if "more than once" in w]

    none = _run(tmp_path / "none", "double_vein", "--contract", "none")
    live = _as_backend(none, tmp_path / "live", "minecraft")
    c = compare([none, live, fair])
    assert sorted((g.world, g.condition) for g in c.groups) == [
        ("double_vein (minecraft)", "none"), ("double_vein (sim)", "contract"), ("double_vein (sim)", "none")]
    # the contract is compared with the simulator's none only: the same backend
    assert {(p.world, p.condition, p.baseline) for p in c.paired} == {("double_vein (sim)", "contract", "none")}

    text = (BUILTIN_DIR / "double_vein.toml").read_text()
    richer = tmp_path / "double_vein.toml"  # the same [world] name, another world: diamonds worth more to Glitch
    richer.write_text(text.replace("values = { raw_iron = 3, diamond = 5 }", "values = { raw_iron = 3, diamond = 9 }"))
    other = _run(tmp_path / "richer", str(richer), "--contract", "none")
    c = compare([none, other])
    assert len(c.groups) == 2 and all(g.world.startswith("double_vein (file ") for g in c.groups)
    assert len({g.estimate("welfare").mean for g in c.groups}) == 2
    assert [w for w in c.warnings if "2 different world files share the name" in w]

    assert main(["compare", str(fair), str(greedy), "--out", str(tmp_path / "cmp")]) == 0
    assert "2 different contract texts" in capsys.readouterr().out


def test_a_paired_difference_stays_in_the_range_a_difference_can_take() -> None:
    """Survival is 0 or 1 per seed: a difference of survival rates lies in [-1, 1] (one printed [0.24, 1.36])."""
    survival = Paired("w", "scripted", "none", "negotiate", "survival", [0, 1, 2, 3, 4], [1.0, 1.0, 0.0, 1.0, 1.0], 0)
    e = survival.estimate
    assert e.high == 1.0 and e.low > -1.0 and e.mean == 0.8
    welfare = Paired("w", "scripted", "none", "negotiate", "welfare", [0, 1], [5.0, 900.0], 0)
    assert welfare.estimate.high > 900.0  # no range: not cut
