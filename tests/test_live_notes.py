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
    from blockpact.experiments.outputs.live_notes import runtime_late_s, unsupported_parts
    from blockpact.experiments.log.records import EpisodeRecord
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


def test_a_line_about_a_live_episode_names_its_condition_and_seed(tmp_path: Path) -> None:
    """stderr said "seed 0: the bots' Node runtime stalled ..." for a seed run once per condition, and not which
    condition had run slowed; metrics.json says "negotiate seed 0". The episode engine asks a world factory that
    has them for the condition's worlds, and the live backend's name the condition in a line about the episode."""
    from blockpact.bridge.live.backend import LiveWorlds
    from blockpact.bridge.sim import SimWorld
    from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
    from blockpact.experiments.play.runner import RunOptions, Runner
    from blockpact.worlds.world_files import load_world

    asked: list[tuple[str, int]] = []

    class Worlds:  # a factory with conditions' worlds, as LiveWorlds has, on the simulator
        def __call__(self, spec, seed):
            raise AssertionError("the engine asked for a world without its condition")

        def for_condition(self, condition: str):
            return lambda spec, seed: asked.append((condition, seed)) or SimWorld(spec, seed)

    conditions = [ConditionSpec("none", "none"), ConditionSpec("negotiate", "negotiate")]
    plan = RunPlan(load_world("double_vein"), "sim", "scripted", conditions, [0, 1], 1)
    assert Runner.create(plan, tmp_path / "r", RunOptions(worlds=Worlds(), plots=False)).run().exit_status == 0
    assert sorted(asked) == [("negotiate", 0), ("negotiate", 1), ("none", 0), ("none", 1)]

    said: list[str] = []
    backend = LiveWorlds(announce=said.append)
    world = backend.for_condition("negotiate")(load_world("double_vein"), 3)
    world.announce("seed 3: the bots' Node runtime stalled for up to 7.5 s at a time")  # as LiveWorld says it
    world.announce("viewer of Gizmo: http://localhost:3007")  # not about the episode: as it was
    backend(load_world("double_vein"), 4).announce("seed 4: stalled")  # no condition given: as it was
    assert said == ["negotiate seed 3: the bots' Node runtime stalled for up to 7.5 s at a time",
                    "viewer of Gizmo: http://localhost:3007", "seed 4: stalled"]
