"""`blockpact run` and `blockpact report` as a user runs them: the run directory, its files, failures and interruptions."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from blockpact.cli import main
from blockpact.experiments.play.protocol import EpisodeInput, EpisodeLog, EpisodeOutcome, Participants
from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
from blockpact.experiments.log.records import read_run
from blockpact.experiments.play.runner import RunOptions, Runner
from blockpact.experiments.play.scripted import ScriptedNegotiation, scripted_participants
from blockpact.worlds.world_files import BUILTIN_DIR, load_world

PLAYERS = {"Gizmo", "Glitch"}


def shell_env() -> dict[str, str]:
    """The environment as in a user's shell: JSPyBridge sets FORCE_COLOR in this process once a test
    has started Node, and rich would then draw colours and a progress bar into a pipe."""
    return {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}


@pytest.fixture(scope="module")
def double_vein_run(tmp_path_factory) -> tuple[Path, str]:
    """The run and what it printed, from the CLI called in this process with stdout a pipe-like file and the
    shell's environment (a second Python and Node start would add nothing: test_run_scripted.py's README job
    and the Ctrl-C tests run the command itself)."""
    out = tmp_path_factory.mktemp("run") / "dv"
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
        mp.delenv("FORCE_COLOR", raising=False)  # see shell_env
        assert main(["run", "double_vein", "--seeds", "2", "--out", str(out)]) == 0
    return out, printed.getvalue()


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_metrics_schema(m: dict) -> None:
    """The metrics.json schema agreed in INTERFACES.md, plus the per-seed details blockpact adds."""
    assert isinstance(m["world"], str) and m["agents"] in ("scripted", "llm")
    assert isinstance(m["conditions"], dict) and m["conditions"]
    for condition in m["conditions"].values():
        for stat in ("gini", "welfare"):
            stats = condition[stat]
            assert set(stats) >= {"n", "mean", "std", "ci95"} and _number(stats["mean"]) and _number(stats["std"])
            assert stats["n"] == 1 and stats["ci95"] is None or len(stats["ci95"]) == 2 and all(map(_number, stats["ci95"]))
        for run in condition["runs"]:
            assert isinstance(run["seed"], int)
            assert all(isinstance(p, str) and _number(v) for p, v in run["rewards"].items())
            assert all(isinstance(p, str) and _number(v) for p, v in run["transfers"].items())
            assert run["contract"] is None or isinstance(run["contract"], str)
            assert run["episodes"] and all(set(e) >= {"episode", "rewards", "transfers", "welfare", "gini"} for e in run["episodes"])


def test_run_writes_the_run_directory(double_vein_run) -> None:
    out, stdout = double_vein_run
    assert (out / "transcripts").is_dir()
    metrics = json.loads((out / "metrics.json").read_text())
    check_metrics_schema(metrics)
    assert metrics["world"] == "double_vein" and metrics["agents"] == "scripted" and metrics["status"] == "complete"
    assert list(metrics["conditions"]) == ["none", "negotiate"]
    for name, title in (("welfare", "double_vein: social welfare"), ("rewards", "reward per player"),
                        ("items", "items Gizmo holds")):
        svg = ElementTree.parse(out / "plots" / f"{name}.svg").getroot()
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        texts = [t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text")]
        assert any(title in t for t in texts), texts
        assert any(p.get("fill") == "none" and p.get("stroke") not in (None, "black")  # a curve, in a page colour
                   for p in svg.iter("{http://www.w3.org/2000/svg}path"))
    # double_vein has no dynamics rules, so no resource-stock figure
    assert not (out / "plots" / "regions.svg").exists()
    # Table-1 summary and the report's path on stdout
    assert "agents: scripted (deterministic baseline, no LLM)" in stdout
    assert re.search(r"negotiate\s+0\.128 ± 0\.000\s+78\.00 ± 0\.00", stdout), stdout  # piped: plain columns
    assert f"report: {out / 'report.html'}" in stdout


def test_report_is_self_contained(double_vein_run) -> None:
    out, _ = double_vein_run
    html = (out / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert html.count('src="data:image/svg+xml;base64,') == 4  # outcomes per condition, welfare, rewards, items
    assert "agents: scripted (deterministic baseline, no LLM)" in html
    assert "At the end of the scenario Gizmo transfers 14 emeralds to Glitch." in html
    assert "I searched 4 candidate contracts, each played on the simulator" in html  # what it optimised
    assert "Negotiation (scripted)" in html


def test_contract_condition_reaches_the_optimum_and_keeps_each_player_at_its_outside_option(double_vein_run) -> None:
    """The paper's qualitative result with the scripted JS players: contract welfare 78 against 74 without, and no
    player below what it gets without a contract (Glitch, first to the iron_pickaxe, gets 42 alone: the contract's
    transfer of 14 leaves it 44 and Gizmo 34, each its outside option and half the surplus of 4)."""
    out, _ = double_vein_run
    c = json.loads((out / "metrics.json").read_text())["conditions"]
    assert c["negotiate"]["welfare"]["mean"] == 78 and c["none"]["welfare"]["mean"] == 74
    assert c["none"]["gini"]["mean"] > c["negotiate"]["gini"]["mean"]
    none_rewards = c["none"]["runs"][0]["rewards"]
    for run in c["negotiate"]["runs"]:
        assert run["transfers"] == {"Gizmo": -14.0, "Glitch": 14.0} and run["contract"].startswith("1. Gizmo mines all iron_ore.")
        assert run["contract"].endswith("Gizmo transfers 14 emeralds to Glitch.")
        assert all(run["rewards"][p] >= none_rewards[p] for p in none_rewards) and sum(run["transfers"].values()) == 0
    assert all(r["contract"] is None and r["transfers"] == {"Gizmo": 0.0, "Glitch": 0.0} for r in c["none"]["runs"])


def test_welfare_plot_marks_the_settled_welfare_where_the_judge_moved_rewards(double_vein_run) -> None:
    """The welfare curve is the inventories' worth; where the judge's settlement changed rewards (the negotiated
    contract's transfers), the settled welfare the tables report is a point at the end, named in the legend."""
    out, _ = double_vein_run
    svg = (out / "plots" / "welfare.svg").read_text()
    assert "negotiate: after the judge&#x27;s settlement" in svg or "negotiate: after the judge's settlement" in svg
    assert "none: after" not in svg and "inventories" in svg


def test_equal_rewards_after_transfers_are_each_drawn_in_the_rewards_plot(double_vein_run) -> None:
    """The negotiated contract evens Gizmo and Glitch out at 39 each: their two "after transfers" diamonds were
    drawn on top of each other, hiding Gizmo's. Now no marker covers another."""
    out, _ = double_vein_run
    svg = (out / "plots" / "rewards.svg").read_text()
    diamonds = re.findall(r'<path d="M([0-9.]+) ([0-9.]+)l([0-9.]+) \3l-\3 \3l-\3 -\3Z" fill="(#[0-9a-f]+)"/>', svg)
    r = float(diamonds[0][2])
    centres = [(float(x), float(y) + r, fill) for x, y, _, fill in diamonds]  # the legend's is black
    players = {fill for _, _, fill in centres}
    assert len(players) == 2 and len(centres) == 4  # a diamond per player in each condition's panel
    for i, (x, y, _) in enumerate(centres):
        assert all(abs(x - a) >= 2 * r or abs(y - b) >= 2 * r for a, b, _ in centres[i + 1:])


def test_report_rebuilds_everything_from_events_alone(double_vein_run, tmp_path: Path, capsys) -> None:
    out, _ = double_vein_run
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "events.jsonl").write_bytes((out / "events.jsonl").read_bytes())
    assert main(["report", str(copy)]) == 0
    assert (copy / "metrics.json").read_bytes() == (out / "metrics.json").read_bytes()
    assert {p.name for p in (copy / "plots").iterdir()} == {f"{name}.{ext}" for name in ("measures", "welfare", "rewards",
                                                                                          "items") for ext in ("svg", "pdf")}
    assert {p.name for p in (copy / "replays").iterdir()} == {p.name for p in (out / "replays").iterdir()}
    assert (copy / "report.html").is_file()
    assert f"report: {copy / 'report.html'}" in capsys.readouterr().out


