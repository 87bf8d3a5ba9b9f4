"""The built-in dilemma suite: its manifest, its reference points checked on the simulator, and `blockpact suite run`
with its leaderboard on two worlds × two seeds (kept short: the whole suite's figures are in docs/suite.md)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
from blockpact.experiments.play.runner import RunOptions, Runner
from blockpact.experiments.studies.suite.leaderboard import Cell
from blockpact.experiments.studies.suite.manifest import SuiteError, load_suite
from blockpact.experiments.studies.suite.scores import UnitScore
from blockpact.judge.contract import parse_contract
from blockpact.worlds.world_files import load_world

SUITE = load_suite()


def test_the_suite_has_eight_worlds_of_distinct_shapes_each_with_a_formal_contract_that_binds_everyone() -> None:
    assert len(SUITE.worlds) >= 8
    assert len({w.shape for w in SUITE.worlds.values()}) == len(SUITE.worlds)
    for world in SUITE.worlds.values():
        spec = load_world(world.scenario.world)
        assert spec.name == world.name
        contract = parse_contract(world.contract, sorted(spec.players), spec=spec)
        assert not contract.free_text(), (world.name, [c.why for c in contract.free_text()])
        assert world.optimum_welfare > world.greedy_welfare
    assert load_world(SUITE.worlds["pollution"].scenario.world).players.__len__() >= 5
    assert len(load_world(SUITE.worlds["fishery"].scenario.world).players) == 5
    assert SUITE.worlds["repeated_commons"].scenario.episodes > 1


LONG = {"fishery", "pollution", "repeated_commons"}  # 25-70 s each on a loaded 2-core machine: `make test-all`


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in LONG else n for n in SUITE.worlds])
def test_a_worlds_reference_points_are_what_the_simulator_plays(name: str, tmp_path: Path) -> None:
    """Greedy scripted play (no contract) gives the declared greedy welfare, and the declared contract kept by the
    cooperative scripted players its declared welfare, each as the mean over the suite's seeds; the contract scores
    at least 0.9, and the optimum is the contract's welfare or the world's own reference where that is higher."""
    world = SUITE.worlds[name]
    spec = load_world(world.scenario.world)
    plan = RunPlan(spec, "sim", "scripted", [ConditionSpec("none", "none"), ConditionSpec("optimum", "given",
                   world.contract)], seeds=SUITE.seeds,
                   episodes=world.scenario.episodes)
    outcome = Runner.create(plan, tmp_path / name, RunOptions(parallel=1, plots=False, signals=False)).run()
    assert outcome.exit_status == 0
    measured = outcome.metrics["conditions"]
    assert measured["none"]["welfare"]["mean"] == pytest.approx(world.greedy_welfare, abs=0.01)
    assert measured["optimum"]["welfare"]["mean"] == pytest.approx(world.contract_welfare, abs=0.01)
    assert world.score(world.contract_welfare) >= 0.9
    reference = spec.extra.get("reference")
    assert world.optimum_welfare == max(world.contract_welfare, reference["welfare"] if reference else 0)


def test_a_suite_manifest_with_a_mistake_names_the_file_line_and_key(tmp_path: Path) -> None:
    text = SUITE.text.replace("optimum_welfare = 69", "optimum_welfare = 5", 1)
    assert text != SUITE.text
    shutil.copytree(SUITE.path.parent / "scenarios", tmp_path / "scenarios")
    shutil.copytree(SUITE.path.parent / "worlds", tmp_path / "worlds")
    (tmp_path / "suite.toml").write_text(text)
    with pytest.raises(SuiteError, match=r"suite\.toml:\d+: worlds\.stag_hunt\.optimum_welfare: 5 is not above"):
        load_suite(tmp_path / "suite.toml")


def test_the_overall_score_averages_each_seed_over_the_worlds_and_a_failed_seed_counts_in_no_mean() -> None:
    units = [UnitScore("a", "p", 0, "complete", welfare=1, score=0.5), UnitScore("a", "p", 1, "complete", welfare=1,
             score=1.0), UnitScore("a", "p", 2, "failed: endpoint")]
    row = Cell("p", "a", units).row()
    assert row["n"] == 2 and row["score_mean"] == pytest.approx(0.75) and row["not_complete"] == 1
    assert row["score_ci95_low"] < 0.75 < row["score_ci95_high"] and "seed 2: failed: endpoint" in row["not_complete_why"]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("suite") / "s"
    assert main(["suite", "run", "--worlds", "stag_hunt,production_chain", "--seeds", "2", "--workers", "2",
                 "--out", str(out)]) == 0
    return out


def test_suite_run_scores_greedy_at_zero_and_the_cooperative_negotiators_near_the_optimum(suite_dir: Path) -> None:
    rows = list(csv.DictReader((suite_dir / "leaderboard.csv").open()))
    by = {(r["population"], r["world"]): r for r in rows}
    assert set(by) == {(p, w) for p in ("greedy", "cooperative") for w in ("stag_hunt", "production_chain", "overall")}
    for w in ("stag_hunt", "production_chain", "overall"):
        assert float(by["greedy", w]["score_mean"]) == pytest.approx(0.0)
        assert float(by["cooperative", w]["score_mean"]) >= 0.9
        assert by["cooperative", w]["n"] == "2"
    coop = by["cooperative", "stag_hunt"]
    assert float(coop["formal_share"]) == 1.0 and coop["adopted"] == "2" and float(coop["breach_rate"]) == 0.0
    assert by["greedy", "stag_hunt"]["adopted"] == "0" and by["greedy", "stag_hunt"]["formal_share"] == ""
    assert all(r["failed_at"] == "" for r in rows)  # scripted players who play what they mean fail at nothing
    assert float(by["greedy", "overall"]["score_ci95_high"]) < float(by["cooperative", "overall"]["score_ci95_low"])
    for name in ("leaderboard.html", "leaderboard.tex", "leaderboard.json", "index.json"):
        assert (suite_dir / name).is_file()
    assert r"\toprule" in (suite_dir / "leaderboard.tex").read_text()
    assert "stag_hunt" in (suite_dir / "leaderboard.html").read_text()


def test_suite_run_again_skips_what_finished_and_redoes_a_unit_cut_short(suite_dir: Path, capsys) -> None:
    cut = suite_dir / "units" / "stag_hunt" / "cooperative" / "seed-1"
    (cut / "metrics.json").unlink()
    capsys.readouterr()
    assert main(["suite", "run", "--worlds", "stag_hunt,production_chain", "--seeds", "2", "--workers", "1",
                 "--out", str(suite_dir)]) == 0
    err = capsys.readouterr().err
    assert "7 already finished, 1 to run" in err
    assert json.loads((cut / "metrics.json").read_text())["status"] == "complete"


def test_suite_show_prints_the_leaderboard_and_compare_reads_the_suite_directory(suite_dir: Path, capsys,
                                                                                 tmp_path: Path) -> None:
    capsys.readouterr()
    assert main(["suite", "show", str(suite_dir)]) == 0
    out = capsys.readouterr().out
    assert "cooperative" in out and "overall" in out and "score [95% CI]" in out
    assert main(["compare", str(suite_dir), "--out", str(tmp_path / "cmp")]) == 0
    assert (tmp_path / "cmp" / "compare.csv").is_file()


def test_suite_run_refuses_an_unknown_world_or_population(capsys) -> None:
    assert main(["suite", "run", "--worlds", "atlantis"]) == 1
    assert "no suite world 'atlantis' (suite worlds: stag_hunt" in capsys.readouterr().err
    assert main(["suite", "run", "--agents", "greedy,saints"]) == 1
    assert "unknown population 'saints'" in capsys.readouterr().err
    assert main(["suite", "show", "."]) == 1
    assert "not a suite directory" in capsys.readouterr().err


KEY = "sk-test-suite-41c7"


@pytest.fixture
def llm_env():
    with pytest.MonkeyPatch.context() as mp:
        for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG"):
            mp.delenv(name, raising=False)
        mp.setenv("OPENAI_API_KEY", KEY)
        yield


def test_an_llm_population_plays_through_the_endpoint_and_its_tokens_and_failures_reach_the_leaderboard(
        tmp_path: Path, llm_env, capsys) -> None:
    """The LLM population on the local OpenAI-compatible stub, added to a directory the greedy players filled: its row
    has the tokens it spent, on the one world it played; a second endpoint that answers every call with a server error
    leaves a unit that did not complete, with the cause in its row."""
    from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
    from blockpact.agents.testing.protocol_responder import ProtocolResponder

    out = tmp_path / "s"
    assert main(["suite", "run", "--agents", "greedy", "--worlds", "stag_hunt,production_chain", "--seeds", "1",
                 "--workers", "1", "--out", str(out)]) == 0
    world = load_world(SUITE.worlds["stag_hunt"].scenario.world)
    with OpenAIStub(responder=ProtocolResponder(world), api_key=KEY) as stub:
        assert main(["suite", "run", "--agents", "llm:stub-model", "--worlds", "stag_hunt", "--seeds", "1",
                     "--workers", "1", "--out", str(out), "--llm-base-url", stub.base_url, "--no-llm-cache"]) == 0
        assert stub.chat_requests
    rows = {(r["population"], r["world"]): r for r in csv.DictReader((out / "leaderboard.csv").open())}
    row = rows["llm_stub-model", "stag_hunt"]
    assert row["n"] == "1" and int(row["tokens"]) > 0 and row["not_complete"] == "0"
    assert ("llm_stub-model", "production_chain") not in rows and ("greedy", "production_chain") in rows
    assert rows["llm_stub-model", "overall (1 of 2 worlds)"]["tokens"] == row["tokens"]
    (tmp_path / "llm.toml").write_text("[retry]\nmax_retries = 0\n")
    with OpenAIStub(responder=lambda request: StubReply.server_error(), api_key=KEY) as down:
        assert main(["suite", "run", "--agents", "llm:down-model", "--worlds", "stag_hunt", "--seeds", "1",
                     "--workers", "1", "--out", str(out), "--llm-base-url", down.base_url, "--no-llm-cache",
                     "--llm-config", str(tmp_path / "llm.toml")]) == 3
    rows = {(r["population"], r["world"]): r for r in csv.DictReader((out / "leaderboard.csv").open())}
    assert rows["llm_stub-model", "stag_hunt"]["n"] == "1"  # the earlier population stays on the board
    failed = rows["llm_down-model", "stag_hunt"]
    assert failed["n"] == "0" and failed["not_complete"] == "1" and "seed 0: failed: endpoint" in failed["not_complete_why"]
    assert failed["failed_at"].startswith("seeds failed (endpoint) 1; LLM calls failed (")


def test_the_leaderboard_says_what_a_population_failed_at_from_its_units_records(tmp_path: Path, llm_env) -> None:
    """An endpoint that answers every call with text in no role's format: the negotiators' turns are out of format,
    no contract is adopted, no program runs. The unit completes with a low score, and every leaderboard format names
    those causes, counted from the unit's events."""
    from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply

    out = tmp_path / "s"
    with OpenAIStub(responder=lambda request: StubReply(content="I would rather not say."), api_key=KEY) as stub:
        main(["suite", "run", "--agents", "llm:mute-model", "--worlds", "stag_hunt", "--seeds", "1", "--workers", "1",
              "--out", str(out), "--llm-base-url", stub.base_url, "--no-llm-cache"])
    rows = {(r["population"], r["world"]): r for r in csv.DictReader((out / "leaderboard.csv").open())}
    failed_at = rows["llm_mute-model", "stag_hunt"]["failed_at"]
    assert "negotiation turns out of format" in failed_at and "seeds without a contract adopted 1" in failed_at
    assert "no runnable program" in failed_at
    assert rows["llm_mute-model", "overall"]["failed_at"] == failed_at
    board = json.loads((out / "leaderboard.json").read_text())
    assert [r["failed_at"] for r in board["rows"] if r["world"] == "stag_hunt"] == [failed_at]
    assert "failed at" in (out / "leaderboard.tex").read_text()
    assert "seeds without a contract adopted 1" in (out / "leaderboard.tex").read_text()
    assert "seeds without a contract adopted 1" in (out / "leaderboard.html").read_text()


def test_every_suite_world_has_its_own_title_that_names_it(capsys, monkeypatch) -> None:
    """No suite world borrows the title of the world it was adapted from: each title begins with the world's name,
    no other world file in the project has it, and `blockpact suite list` shows it."""
    titles = {name: load_world(w.scenario.world).title for name, w in SUITE.worlds.items()}
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["suite", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(title in listed for title in titles.values())
    for name, title in titles.items():
        assert title.lower().replace("-", " ").startswith(name.replace("_", " ")), (name, title)
    assert len(set(titles.values())) == len(titles)
    suite_files = {Path(w.scenario.world).resolve() for w in SUITE.worlds.values()}
    others = [p for d in (Path("tests/worlds"), Path("blockpact/worlds/builtin"), Path("examples"))
              for p in d.rglob("*.toml") if p.resolve() not in suite_files]
    for path in others:
        text = path.read_text(encoding="utf-8")
        assert not any(f'title = "{t}"' in text for t in titles.values()), path
