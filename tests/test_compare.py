"""`blockpact compare`: its numbers are those computed by hand from each run's metrics.json, and its
paired differences pair the same seeds."""

from __future__ import annotations

import csv
import json
import math
import shutil
import statistics
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.studies.compare import compare
from blockpact.experiments.outputs.stats import estimate, t975
from blockpact.worlds.world_files import BUILTIN_DIR


def short_cleanup(path: Path, seconds: int) -> Path:
    """The built-in cleanup world (random drops: its seeds differ) with shorter episodes than its 600 s; still
    named "cleanup". Each simulated second costs CPU, in its contract's search too."""
    text = (BUILTIN_DIR / "cleanup.toml").read_text()
    assert "\nseconds = 600\n" in text
    path.write_text(text.replace("\nseconds = 600\n", f"\nseconds = {seconds}\n"))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Cleanup (random drops, so seeds differ; 200 s episodes, not 600: the numbers compared do not depend on
    their length): `none` on seeds 0–3 in one run, `negotiate` on 0–1 in another; Double-Vein with both
    conditions on 2 seeds."""
    base = tmp_path_factory.mktemp("runs")
    cleanup = str(short_cleanup(base / "cleanup.toml", 200))
    out = {"cleanup_none": base / "cn", "cleanup_neg": base / "cg", "dv": base / "dv"}
    assert main(["run", cleanup, "--contract", "none", "--seeds", "4", "--out", str(out["cleanup_none"])]) == 0
    assert main(["run", cleanup, "--contract", "negotiate", "--seeds", "2", "--out", str(out["cleanup_neg"])]) == 0
    assert main(["run", "double_vein", "--seeds", "2", "--out", str(out["dv"])]) == 0
    return out


def _seed_values(run: Path, condition: str, measure: str) -> dict[int, float]:
    metrics = json.loads((run / "metrics.json").read_text())
    return {r["seed"]: r[measure] for r in metrics["conditions"][condition]["runs"]}


def test_t_quantiles() -> None:
    assert t975(1) == 12.706 and t975(9) == 2.262 and t975(30) == 2.042
    assert 2.021 > t975(50) > 2.000 and t975(10**9) == pytest.approx(1.96, abs=1e-3)


def test_estimate_by_hand() -> None:
    e = estimate([1.0, 2.0, 6.0])
    assert e.mean == 3.0 and e.std == pytest.approx(statistics.stdev([1, 2, 6]))
    assert e.low == pytest.approx(3.0 - 4.303 * e.std / math.sqrt(3))
    assert estimate([5.0]).low is None and estimate([]).mean is None


def test_numbers_equal_each_runs_metrics(runs, tmp_path, capsys) -> None:
    out = tmp_path / "cmp"
    assert main(["compare", str(runs["cleanup_none"]), str(runs["cleanup_neg"]), str(runs["dv"]), "--out", str(out)]) == 0
    written = capsys.readouterr().out.split("written: ")[1]  # every file, the LaTeX tables and the figures too
    for name in ("compare.csv", "paired.csv", "compare.json", "compare.html", "compare.tex", "paired.tex", "figures/"):
        assert str(out / name) in written, written
    rows = {(r["world"], r["condition"]): r for r in csv.DictReader((out / "compare.csv").open())}
    assert set(rows) == {("cleanup", "none"), ("cleanup", "negotiate"), ("double_vein", "none"),
                         ("double_vein", "negotiate")}
    expected = {("cleanup", "none"): (runs["cleanup_none"], "none"), ("cleanup", "negotiate"): (runs["cleanup_neg"], "negotiate"),
                ("double_vein", "none"): (runs["dv"], "none"), ("double_vein", "negotiate"): (runs["dv"], "negotiate")}
    for key, (run, condition) in expected.items():
        row = rows[key]
        assert row["population"] == "scripted"
        for measure in ("welfare", "gini"):
            values = list(_seed_values(run, condition, measure).values())
            n = len(values)
            mean = statistics.fmean(values)
            half = t975(n - 1) * statistics.stdev(values) / math.sqrt(n)
            assert int(row[f"{measure}_n"]) == n
            assert float(row[f"{measure}_mean"]) == pytest.approx(mean)
            assert float(row[f"{measure}_ci95_low"]) == pytest.approx(mean - half)
            assert float(row[f"{measure}_ci95_high"]) == pytest.approx(mean + half)
        # the run's own metrics.json says the same mean
        metrics = json.loads((run / "metrics.json").read_text())
        assert float(row["welfare_mean"]) == pytest.approx(metrics["conditions"][condition]["welfare"]["mean"])
    # cleanup's seeds really differ, so the test below would notice a wrong pairing
    assert len(set(_seed_values(runs["cleanup_none"], "none", "welfare").values())) > 1

    paired = {(r["world"], r["measure"]): r for r in csv.DictReader((out / "paired.csv").open())}
    none = _seed_values(runs["cleanup_none"], "none", "welfare")
    neg = _seed_values(runs["cleanup_neg"], "negotiate", "welfare")
    diffs = [neg[s] - none[s] for s in (0, 1)]
    row = paired[("cleanup", "welfare")]
    assert (row["baseline"], row["condition"], row["seeds"]) == ("none", "negotiate", "0 1")
    assert int(row["n_pairs"]) == 2 and int(row["unmatched_seeds"]) == 2
    assert float(row["mean_difference"]) == pytest.approx(statistics.fmean(diffs))
    half = 12.706 * statistics.stdev(diffs) / math.sqrt(2)
    assert float(row["ci95_low"]) == pytest.approx(statistics.fmean(diffs) - half)
    html = (out / "compare.html").read_text()
    assert "<script" not in html and "cleanup" in html
    # a figure per world, each a panel per measure it has: welfare, inventory welfare, Gini, and Cleanup's survival
    # and survival time
    figures = sorted((out / "figures").glob("*.svg"))
    assert html.count("<img") == 2 and len(figures) == 2 and len(list((out / "figures").glob("*.pdf"))) == 2
    panels = {f.name.split("-", 2)[2]: f.read_text().count("<clipPath") for f in figures}
    assert panels == {"cleanup.svg": 5, "double_vein.svg": 3}


def test_failed_seeds_are_counted_never_as_zeros(runs, tmp_path) -> None:
    """A failed seed is counted as failed, never as a zero."""
    run = tmp_path / "copy"
    shutil.copytree(runs["cleanup_none"], run)
    metrics = json.loads((run / "metrics.json").read_text())
    cond = metrics["conditions"]["none"]
    failed = cond["runs"].pop()
    cond["seeds_finished"] -= 1
    cond["errors"] = [{"seed": failed["seed"], "error": "RuntimeError: boom"}]
    (run / "metrics.json").write_text(json.dumps(metrics))
    c = compare([run])
    (group,) = c.groups
    assert group.estimate("welfare").n == 3
    assert len(group.samples) == 3 and group.failed[0]["error"] == "RuntimeError: boom"
    assert group.seeds_planned == 4 and group.unfinished == 0


def test_govsim_measures_come_from_the_runs_commons_section(tmp_path) -> None:
    """Efficiency, survival and survival time of a commons, per seed, from what `blockpact run` writes under
    metrics.json's `commons` (where they really are, not a place the test makes up).
    The built-in commons with a declared reference welfare: without a contract the pumpkins collapse, with the
    negotiated one they last."""
    world = tmp_path / "commons.toml"
    text = (BUILTIN_DIR / "commons.toml").read_text()
    assert "\nlength_known = true\n" in text
    world.write_text(text.replace("\nlength_known = true\n", "\nlength_known = true\nreference_welfare = 600\n"
                                    'reference_method = "a round number, for this test"\n'))
    run = tmp_path / "run"
    assert main(["run", str(world), "--seeds", "2", "--out", str(run)]) == 0
    commons = json.loads((run / "metrics.json").read_text())["commons"]["conditions"]
    c = compare([run])
    assert c.measures == ["welfare", "inventory_welfare", "gini", "efficiency", "survival", "survival_time"]
    for group in c.groups:
        seeds = {s["seed"]: s for s in commons[group.condition]["seeds"]}
        # metrics.json holds 12 significant digits (blockpact/numbers.py): 100 / 600 is 0.166666666667 there
        assert group.by_seed("efficiency") == pytest.approx({k: s["welfare"] / 600 for k, s in seeds.items()}, rel=1e-11)
        survived = {k: 0.0 if any(r["collapsed"] for r in s["resources"].values()) else 1.0 for k, s in seeds.items()}
        assert group.by_seed("survival") == survived
        assert group.estimate("survival").mean == commons[group.condition]["survival_rate"]
        assert group.by_seed("survival_time") == {k: min(r["survival_time"] for r in s["resources"].values())
                                                  for k, s in seeds.items()}
    by_condition = {g.condition: g for g in c.groups}
    assert by_condition["none"].estimate("survival").mean == 0.0 and by_condition["negotiate"].estimate("survival").mean == 1.0


def test_bounded_measures_have_bounded_intervals(runs, tmp_path) -> None:
    """A Gini's interval stays within [0, 1] however few the seeds (a t interval on 2 seeds reaches below 0)."""
    run = tmp_path / "copy"
    shutil.copytree(runs["cleanup_none"], run)
    metrics = json.loads((run / "metrics.json").read_text())
    for r, gini in zip(metrics["conditions"]["none"]["runs"], (0.0, 0.5, 0.0, 0.02)):
        r["gini"] = gini
    (run / "metrics.json").write_text(json.dumps(metrics))
    (group,) = compare([run]).groups
    e = group.estimate("gini")
    assert e.low == 0.0 and 0 < e.high < 1 and e.mean == pytest.approx(0.13)


def test_a_sweep_directory_is_searched_and_bad_input_is_refused(runs, tmp_path) -> None:
    sweep = tmp_path / "sweep"
    (sweep / "units").mkdir(parents=True)
    shutil.copytree(runs["dv"], sweep / "units" / "a")
    (sweep / "units" / "a" / "metrics.json").unlink()  # rebuilt in memory from events.jsonl
    c = compare([sweep])
    assert [g.condition for g in c.groups] == ["none", "negotiate"]
    assert c.groups[1].estimate("welfare").mean == 78.0
    assert main(["compare", str(tmp_path / "nothing-here")]) == 1
    (tmp_path / "empty").mkdir()
    assert main(["compare", str(tmp_path / "empty")]) == 1
