"""`blockpact resume DIR`: a run cut short (Ctrl-C, a crash, a torn last line) is finished from its
events.jsonl alone, and ends with the same metrics as the run that was never interrupted."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockpact.llm import read_transcript
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.plan.preflight import is_check_request
from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
from blockpact.experiments.play.protocol import run_start_data
from blockpact.experiments.log.records import read_run
from blockpact.experiments.log.run_events import Coords, EventWriter, read_events
from blockpact.worlds.world_files import load_world
from test_run_cli import shell_env
from test_run_llm import LLM_ENV


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("resume") / "full"
    assert main(["run", "double_vein", "--seeds", "3", "--out", str(out)]) == 0  # in this process: no second start-up
    return out


def metrics(run_dir: Path) -> dict:
    return json.loads((run_dir / "metrics.json").read_text())


def lines_of(run_dir: Path) -> list[str]:
    return (run_dir / "events.jsonl").read_text().splitlines(keepends=True)


def line_index(lines: list[str], kind: str, condition: str, seed: int, nth: int = 0) -> int:
    hits = [i for i, line in enumerate(lines) if (e := json.loads(line))["kind"] == kind
            and e.get("condition") == condition and e.get("seed") == seed]
    return hits[nth]


def cut_copy(source: Path, target: Path, keep_lines: int, tail: str = "") -> Path:
    """A run directory whose log holds the first `keep_lines` lines of `source`'s, then `tail`."""
    target.mkdir()
    (target / "events.jsonl").write_text("".join(lines_of(source)[:keep_lines]) + tail)
    return target


def assert_same_outcome(resumed: Path, full: Path) -> None:
    got, want = metrics(resumed), metrics(full)
    assert got["conditions"] == want["conditions"]
    assert got["status"] == "complete" and got["warnings"] == [] == want["warnings"]
    # LLM accounting differs: a resumed run's redone calls come from the response cache
    assert {k for k in want if got[k] != want[k]} <= {"resumes", "llm"}
    read_events(resumed / "events.jsonl")  # whole lines, seq increasing throughout


def events_after_resume(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for line in lines_of(run_dir)]
    start = max(i for i, r in enumerate(rows) if r["kind"] == "run_resumed")
    return rows[start:]


CUTS = {
    # name: (where the cut falls, how much of the next line survives)
    "mid-line, half-way through a negotiated unit": (lambda ls: line_index(ls, "world", "negotiate", 1, 10), 55),
    "whole lines, right after a unit ended": (lambda ls: line_index(ls, "seed_end", "none", 0) + 1, 0),
    "a whole last line that lost its newline": (lambda ls: line_index(ls, "episode_end", "none", 1) + 1, -1),
    "only run_start left": (lambda ls: 1, 0),
}


@pytest.mark.parametrize("cut", list(CUTS))
def test_resume_after_a_cut_equals_the_uninterrupted_run(uninterrupted: Path, tmp_path: Path, cut: str, capsys) -> None:
    keep_of, partial = CUTS[cut]
    lines = lines_of(uninterrupted)
    keep = keep_of(lines)
    if partial > 0:
        run_dir = cut_copy(uninterrupted, tmp_path / "cut", keep, lines[keep][:partial])
    elif partial < 0:  # the last kept line is whole but its "\n" never reached the disk
        run_dir = cut_copy(uninterrupted, tmp_path / "cut", keep - 1, lines[keep - 1].rstrip("\n"))
    else:
        run_dir = cut_copy(uninterrupted, tmp_path / "cut", keep)
    before = read_run(run_dir / "events.jsonl")
    finished = {(s.condition, s.seed) for s in before.seeds if s.finished}
    started = {(s.condition, s.seed) for s in before.seeds} - finished

    assert main(["resume", str(run_dir)]) == 0
    assert "resuming" in capsys.readouterr().err
    assert_same_outcome(run_dir, uninterrupted)

    after = events_after_resume(run_dir)
    resumed = after[0]["data"]
    redone = {(u["condition"], u["seed"]) for u in resumed["units"]}
    assert redone == {(c, s) for c in ("none", "negotiate") for s in range(3)} - finished
    assert {(u["condition"], u["seed"]) for u in resumed["superseded"]} == started
    # finished units, their negotiated contracts included, are not played again
    assert all((e["condition"], e["seed"]) in redone for e in after if "condition" in e)
    assert after[-1]["kind"] == "run_end" and after[-1]["data"]["status"] == "complete"
    if partial > 0:
        assert resumed["dropped_line"] == {"line": keep + 1, "bytes": partial, "text": lines[keep][:partial]}
    else:
        assert resumed["dropped_line"] is None
    # the superseded partial unit counts once: one episode with one program per player
    run = read_run(run_dir / "events.jsonl")
    for seed in run.seeds:
        assert [len(ep.programs) for ep in seed.episodes] == [2]


