"""[[groups]] declared in a scenario file: added to or replacing the world's groups, checked with
file:line errors, settled and measured like a world's own, and kept by `resume`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.experiments.plan.scenario import ScenarioError, load_scenario
from blockpact.experiments.plan.scenario_run import scenario_plan
from blockpact.judge.groups import group_sharing
from blockpact.worlds.world_files import load_world

GOLD = Path(__file__).parent / "worlds" / "gold_key.toml"
WORLD_GROUP = '\n[[groups]]\nname = "prospectors"\nmembers = ["Ada", "Ben"]\nshare = 1.0\n'
SCENARIO = """[scenario]
world = "gold.toml"
seeds = 1

[[conditions]]
contract = "none"

[[groups]]
name = "prospectors"
members = ["Ben", "Cy"]
share = 1.0
until = 60

[[groups]]
name = "pickers"
members = ["Ada", "Cy"]
share = 0.5
"""


def folder(tmp_path: Path, scenario: str = SCENARIO) -> Path:
    (tmp_path / "gold.toml").write_text(GOLD.read_text() + WORLD_GROUP)
    path = tmp_path / "scenario.toml"
    path.write_text(scenario)
    return path


def test_scenario_groups_replace_and_add_to_the_worlds(tmp_path: Path) -> None:
    scenario = load_scenario(folder(tmp_path))
    spec = load_world(tmp_path / "gold.toml")
    assert [(g.name, g.members) for g in spec.groups] == [("prospectors", ("Ada", "Ben"))]
    plan = scenario_plan(scenario, spec, None)
    assert [(g.name, g.members, g.share, g.end) for g in plan.spec.groups] == [
        ("prospectors", ("Ben", "Cy"), 1.0, 60.0), ("pickers", ("Ada", "Cy"), 0.5, None)]
    assert [list(g["members"]) for g in plan.scenario["groups"]] == [["Ben", "Cy"], ["Ada", "Cy"]]


def test_a_run_settles_measures_and_resumes_with_the_scenarios_groups(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main(["run", str(folder(tmp_path)), "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    groups = metrics["groups"]["conditions"]["none"]["groups"]
    assert groups["prospectors"]["members"] == ["Ben", "Cy"] and groups["pickers"]["members"] == ["Ada", "Cy"]
    run = read_run(out / "events.jsonl")
    plan_spec = scenario_plan(load_scenario(tmp_path / "scenario.toml"), load_world(tmp_path / "gold.toml"), None).spec
    [seed] = run.of_condition("none")
    shared = group_sharing(plan_spec, seed.final.events)
    assert metrics["conditions"]["none"]["runs"][0]["transfers"] == pytest.approx(shared)
    assert any(v != 0 for v in shared.values())  # the groups moved emeralds
    # cut after the run_start and resume: the same groups apply (recorded in run_start, not re-read)
    lines = (out / "events.jsonl").read_text().splitlines(keepends=True)
    (out / "events.jsonl").write_text(lines[0])
    (out / "metrics.json").unlink()
    (tmp_path / "scenario.toml").write_text(SCENARIO.replace('"Cy"]\nshare = 1.0', '"Ada"]\nshare = 1.0'))
    assert main(["resume", str(out)]) == 0
    resumed = json.loads((out / "metrics.json").read_text())
    assert resumed["groups"]["conditions"]["none"]["groups"]["prospectors"]["members"] == ["Ben", "Cy"]
    assert resumed["conditions"]["none"]["runs"][0]["transfers"] == pytest.approx(shared)


@pytest.mark.parametrize(("groups", "expected"), [
    ('[[groups]]\nmembers = ["Ada", "Ben"]\n', r"scenario.toml:8: groups\[0\].name: missing or empty"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada"]\n', r"scenario.toml:10: groups\[0\].members: .* at least two"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Ben"]\nshare = 1.5\n', r"scenario.toml:11: groups\[0\].share: .*\[0, 1\]"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Ben"]\nfrom = 50\nuntil = 40\n',
     r"scenario.toml:12: groups\[0\].until: 40 is not after from = 50"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Ben"]\nweight = 2\n', r"scenario.toml:11: groups\[0\].weight: unknown key"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Ben"]\n[[groups]]\nname = "g"\nmembers = ["Ada", "Cy"]\n',
     r"scenario.toml:8: groups: two groups share a name"),
])
def test_a_malformed_scenario_group_names_file_line_and_key(tmp_path: Path, groups: str, expected: str) -> None:
    head = SCENARIO.split("[[groups]]")[0]
    with pytest.raises(ScenarioError, match=expected):
        load_scenario(folder(tmp_path, head + groups))


@pytest.mark.parametrize(("groups", "expected"), [
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Dan"]\n', r"scenario.toml:10: groups\[0\].members: no player 'Dan'"),
    ('[[groups]]\nname = "g"\nmembers = ["Ada", "Ben"]\nuntil = 500\n',
     r"scenario.toml:11: groups\[0\].until: 500 s is after the end of gold_key's episode \(120 s\)"),
])
def test_members_and_times_are_checked_against_the_world(tmp_path: Path, groups: str, expected: str, capsys) -> None:
    path = folder(tmp_path, SCENARIO.split("[[groups]]")[0] + groups)
    assert main(["run", str(path), "--out", str(tmp_path / "r")]) == 1
    assert re.search(expected, capsys.readouterr().err)
    assert not (tmp_path / "r").exists()
