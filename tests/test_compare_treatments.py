"""`blockpact compare` pools samples only of one treatment. Two fixed contracts under the condition
name `contract`, a simulator and a live run, and two world files named alike each came out as one row
(n=8, welfare 1228.6 [860, 1597] from 911 and ~1759), with only a warning about seeds run twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from blockpact.cli import main
from blockpact.experiments.studies.compare import Paired, _digest, compare
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
    assert [w for w in c.warnings if "2 different contracts under one condition name" in w and repr(FAIR) in w and repr(GREEDY) in w]
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
    assert [w for w in c.warnings if "runs from 2 world files (or logs) share the name" in w]

    assert main(["compare", str(fair), str(greedy), "--out", str(tmp_path / "cmp")]) == 0
    assert "2 different contracts under one condition name" in capsys.readouterr().out


def test_a_paired_difference_stays_in_the_range_a_difference_can_take() -> None:
    """Survival is 0 or 1 per seed: a difference of survival rates lies in [-1, 1] (one printed [0.24, 1.36])."""
    survival = Paired("w", "scripted", "none", "negotiate", "survival", [0, 1, 2, 3, 4], [1.0, 1.0, 0.0, 1.0, 1.0], 0)
    e = survival.estimate
    assert e.high == 1.0 and e.low > -1.0 and e.mean == 0.8
    welfare = Paired("w", "scripted", "none", "negotiate", "welfare", [0, 1], [5.0, 900.0], 0)
    assert welfare.estimate.high > 900.0  # no range: not cut


def _scenario(tmp: Path, name: str, contract: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(f'[scenario]\nname = "{name}"\nworld = "double_vein"\nseeds = 2\nepisodes = 1\n\n'
                    f'[[conditions]]\nname = "treat"\ncontract = {json.dumps(contract)}\n\n'
                    '[players]\nGizmo = "scripted"\nGlitch = "scripted"\n')
    assert main(["run", str(path), "--out", str(tmp / name)]) == 0
    return tmp / name


def test_one_condition_name_without_and_with_a_contract_text_is_two_groups(tmp_path: Path) -> None:
    """A review found the first version keyed on the text only when two texts differed: scenario conditions named
    alike, one without a contract (74) and one with a fixed one (78), were one group of 4."""
    plain, fixed, talk = (_scenario(tmp_path, n, c) for n, c in (("plain", "none"), ("fixed", FAIR), ("talk", "negotiate")))
    c = compare([plain, fixed, talk])
    by_label = {g.condition: sorted({s.values["welfare"] for s in g.samples}) for g in c.groups}
    assert by_label == {"treat (none)": [74.0], f"treat (text {_digest(FAIR)})": [78.0], "treat (negotiate)": [78.0]}
    assert [w for w in c.warnings if "3 different contracts under one condition name" in w]


def test_a_negotiating_condition_named_none_is_not_the_baseline(tmp_path: Path) -> None:
    none = _run(tmp_path / "none", "double_vein", "--contract", "none")
    path = tmp_path / "odd.toml"
    path.write_text('[scenario]\nname = "odd"\nworld = "double_vein"\nseeds = 2\nepisodes = 1\n\n'
                    '[[conditions]]\nname = "none"\ncontract = "negotiate"\n\n'
                    '[players]\nGizmo = "scripted"\nGlitch = "scripted"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "odd")]) == 0
    c = compare([none, tmp_path / "odd"])
    assert sorted(g.condition for g in c.groups) == ["none", "none (negotiate)"]
    assert {(p.condition, p.baseline) for p in c.paired} == {("none (negotiate)", "none")}


def test_a_log_without_the_world_text_is_told_apart_as_unknown(tmp_path: Path) -> None:
    new = _run(tmp_path / "new", "double_vein", "--contract", "none")
    old = tmp_path / "old"
    old.mkdir()
    lines = (new / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    del start["data"]["world_source"]
    (old / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    c = compare([old, new])
    assert "double_vein (file unknown)" in {g.world for g in c.groups}
    assert [w for w in c.warnings if "an older log without the world text" in w]
    # a comment changed is the same world: pooled
    commented = tmp_path / "double_vein.toml"
    commented.write_text("# my copy\n" + (BUILTIN_DIR / "double_vein.toml").read_text())
    copy = _run(tmp_path / "copy", str(commented), "--contract", "none")
    assert [len(g.samples) for g in compare([new, copy]).groups] == [4]


def test_runs_pooled_with_other_episodes_per_seed_are_warned_about(tmp_path: Path) -> None:
    one = _run(tmp_path / "one", "double_vein", "--contract", "none")
    two = _run(tmp_path / "two", "double_vein", "--contract", "none", "--episodes", "2")
    c = compare([one, two])
    assert [w for w in c.warnings if "differ in episodes per seed" in w]
    assert not [w for w in compare([one]).warnings if "differ in" in w]


def test_a_contract_from_a_file_pools_with_the_same_text_given_inline(tmp_path: Path) -> None:
    """The file's last newline is not part of the contract: the same text pools (a review asked)."""
    contract = tmp_path / "fair.txt"
    contract.write_text(FAIR + "\n")
    inline = _run(tmp_path / "inline", "double_vein", "--contract", FAIR)
    from_file = _run(tmp_path / "file", "double_vein", "--contract", f"@{contract}")
    c = compare([inline, from_file])
    assert [(g.condition, len(g.samples)) for g in c.groups] == [("contract", 4)], c.warnings


def test_live_runs_in_lockstep_are_another_treatment_than_free_running_ones(tmp_path: Path) -> None:
    none = _run(tmp_path / "none", "double_vein", "--contract", "none")
    free = _as_backend(none, tmp_path / "free", "minecraft")
    ordered = tmp_path / "ordered"
    ordered.mkdir()
    lines = (free / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    start["data"]["live"] = {"server": None, "auth": "offline", "viewer": False, "lockstep": True}
    (ordered / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    c = compare([free, ordered])
    assert sorted(g.world for g in c.groups) == ["double_vein (minecraft)", "double_vein (minecraft, lockstep)"]
