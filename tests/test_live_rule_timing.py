"""Live lateness of the world's dynamics: the world master counts, per rule, the ticks it applied a second or more
after they were due and the ticks due before the world's episode length that never fired (a live episode that
ended early, a busy machine), logs them as `dynamics_timing`, and metrics.json and the report say so per episode
and in a warning (on the simulator every rule fires at its tick, and nothing is said)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from blockpact.bridge.live.world_master import WorldMaster
from blockpact.cli import main
from blockpact.worlds.state import WorldState
from blockpact.worlds.world_files import load_world
from test_live_notes import _with_world_events

WORLD = Path(__file__).parent / "worlds" / "guarded_patch.toml"


class _Server:
    """A world access that reads back what the mirror holds and takes the master's block changes."""

    plugin = True

    def __init__(self, state: WorldState) -> None:
        self.state, self.commands = state, []

    def drain(self) -> tuple[list[dict[str, Any]], int]:
        return [], 0

    def read_blocks(self, lo, hi) -> list[str]:  # noqa: ANN001
        region = next(r for r in self.state.spec.regions.values() if (r.lo, r.hi) == (lo, hi))
        return [self.state.block_at(pos) for pos in region.cells()]

    def positions(self) -> dict[str, list[float]]:
        return {}

    def change_blocks(self, command: str, positions, cause: str) -> None:  # noqa: ANN001
        self.commands.append(command)

    def chest(self, pos) -> None:  # noqa: ANN001
        return None


def test_the_world_master_counts_late_and_missed_ticks_per_rule() -> None:
    spec = load_world(WORLD)  # two grow rules, every 30 s, in a 90 s episode
    state = WorldState(spec)
    master = WorldMaster(_Server(state), spec, state)  # type: ignore[arg-type]
    master.start()
    master.started_at -= 34.0  # the first tick the master gets to run is 34 s in: the 30 s period fires 4 s late
    master.tick()
    master.started_at += 34.0 - 50.0  # the episode ends at 50 s: the period due at 60 s never fires
    master.final_check([])
    [event] = [e for e in state.log.events if e.kind == "dynamics_timing"]
    pumpkins, melons = event.data["rules"]
    assert pumpkins["rule"] == "grow pumpkin in pumpkins" and melons["rule"] == "grow melon in melons"
    assert pumpkins["due"] == 3 and pumpkins["late"] == 1 and pumpkins["first_late_at"] == 30.0
    assert 3.9 <= pumpkins["max_late_s"] <= 4.5
    assert pumpkins["missed"] == 2 and pumpkins["first_missed_at"] == 60.0  # 60 s and 90 s never came
    assert 49.9 <= event.data["ended_at"] <= 50.5 and event.data["episode_seconds"] == 90


def test_late_and_missed_rules_are_in_metrics_and_the_report(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", str(WORLD), "--seeds", "1", "--contract", "none", "--out", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["conditions"]["none"]["runs"][0]["episodes"][0]["dynamics_timing"] is None  # the simulator
    rules = [{"rule": "grow pumpkin in pumpkins", "due": 3, "late": 1, "max_late_s": 4.1, "first_late_at": 30.0,
              "missed": 2, "first_missed_at": 60.0},
             {"rule": "grow melon in melons", "due": 3, "late": 0, "max_late_s": 0.0, "first_late_at": None,
              "missed": 0, "first_missed_at": None}]
    _with_world_events(run, {0: [{"kind": "dynamics_timing", "data": {"rules": rules, "ended_at": 50.2,
                                                                      "episode_seconds": 90}}]})
    assert main(["report", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    timing = metrics["conditions"]["none"]["runs"][0]["episodes"][0]["dynamics_timing"]
    assert timing == {"rules": rules[:1], "ended_at": 50.2, "episode_seconds": 90}  # only the rule that was off
    [warning] = [w for w in metrics["warnings"] if "dynamics fired late" in w]
    assert ("none seed 0: grow pumpkin in pumpkins: 1 of 3 ticks late (up to 4.1 s, first due at 30 s), 2 never fired "
            "(the first due at 60 s; the episode ended at 50.2 s of 90)") in warning
    assert "2 never fired" in (run / "report.html").read_text()


def test_a_live_episode_that_ended_before_the_worlds_length_is_said(tmp_path: Path) -> None:
    """The issue's fishery: a quota round due after a live episode's clock stopped never started, and nothing said so."""
    run = tmp_path / "run"
    assert main(["run", str(WORLD), "--seeds", "1", "--contract", "none", "--out", str(run)]) == 0
    lines = []
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["kind"] == "run_start":
            event["data"]["backend"] = "minecraft"
        if event["kind"] == "episode_end":
            event["data"]["sim_seconds"] = 61.5
        lines.append(json.dumps(event))
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", str(run)]) == 0
    warnings = json.loads((run / "metrics.json").read_text())["warnings"]
    assert ("live: 1 completed episode(s) ended before the world's length, so the contract's periods, the players' "
            "rounds and the rules due after their end never came: none seed 0 (61.5 s of 90)") in warnings
