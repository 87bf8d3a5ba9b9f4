"""A live episode that completed slowed (`runtime_late`) or without part of its world (`live_unsupported`) is said
so in metrics.json, per episode, and as a warning in metrics.json and report.html, not only on stderr during the
run (a reader of the files days later decides from them what to publish)."""

from __future__ import annotations

import json
from pathlib import Path

from blockpact.cli import main


def _with_world_events(run: Path, added: dict[int, list[dict]]) -> None:
    """Insert world events (kind, data) into seed N's episode just before its episode_end, as a live run logs them
    (the log's seq numbers follow on)."""
    lines = []
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        inner = event.get("data", {}).get("event", {})
        if event["kind"] == "world" and inner.get("kind") == "episode_end":
            for extra in added.get(event["seed"], []):
                lines.append(json.dumps({**event, "data": {"event": {**inner, **extra}}}))
        lines.append(line)
    renumbered = [json.dumps({**json.loads(line), "seq": seq}) for seq, line in enumerate(lines, 1)]
    (run / "events.jsonl").write_text("\n".join(renumbered) + "\n")


def test_stalled_and_unsupported_episodes_are_marked_in_metrics_and_report(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["run", "double_vein", "--seeds", "3", "--contract", "none", "--out", str(run)]) == 0
    parts = ["smelting: blockpact's server opens no furnace window (a furnace at [4, 64, 1])"]
    _with_world_events(run, {
        0: [{"kind": "live_unsupported", "data": {"parts": parts}}],
        1: [{"kind": "runtime_late", "data": {"late_s": 2.5}}, {"kind": "runtime_late", "data": {"late_s": 3.75}}],
        2: [{"kind": "live_unsupported", "data": {"parts": parts}}],
    })
    assert main(["report", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    episodes = [r["episodes"][0] for r in metrics["conditions"]["none"]["runs"]]
    assert [e["runtime_late_s"] for e in episodes] == [None, 3.75, None]
    assert [e["live_unsupported"] for e in episodes] == [parts, [], parts]
    late, unsupported = [w for w in metrics["warnings"] if w.startswith("live:")]
    assert "1 completed episode(s): none seed 1 (3.75 s)" in late and "slowed" in late
    assert unsupported == f"live: the server did not reproduce part of the world: {parts[0]}"  # once, not per seed
    html = (run / "report.html").read_text()
    assert "none seed 1 (3.75 s)" in html and "opens no furnace window" in html


def test_a_simulated_run_has_no_live_notes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", "double_vein", "--seeds", "1", "--contract", "none", "--out", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    (episode,) = metrics["conditions"]["none"]["runs"][0]["episodes"]
    assert episode["runtime_late_s"] is None and episode["live_unsupported"] == []
    assert not [w for w in metrics["warnings"] if w.startswith("live:")]


def test_a_failed_attempts_stall_is_not_the_completed_attempts() -> None:
    """on_disconnect = "retry" keeps a failed attempt's events before the next episode_start (a review)."""
    from blockpact.experiments.live_notes import runtime_late_s, unsupported_parts
    from blockpact.experiments.records import EpisodeRecord
    from blockpact.worlds.events import Event

    parts = {"parts": ["harvest.iron_ore: tool overrides"]}
    episode = EpisodeRecord(0, events=[
        Event(0.0, None, "episode_start", {}), Event(0.0, None, "live_unsupported", parts),
        Event(9.0, None, "runtime_late", {"late_s": 5.0}), Event(9.0, None, "episode_failed", {"attempt": 1}),
        Event(0.0, None, "episode_start", {"attempt": 1}), Event(0.0, None, "live_unsupported", parts)])
    assert runtime_late_s(episode) is None and unsupported_parts(episode) == parts["parts"]
    episode.events.append(Event(20.0, None, "runtime_late", {"late_s": 2.5}))
    assert runtime_late_s(episode) == 2.5


def test_an_episode_whose_bots_left_the_simulators_order_is_marked(tmp_path: Path) -> None:
    """Lockstep (bridge/live/lockstep.py): an episode whose bots could not follow their twin's order had its races
    decided by timing; metrics.json says so per episode and in a warning, and the report names the run's mode."""
    run = tmp_path / "run"
    assert main(["run", "double_vein", "--seeds", "3", "--contract", "none", "--out", str(run)]) == 0
    lines = (run / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    start["data"]["live"] = {"server": None, "auth": "offline", "viewer": False, "lockstep": True}
    (run / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    reason = "Glitch's search for iron_ore at (3, 64, 3) (simulated 8.94 s) got (2, 64, 3) live"
    _with_world_events(run, {
        0: [{"kind": "lockstep_diverged", "agent": "Glitch", "data": {"reason": reason, "done": 30, "scheduled": 49}},
            {"kind": "lockstep", "data": {"diverged": reason, "done": 30, "scheduled": 49}}],
        1: [{"kind": "lockstep", "data": {"diverged": None, "done": 49, "scheduled": 49, "cut": 0}}],
        2: [{"kind": "lockstep", "data": {"diverged": None, "done": 40, "scheduled": 49, "cut": 9}}],
    })
    assert main(["report", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["lockstep"] is True
    episodes = [r["episodes"][0] for r in metrics["conditions"]["none"]["runs"]]
    assert [e["lockstep"] for e in episodes] == [{"followed": 30, "scheduled": 49, "cut": 0, "diverged": [reason]},
                                                {"followed": 49, "scheduled": 49, "cut": 0, "diverged": []},
                                                {"followed": 40, "scheduled": 49, "cut": 9, "diverged": []}]
    unordered, cut = [w for w in metrics["warnings"] if w.startswith("live lockstep:")]
    assert f"1 completed episode(s), whose races were then decided by timing: none seed 0 ({reason})" in unordered
    assert "episode's end came before" in cut and "what they did was in order): none seed 2 (9 of 49 actions)" in cut
    html = (run / "report.html").read_text()
    assert "live in lockstep" in html and "decided by timing" in html
