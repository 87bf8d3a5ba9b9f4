"""Survival follows the rules that can regrow a resource: in tests/worlds/guarded_patch.toml the melons regrow only
while at least 2 pumpkins are left; once the pumpkins collapse the melons can never regrow, and they are reported as
not surviving from then on (with when and why), in metrics.json and the report, although none was picked."""

from __future__ import annotations

import json
from pathlib import Path

from blockpact.cli import main
from blockpact.experiments.outputs.commons_metrics import regrowth_lost
from blockpact.judge.metrics import Curve
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "guarded_patch.toml"


def test_a_resource_starved_by_a_collapsed_guard_does_not_survive(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", str(WORLD), "--contract", "none", "--seeds", "1", "--out", str(out)]) == 0
    commons = json.loads((out / "metrics.json").read_text())["commons"]["conditions"]["none"]
    [seed] = commons["seeds"]
    pumpkins, melons = seed["resources"]["pumpkin@pumpkins"], seed["resources"]["melon@melons"]
    assert pumpkins["collapsed"] and melons["collapsed"]
    assert melons["final_stock"] == 6  # every melon is still there: none could be picked
    assert melons["survival_time"] == pumpkins["survival_time"] < 90
    assert melons["regrowth_lost"]["because"].startswith(f"pumpkin@pumpkins collapsed at {pumpkins['survival_time']:g} s")
    assert commons["resources"]["melon@melons"]["survival_rate"] == 0.0
    assert "melon@melons could no longer regrow from" in (out / "report.html").read_text()


def _measured(**collapsed: float | None) -> dict:
    return {k: {"survival_time": 90.0 if t is None else t, "collapsed": t is not None} for k, t in collapsed.items()}


def test_a_guard_that_can_still_hold_is_no_loss() -> None:
    spec = load_world(WORLD)
    # collapsed (below a threshold above the guard's count) with 3 left, never below 2: the melons can still regrow
    curves = {"pumpkin@pumpkins": Curve([0.0, 10.0], [4.0, 3.0]), "melon@melons": Curve([0.0], [6.0])}
    assert regrowth_lost(spec, curves, _measured(**{"pumpkin@pumpkins": 10.0, "melon@melons": None})) == {}
    # the pumpkins fell to 1 at 5 s (below 2, but they still regrow), collapsed at 0 at 20 s: lost from 20 s
    curves["pumpkin@pumpkins"] = Curve([0.0, 5.0, 20.0], [4.0, 1.0, 0.0])
    lost = regrowth_lost(spec, curves, _measured(**{"pumpkin@pumpkins": 20.0, "melon@melons": None}))
    assert list(lost) == ["melon@melons"] and lost["melon@melons"][0] == 20.0
    # nothing collapsed: nothing lost
    assert regrowth_lost(spec, curves, _measured(**{"pumpkin@pumpkins": None, "melon@melons": None})) == {}