def test_ctrl_c_then_resume_equals_the_uninterrupted_run(uninterrupted: Path, tmp_path: Path) -> None:
    """Ctrl-C leaves a valid log, metrics and a report of what finished (rebuilt alike by `blockpact report`),
    and `blockpact resume` finishes the run with the uninterrupted run's metrics. The Ctrl-C needs a process of
    its own; the report and the resume run in this process (a second Python and Node start would add nothing)."""
    out = tmp_path / "interrupted"
    log = out / "events.jsonl"
    command = [sys.executable, "-m", "blockpact.cli", "run", "double_vein", "--seeds", "3", "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**shell_env(), "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (log.exists() and '"kind": "seed_end"' in log.read_text()):
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, stderr
    assert f"blockpact resume {out}" in stderr and "interrupted" in stderr and "Traceback" not in stderr
    assert f"report: {out / 'report.html'}" in stdout
    run = read_run(log)
    assert run.status == "interrupted" and not run.warnings  # a valid log
    interrupted = metrics(out)
    assert interrupted["status"] == "interrupted" and interrupted["conditions"]["negotiate"]["seeds_finished"] < 3
    assert sum(c["seeds_finished"] for c in interrupted["conditions"].values()) >= 1
    (out / "metrics.json").unlink()  # the outputs of what finished are rebuilt from the log alone
    assert main(["report", str(out)]) == 0
    assert metrics(out) == interrupted

    assert main(["resume", str(out)]) == 0
    assert_same_outcome(out, uninterrupted)
    (resume,) = metrics(out)["resumes"]
    assert resume["units"] and not resume["dropped_torn_line"]
    assert "Resumed after event" in (out / "report.html").read_text()


def test_resuming_a_finished_run_says_so_and_changes_nothing(uninterrupted: Path, tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "done"
    shutil.copytree(uninterrupted, run_dir)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in run_dir.rglob("*") if p.is_file()}
    assert main(["resume", str(run_dir)]) == 0
    assert "the run is complete (6 of 6 condition-seed units completed); nothing to resume" in capsys.readouterr().out
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in run_dir.rglob("*") if p.is_file()} == before


def test_no_log_or_a_damaged_middle_line_is_a_clear_error(uninterrupted: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["resume", str(tmp_path / "empty")]) == 1
    assert "is not a run directory (no events.jsonl in it)" in capsys.readouterr().err
    lines = lines_of(uninterrupted)[:120]
    lines[40] = lines[40][:30] + "\n"
    run_dir = tmp_path / "damaged"
    run_dir.mkdir()
    (run_dir / "events.jsonl").write_text("".join(lines))
    assert main(["resume", str(run_dir)]) == 1
    err = capsys.readouterr().err
    assert "events.jsonl:41: damaged event line" in err and "Traceback" not in err
    assert (run_dir / "events.jsonl").read_text() == "".join(lines)  # untouched
    assert sorted(p.name for p in run_dir.iterdir()) == ["events.jsonl"]


