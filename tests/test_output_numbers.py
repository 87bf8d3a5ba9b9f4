"""The numbers a run writes carry no floating-point noise (blockpact/numbers.py): three rewards of 188/3 add up to
a welfare of 188, not 187.99999999999997, and their Gini is 0, not 3.8e-17. Both were in
metrics.json before; tests/worlds/three_way_split.toml reproduces such a seed with the real judge."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.outputs.stats import estimate, mean_std
from blockpact.judge.metrics import gini_measure
from blockpact.judge.metrics import gini
from blockpact.numbers import equal_up_to_rounding, tidy

# Inventories worth 33, 62 and 33; the gifts are settled at Bo's value (31 and 29 slices worth 2 each to him),
# so 188 emeralds are shared three ways: the judge's rewards are 62.666666666666664, 62.66666666666666 and
# 62.666666666666664, whose float sum is 187.99999999999997.
WORLD = Path(__file__).parent / "worlds" / "three_way_split.toml"
CONTRACT = "1. Ann gives all melon_slice to Bo. 2. Cy gives all melon_slice to Bo. 3. Ann, Bo and Cy share their rewards equally."
JUDGED = [62.666666666666664, 62.66666666666666, 62.666666666666664]  # what the formal judge computes


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("split") / "run"
    assert main(["run", str(WORLD), "--contract", CONTRACT, "--seeds", "2", "--out", str(out)]) == 0
    return out


def test_the_judged_rewards_are_the_noisy_case() -> None:
    assert sum(JUDGED) == 187.99999999999997  # the case is real: without tidying, this is what was written
    assert equal_up_to_rounding(JUDGED) and not equal_up_to_rounding([62.0, 62.0000001])


def test_metrics_json_has_exact_welfare_and_a_zero_gini(run: Path) -> None:
    text = (run / "metrics.json").read_text()
    metrics = json.loads(text)
    condition = metrics["conditions"]["contract"]
    for seed in condition["runs"]:
        assert seed["welfare"] == 188.0
        assert seed["gini"] == 0.0 and seed["gini_measure"]["value"] == 0.0
        assert seed["rewards"] == {"Ann": 62.6666666667, "Bo": 62.6666666667, "Cy": 62.6666666667}
        assert seed["transfers"] == {"Ann": 29.6666666667, "Bo": 0.666666666667, "Cy": 29.6666666667}
        assert seed["episodes"][0]["inventory_rewards"] == {"Ann": 33.0, "Bo": 62.0, "Cy": 33.0}
    assert condition["welfare"] == {"n": 2, "mean": 188.0, "std": 0.0, "ci95": [188.0, 188.0]}
    assert (condition["gini"]["mean"], condition["gini"]["std"], condition["gini"]["ci95"]) == (0.0, 0.0, [0.0, 0.0])
    numbers = re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)
    assert numbers and not [n for n in numbers if "e" in n or len(n.replace("-", "").replace(".", "").lstrip("0")) > 12]


def test_the_event_log_writes_rewards_and_transfers_tidily(run: Path) -> None:
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    ends = [e["data"] for e in events if e["kind"] == "episode_end"]
    assert [e["rewards"] for e in ends] == [{"Ann": 62.6666666667, "Bo": 62.6666666667, "Cy": 62.6666666667}] * 2
    judged = [e["data"]["transfers"] for e in events if e["kind"] in ("judgment", "transfers")]
    assert judged and all(t == {"Ann": 29.6666666667, "Bo": 0.666666666667, "Cy": 29.6666666667} for t in judged)


def test_compare_and_report_read_a_metrics_file_written_with_the_noise(run: Path, tmp_path: Path) -> None:
    """A run directory from before: its log and metrics.json hold the noisy floats. compare reads it (and gives
    the numbers of a new one); report rebuilds from the log the metrics.json a new run writes."""
    old = tmp_path / "old"
    old.mkdir()
    noisy = {"Ann": 29.666666666666664, "Bo": 0.6666666666666572, "Cy": 29.666666666666664}  # as logged before
    lines = []
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["kind"] in ("judgment", "transfers", "episode_end"):
            event["data"]["transfers"] = noisy
        if event["kind"] == "episode_end":
            event["data"]["rewards"] = dict(zip(("Ann", "Bo", "Cy"), JUDGED))
        lines.append(json.dumps(event) + "\n")
    (old / "events.jsonl").write_text("".join(lines))
    metrics = json.loads((run / "metrics.json").read_text())
    for seed in metrics["conditions"]["contract"]["runs"]:
        seed["welfare"], seed["gini"] = 187.99999999999997, 3.77948263702181e-17
        seed["rewards"] = dict(zip(("Ann", "Bo", "Cy"), JUDGED))
    (old / "metrics.json").write_text(json.dumps(metrics))
    assert main(["compare", str(old), "--out", str(tmp_path / "cmp")]) == 0
    row = next(csv.DictReader((tmp_path / "cmp" / "compare.csv").open()))
    assert (row["welfare_mean"], row["welfare_std"], row["welfare_ci95_low"]) == ("188.0", "0.0", "188.0")
    assert (row["gini_mean"], row["gini_std"], row["gini_ci95_high"]) == ("0.0", "0.0", "0.0")
    assert main(["report", str(old)]) == 0
    assert json.loads((old / "metrics.json").read_text()) == json.loads((run / "metrics.json").read_text())


def test_measures_of_equal_values_have_no_spread() -> None:
    assert gini(JUDGED) == 0.0 and gini_measure(JUDGED).value == 0.0
    assert gini([1.0, 2.0, 3.0]) == pytest.approx(1 / 3)  # an unequal split is untouched
    # twenty seeds of the same outcome: commons' compare.csv had a Gini std of 3.6e-18 across them
    same = [0.026666666666666665] * 20
    assert estimate(same).std == 0.0 and mean_std(same)["std"] == 0.0
    assert estimate([1.0, 2.0, 6.0]).std == pytest.approx(2.6457513110645907)


def test_tidy_rounds_floats_to_twelve_significant_digits() -> None:
    assert tidy(187.99999999999997) == 188.0 and tidy(0.1 + 0.2) == 0.3
    assert tidy({"a": [0.6666666666666572, -0.0, 3, True, None, "x"]}) == {"a": [0.666666666667, 0.0, 3, True, None, "x"]}
    assert str(tidy(-0.0)) == "0.0"
    assert tidy(float("inf")) == float("inf")