def test_report_works_on_a_log_cut_off_mid_line(double_vein_run, tmp_path: Path, capsys) -> None:
    out, _ = double_vein_run
    lines = (out / "events.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"kind": "world"' in line and '"condition": "negotiate"' in line)
    run_dir = tmp_path / "cut"
    run_dir.mkdir()
    (run_dir / "events.jsonl").write_text("".join(lines[: cut + 5]) + lines[cut + 5][:40])
    assert main(["report", str(run_dir)]) == 0
    printed = capsys.readouterr().out
    assert "last line is incomplete" in printed and "no run_end" in printed
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["status"] == "incomplete"
    assert metrics["conditions"]["none"]["seeds_finished"] == 2
    assert metrics["conditions"]["negotiate"]["seeds_finished"] == 0
    assert metrics["conditions"]["negotiate"]["welfare"]["mean"] is None
    assert "(unfinished)" in (run_dir / "report.html").read_text()


def test_contract_text_is_recorded_and_unavailable_parts_are_clear_errors(tmp_path: Path, capsys) -> None:
    text = "1. Glitch mines all diamond_ore.\n2. Gizmo mines all iron_ore."
    out = tmp_path / "given"
    assert main(["run", "double_vein", "--contract", text, "--seeds", "1", "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    (run,) = metrics["conditions"]["contract"]["runs"]
    assert run["contract"] == text and run["contract_source"] == "given"
    assert read_run(out / "events.jsonl").config.conditions == [ConditionSpec("contract", "given", text)]
    capsys.readouterr()
    assert main(["run", "double_vein", "--backend", "minecraft", "--server", "nohost", "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert "--server must be HOST:PORT" in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()
    assert main(["run", "--contract", " ", "--out", str(tmp_path / "y")]) == 1
    assert "empty contract text" in capsys.readouterr().err


class FailsOnSeedOne:
    """The real scripted engine, except that seed 1 meets a bug in the middle of its episode."""

    def __init__(self) -> None:
        self.inner = scripted_participants().engine

    async def play(self, episode: EpisodeInput, log: EpisodeLog) -> EpisodeOutcome:
        if episode.seed == 1:
            raise RuntimeError("body lost its connection")
        return await self.inner.play(episode, log)


def test_a_failing_seed_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    plan = RunPlan(load_world("double_vein"), "sim", "scripted", [ConditionSpec("none", "none")], [0, 1, 2], 1)
    outcome = Runner.create(plan, tmp_path / "r", RunOptions(participants=Participants(FailsOnSeedOne(),
                                                                                       ScriptedNegotiation()))).run()
    outputs, run_dir = outcome.outputs, outcome.run_dir
    assert outcome.exit_status == 3 and [u.status for u in outcome.units] == ["completed", "failed", "completed"]
    assert outcome.units[1].cause == "internal" and outcome.units[1].message == "RuntimeError: body lost its connection"
    none = outputs.metrics["conditions"]["none"]
    assert outputs.metrics["status"] == "complete"
    assert [r["seed"] for r in none["runs"]] == [0, 2]
    assert none["errors"] == [{"seed": 1, "error": "RuntimeError: body lost its connection", "cause": "internal"}]
    assert none["units"] == {"completed": 2, "failed": 1, "interrupted": 0, "not_started": 0}
    assert none["failures"] == {"internal": {"count": 1, "seeds": [1],
                                             "first_message": "RuntimeError: body lost its connection"}}
    assert none["welfare"]["n"] == 2 and not outputs.metrics["all_completed"]
    assert "Seed failed (cause internal): RuntimeError: body lost its connection" in run_dir.report.read_text()


@pytest.mark.slow  # test_run_resume.py::test_ctrl_c_then_resume_equals_the_uninterrupted_run checks the same in the fast suite
def test_ctrl_c_leaves_a_valid_log_and_a_report(tmp_path: Path) -> None:
    """Slow (`make test-all`): the same checks on a cleanup run are made in the fast suite by
    test_run_resume.py::test_ctrl_c_then_resume_equals_the_uninterrupted_run (double_vein, then resumed)."""
    out = tmp_path / "interrupted"
    env = {**shell_env(), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "blockpact.cli", "run", "cleanup", "--seeds", "200", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (out / "events.jsonl").exists() and '"kind": "episode_end"' in (out / "events.jsonl").read_text():
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    run = read_run(out / "events.jsonl")
    assert run.status == "interrupted" and not run.warnings
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["status"] == "interrupted" and metrics["conditions"]["none"]["seeds_finished"] >= 1
    assert f"report: {out / 'report.html'}" in stdout
    (out / "metrics.json").unlink()
    assert main(["report", str(out)]) == 0
    assert json.loads((out / "metrics.json").read_text()) == metrics


def test_a_player_holding_nothing_valued_gets_a_flat_line_over_the_episode(tmp_path: Path) -> None:
    """Not an empty panel with a 0-1 time axis for a player who held nothing."""
    world = tmp_path / "idle.toml"  # Glitch values only melons, which nothing here yields: it holds none
    text = (BUILTIN_DIR / "double_vein.toml").read_text()
    world.write_text(text.replace("values = { raw_iron = 3, diamond = 5 }", "values = { melon = 1 }"))
    out = tmp_path / "run"
    assert main(["run", str(world), "--contract", "none", "--seeds", "1", "--out", str(out)]) == 0
    svg = (out / "plots" / "items.svg").read_text()
    glitch = svg[svg.index("items Gizmo holds"):]
    # a real time axis (an empty panel had a 0-1 one), cut where Gizmo's items stop changing, and said so
    assert "none of the valued items" in glitch and "of 300 s shown" in glitch
