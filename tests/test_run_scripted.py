"""`blockpact run` with the scripted JS players on the simulator: the paper's result on cleanup,
episodes that hand critiques on, contracts only partly in the controlled form, and the README's
main-job command with its wall time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from blockpact.cli import main
from blockpact.config import PROJECT_ROOT
from blockpact.experiments.log.records import read_run

MAIN_JOB_SECONDS = 60  # "well under a minute" for 5 seeds of both conditions (measured: ~5 s)


def events_of(out: Path, kind: str) -> list[dict]:
    lines = (out / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def test_cleanup_contract_beats_the_baseline(tmp_path: Path, capsys) -> None:
    """One player cleans the river, the other harvests, the value is split by a transfer: higher
    welfare than both players harvesting, and Gini reported for both conditions."""
    out = tmp_path / "cleanup"
    assert main(["run", "cleanup", "--seeds", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    c = json.loads((out / "metrics.json").read_text())["conditions"]
    assert c["negotiate"]["welfare"]["mean"] > c["none"]["welfare"]["mean"]
    for name in ("none", "negotiate"):
        assert c[name]["gini"]["mean"] is not None and c[name]["seeds_finished"] == 2
        assert re.search(rf"{name}\s+\d\.\d{{3}} ± \d\.\d{{3}}\s", printed), printed
    for run in c["negotiate"]["runs"]:
        assert "cleans the river" in run["contract"] and "share their rewards equally" in run["contract"]
        assert sum(run["transfers"].values()) == 0 and max(run["transfers"].values()) > 0
        assert run["gini"] <= 0.06
    programs = [p for s in read_run(out / "events.jsonl").seeds for ep in s.episodes for p in ep.programs]
    assert programs and all(p.source == "scripted" and p.code and p.stopped_by_episode_end for p in programs)


def test_episodes_hand_the_judge_critique_to_the_next(tmp_path: Path) -> None:
    """Two players assigned the same vein: the formal judge critiques both in episode 0, and episode 1
    starts with that critique (and the last program) in each player's handover."""
    contract = "1. Gizmo mines all diamond_ore.\n2. Glitch mines all diamond_ore."
    out = tmp_path / "two"
    assert main(["run", "double_vein", "--contract", contract, "--seeds", "1", "--episodes", "2", "--out", str(out)]) == 0
    first, second = events_of(out, "episode_start")
    assert first["data"]["handover"] == {} and first["episode"] == 0
    judge_0 = {e["data"]["player"]: e["data"]["text"] for e in events_of(out, "critique")
               if e["episode"] == 0 and e["data"]["source"] == "judge"}
    # Glitch faces the chest first and takes the iron pickaxe, so the diamonds are all Glitch's: his mining them broke
    # clause 1 and left Gizmo none, so Gizmo's part is excused by it (and named so).
    assert judge_0 == {"Gizmo": "Excused by Glitch's breach: Gizmo mined no diamond_ore although clause 1 assigns it to him.",
                       "Glitch": "Glitch mined 6 diamond_ore assigned to Gizmo (clause 1)."}
    for player, text in judge_0.items():
        handover = second["data"]["handover"][player]
        assert handover["judge_critique"] == text
        assert "async function playByContract(bot)" in handover["last_code"]
    metrics = json.loads((out / "metrics.json").read_text())
    (run,) = metrics["conditions"]["contract"]["runs"]
    assert [e["episode"] for e in run["episodes"]] == [0, 1]


def test_cooperative_players_follow_what_parses_and_say_what_does_not(tmp_path: Path) -> None:
    contract = "1. Gizmo mines all iron_ore.\n2. Glitch mines all diamond_ore.\n3. Glitch dances at noon."
    out = tmp_path / "partial"
    assert main(["run", "double_vein", "--contract", contract, "--seeds", "1", "--out", str(out)]) == 0
    (seed,) = read_run(out / "events.jsonl").seeds
    (episode,) = seed.episodes
    for program in episode.programs:
        assert program.source == "scripted" and program.success
        assert "Not followed: clause 3 is free text a script cannot follow: Glitch dances at noon." in program.explain
    assert sum(episode.rewards.values()) == 78  # the clauses that parse are kept
    (formal,) = episode.judgments
    assert "Clause 3 is free text" in formal.reasoning
    assert "Glitch dances at noon" in (out / "report.html").read_text()


def test_the_readme_main_job_prints_table_one_and_the_report(tmp_path: Path) -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert "`make run` runs `blockpact run double_vein`" in readme
    assert re.search(r"^run: .*\n\t\$\(VENV\)/bin/blockpact run double_vein$", (PROJECT_ROOT / "Makefile").read_text(), re.M)
    exe = Path(sys.executable).parent / "blockpact"
    # as from a user's shell: JSPyBridge sets FORCE_COLOR in this process once a test has started Node
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    started = time.monotonic()
    done = subprocess.run([str(exe), "run", "double_vein"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=env)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert seconds < MAIN_JOB_SECONDS, f"the main job took {seconds:.1f} s"
    out = done.stdout
    assert "double_vein on sim: agents: scripted (deterministic baseline, no LLM)" in out
    assert re.search(r"condition\s+Gini \(mean ± std\)\s+welfare \(mean ± std\)\s+inventory welfare \(mean ± std\)", out), out
    assert re.search(r"none\s+0\.135 ± 0\.000\s+74\.00 ± 0\.00\s+74\.00 ± 0\.00\s+5/5", out), out
    # Glitch gets 42 without a contract, more than half of 78: the contract's transfer keeps it at its outside option
    assert re.search(r"negotiate\s+0\.128 ± 0\.000\s+78\.00 ± 0\.00\s+78\.00 ± 0\.00\s+5/5", out), out
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert f"report: {Path('runs') / run_dir.name / 'report.html'}" in out
    assert (run_dir / "report.html").is_file()
