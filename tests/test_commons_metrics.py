"""GovSim's measures in metrics.json, the plots and the report, for a run in a world with dynamics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.outputs.commons_metrics import commons_metrics, commons_resources
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import BUILTIN_DIR, load_world, validate_world


@pytest.fixture(scope="module")
def commons_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("commons") / "run"
    assert main(["run", "commons", "--seeds", "1", "--out", str(out)]) == 0
    return out


def test_the_greedy_commons_collapses_and_the_report_says_when(commons_run: Path) -> None:
    commons = json.loads((commons_run / "metrics.json").read_text())["commons"]
    assert commons["resources"] == [{"key": "pumpkin@patch", "collapse_below": 5.0, "sustainable_level": 50.0,
                                     "over_usage_undefined": None}]
    none = commons["conditions"]["none"]
    greedy = none["seeds"][0]["resources"]["pumpkin@patch"]
    assert greedy["collapsed"] and 0 < greedy["survival_time"] < 720 and greedy["final_stock"] == 0
    assert greedy["over_usage"] > 0.3 and none["survival_rate"] == 0.0
    assert none["resources"]["pumpkin@patch"]["collapsed_seeds"] == [0]
    kept = commons["conditions"]["negotiate"]
    assert kept["survival_rate"] == 1.0 and kept["resources"]["pumpkin@patch"]["survival_time"] == 720
    assert commons["reference"]["welfare"] is None and "declares no reference" in commons["reference"]["how"]
    report = (commons_run / "report.html").read_text()
    assert "Commons (GovSim measures)" in report
    assert f"{greedy['survival_time']:.1f}" in report
    assert "collapse below 5" in (commons_run / "plots" / "commons.svg").read_text()


def test_a_declared_reference_optimum_gives_efficiency(commons_run: Path, tmp_path: Path) -> None:
    text = (BUILTIN_DIR / "commons.toml").read_text().replace(
        "length_known = true", 'length_known = true\nreference_welfare = 480\nreference_method = "a quota of half the stock per round, by hand"')
    world = tmp_path / "commons.toml"
    world.write_text(text)
    commons = commons_metrics(read_run(commons_run / "events.jsonl"), load_world(world))
    assert commons["reference"] == {"welfare": 480.0, "how": "a quota of half the stock per round, by hand"}
    seed = commons["conditions"]["none"]["seeds"][0]
    assert commons["conditions"]["none"]["efficiency"] == pytest.approx(seed["welfare"] / 480)
    assert commons["conditions"]["none"]["equality"] == pytest.approx(seed["equality"])


def test_a_reference_needs_the_way_it_was_found(tmp_path: Path) -> None:
    world = tmp_path / "commons.toml"
    world.write_text((BUILTIN_DIR / "commons.toml").read_text().replace("length_known = true", "length_known = true\nreference_welfare = 480"))
    [problem] = validate_world(world)
    assert problem.path == "episode.reference_welfare" and "reference_method" in problem.message


def test_only_valued_renewed_blocks_are_resources() -> None:
    assert commons_resources(load_world("double_vein")) == []  # no dynamics
    cleanup = [r.key for r in commons_resources(load_world("cleanup"))]
    assert cleanup and not any(k.startswith("slime_block") for k in cleanup)  # pollution is no resource


def test_a_resource_without_over_usage_says_why(tmp_path: Path) -> None:
    """Cleanup's mushroom blocks come back one by one (a regrow rule): over-usage is not defined, and the report
    says why instead of a bare dash."""
    out = tmp_path / "cleanup"
    assert main(["run", "cleanup", "--contract", "none", "--seeds", "1", "--out", str(out)]) == 0
    (resource,) = json.loads((out / "metrics.json").read_text())["commons"]["resources"]
    assert resource["sustainable_level"] is None and resource["over_usage_undefined"].startswith("not defined")
    assert f"Over-usage of {resource['key']}: not defined" in (out / "report.html").read_text()


def test_a_live_episode_that_ran_past_its_length_survives_its_length(commons_run: Path) -> None:
    """A live episode's clock runs on while its programs are stopped (a 300 s episode may end at 303.2 s,
    and a resource that never collapsed "survived" 303.2 s): survival is counted to the episode's length."""
    run = read_run(commons_run / "events.jsonl")
    kept = next(s for s in run.seeds if s.condition == "negotiate").final
    assert kept is not None and kept.sim_seconds == 720
    kept.sim_seconds = 723.2
    commons = commons_metrics(run, load_world("commons"))
    assert commons["conditions"]["negotiate"]["seeds"][0]["resources"]["pumpkin@patch"]["survival_time"] == 720


def test_a_collapse_after_the_episode_end_is_not_counted() -> None:
    """Live, the clock runs on while the programs stop: a stock that fell below its threshold at 302 s of a 300 s
    episode did not collapse within the episode (a review found it 'survived' 302 s, longer than an uncollapsed one)."""
    from blockpact.experiments.outputs.commons_metrics import sustainability
    from blockpact.judge.metrics import Curve

    late = sustainability(Curve([0.0, 302.0], [10.0, 1.0]), threshold=2.0, sustainable_level=5.0, episode_end=300.0)
    assert late.survival_time == 300.0 and not late.collapsed
    within = sustainability(Curve([0.0, 120.0], [10.0, 1.0]), threshold=2.0, sustainable_level=5.0, episode_end=300.0)
    assert within.survival_time == 120.0 and within.collapsed