def test_a_run_still_being_written_is_not_resumed(uninterrupted: Path, tmp_path: Path, capsys) -> None:
    lines = lines_of(uninterrupted)
    run_dir = cut_copy(uninterrupted, tmp_path / "running", line_index(lines, "world", "none", 1, 5) + 1)
    text = (run_dir / "events.jsonl").read_text()
    with EventWriter(run_dir / "events.jsonl"):  # the run's own process, still playing
        assert main(["resume", str(run_dir)]) == 1
    assert "is being written by another blockpact process" in capsys.readouterr().err
    assert (run_dir / "events.jsonl").read_text() == text
    assert sorted(p.name for p in run_dir.iterdir()) == ["events.jsonl"]


def test_records_ignore_the_partial_events_a_resume_supersedes(tmp_path: Path) -> None:
    plan = RunPlan(load_world("double_vein"), "sim", "scripted", [ConditionSpec("none", "none")], [0], 1)
    path = tmp_path / "events.jsonl"
    unit = Coords("none", 0)
    with EventWriter(path) as w:
        w.emit("run_start", run_start_data(plan))
        w.emit("seed_start", {}, unit)
        w.emit("contract", {"text": None, "source": "none", "accepted_round": None}, unit)
        w.emit("program_result", {"player": "Gizmo", "success": False, "error": "cut short"}, unit.at(episode=0))
    with EventWriter(path, last_seq=4) as w:
        w.emit("run_resumed", {"after_seq": 4, "units": [{"condition": "none", "seed": 0}],
                               "superseded": [{"condition": "none", "seed": 0}], "dropped_line": None})
        w.emit("seed_start", {}, unit)
        w.emit("contract", {"text": None, "source": "none", "accepted_round": None}, unit)
        w.emit("program_result", {"player": "Gizmo", "success": True, "error": None}, unit.at(episode=0))
        w.emit("episode_end", {"rewards": {"Gizmo": 1, "Glitch": 2}}, unit.at(episode=0))
        w.emit("seed_end", {"status": "ok"}, unit)
        w.emit("run_end", {"status": "complete"})
    run = read_run(path)
    assert [e.seq for e in read_events(path).events] == list(range(1, 12))
    assert run.status == "complete" and not run.warnings
    (seed,) = run.seeds
    assert [p.success for p in seed.episodes[0].programs] == [True]
    assert run.resumes[0].superseded == [("none", 0)]


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-resume")


def test_llm_resume_answers_finished_calls_from_the_run_cache(llm_env, tmp_path: Path) -> None:
    """Cut after the negotiated unit's episode but before its seed_end: the unit is redone from its
    start with its skill libraries set aside, so every request matches a cached one and none is sent."""
    full, cache = tmp_path / "full", tmp_path / "cache"
    with OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), api_key="sk-test-resume") as stub:
        assert main(["run", "double_vein", "--agents", "llm", "--seeds", "1", "--out", str(full), "--llm-base-url",
                     stub.base_url, "--llm-model", "stub-model", "--llm-cache-dir", str(cache)]) == 0
        run_dir = cut_copy(full, tmp_path / "cut", line_index(lines_of(full), "episode_end", "negotiate", 0) + 1)
        shutil.copytree(full / "skills", run_dir / "skills")
        shutil.copytree(full / "transcripts", run_dir / "transcripts")
        sent = len(stub.chat_requests)
        assert main(["resume", str(run_dir)]) == 0
        new = stub.chat_requests[sent:]
        assert len(new) == 1 and is_check_request(new[0].body)  # only the pre-flight check; no work asked again
    assert_same_outcome(run_dir, full)
    start = json.loads(lines_of(run_dir)[0])["data"]
    assert start["llm"]["cache_dir"] == str(cache) and start["llm"]["api_key_env"] == "OPENAI_API_KEY"
    before = len(read_transcript(full / "transcripts" / "llm.jsonl"))
    redone = read_transcript(run_dir / "transcripts" / "llm.jsonl")[before:]
    assert redone and all(r["cached"] for r in redone)
    resumed = events_after_resume(run_dir)[0]["data"]
    set_aside = resumed["skills_set_aside"]
    assert set_aside == [f"superseded/after-seq-{resumed['after_seq']}/skills/negotiate/seed-0"]
    assert (run_dir / set_aside[0]).is_dir() and (run_dir / "skills" / "negotiate" / "seed-0").is_dir()
