"""The run directory's event log: written line by line, read back into typed records, robust to a cut-off end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.errors import UserError
from blockpact.experiments.plan.run_plan import ConditionSpec, RunPlan
from blockpact.experiments.log.records import build_run, read_run
from blockpact.experiments.log.run_events import Coords, EventWriter, RunLogError, read_events
from blockpact.experiments.log.rundir import RunDir, default_run_root
from blockpact.experiments.play.protocol import run_start_data
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import load_world


def _plan() -> RunPlan:
    return RunPlan(load_world("double_vein"), "sim", "scripted", [ConditionSpec("none", "none")], [0], 1)


def test_every_line_is_flushed_with_seq_wall_kind_and_coordinates(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as writer:
        writer.emit("run_start", run_start_data(_plan()))
        writer.emit("seed_start", {}, Coords("none", 0))
        # readable before close: each line is flushed as it is written
        lines = path.read_text().splitlines()
        assert [json.loads(line)["kind"] for line in lines] == ["run_start", "seed_start"]
        writer.emit("world", {"event": Event(1.5, "Gizmo", "chat", {"message": "hi"}).to_json()}, Coords("none", 0, 0))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["seq"] for r in rows] == [1, 2, 3]
    assert all(isinstance(r["wall"], float) for r in rows)
    assert "condition" not in rows[0] and rows[1]["condition"] == "none" and rows[1]["seed"] == 0
    assert rows[2]["episode"] == 0 and rows[2]["data"]["event"]["data"]["message"] == "hi"
    start = rows[0]["data"]
    assert "[world]" in start["world_source"] and start["versions"]["blockpact"]
    assert start["values"]["Glitch"] == {"diamond": 5.0, "raw_iron": 3.0}


def test_records_are_rebuilt_from_the_log(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    c = Coords("none", 0, 0)
    with EventWriter(path) as w:
        w.emit("run_start", run_start_data(_plan()))
        w.emit("seed_start", {}, c.at(episode=None))
        w.emit("contract", {"text": None, "source": "none", "accepted_round": None}, c.at(episode=None))
        w.emit("episode_start", {"world_seed": 0, "contract": None, "critiques": {}}, c)
        w.emit("world", {"event": Event(0.0, None, "episode_start", {"inventories": {"Gizmo": {}, "Glitch": {}}}).to_json()}, c)
        w.emit("judgment", {"source": "formal", "transfers": {"Gizmo": -2, "Glitch": 2}, "critiques": {"Gizmo": "pay"}}, c)
        w.emit("episode_end", {"rewards": {"Gizmo": 10, "Glitch": 12}, "inventory_rewards": {"Gizmo": 12, "Glitch": 10},
                               "transfers": {"Gizmo": -2, "Glitch": 2}, "sim_seconds": 300}, c)
        w.emit("seed_end", {"status": "ok"}, c.at(episode=None))
        w.emit("something_new", {}, c)
        w.emit("run_end", {"status": "complete"})
    run = read_run(path)
    assert run.status == "complete" and run.config.players == ["Gizmo", "Glitch"]
    (seed,) = run.seeds
    assert seed.finished and seed.contract_source == "none"
    ep = seed.final
    assert ep is not None and ep.rewards == {"Gizmo": 10.0, "Glitch": 12.0}
    assert ep.judgments[0].transfers == {"Gizmo": -2.0, "Glitch": 2.0}
    assert ep.events[0].kind == "episode_start"
    assert any("something_new" in w for w in run.warnings)


def _write_run(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as w:
        w.emit("run_start", run_start_data(_plan()))
        w.emit("seed_start", {}, Coords("none", 0))
        w.emit("run_end", {"status": "complete"})
    return path


def test_a_cut_off_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = _write_run(tmp_path)
    text = path.read_text()
    path.write_text(text[: len(text) - 12])  # the run died while writing run_end
    read = read_events(path)
    assert [e.kind for e in read.events] == ["run_start", "seed_start"]
    assert len(read.warnings) == 1 and ":3: last line is incomplete" in read.warnings[0]
    run = build_run(read.events, read.warnings)
    assert run.status == "incomplete"
    assert any("no run_end" in w for w in run.warnings)


def test_damage_before_the_last_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = _write_run(tmp_path)
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunLogError, match=r"events.jsonl:2: damaged event line"):
        read_events(path)
    path.write_text('{"seq": 1, "wall": 0, "kind": "seed_start", "data": {}}\n')
    with pytest.raises(RunLogError, match="first event is not run_start"):
        read_run(path)


def test_run_dir_never_reuses_a_log_and_names_runs_by_world_and_time(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "r")
    assert run.transcripts.is_dir()
    run.events.write_text("")
    with pytest.raises(UserError, match="already exists"):
        RunDir.create(tmp_path / "r")
    with pytest.raises(UserError, match="not a run directory"):
        RunDir.existing(tmp_path / "nowhere")
    first = default_run_root("double_vein", tmp_path)
    first.mkdir()
    second = default_run_root("double_vein", tmp_path)
    assert first.name.startswith("double_vein-") and second != first
