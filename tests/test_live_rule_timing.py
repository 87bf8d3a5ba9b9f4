"""Live lateness of the world's dynamics and the contract's periods: the world master counts, per rule, the ticks it
applied a second or more after they were due and the ticks due before the world's episode length that never fired
(a live episode that ended early, a busy machine), logs `firing_late` as a late tick fires, `firing_missed` and
`dynamics_timing` at the end; metrics.json's `lateness` adds the quota periods the episode never reached, per
episode, seed and condition, and the report says so in a warning (on the simulator every rule and period fires at
its time: `lateness` is None per episode, zero per condition, and nothing is said). The same on a real server:
test_live_lateness.py."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from blockpact.bridge.live.world_master import WorldMaster
from blockpact.cli import main
from blockpact.bridge.live.rule_timing import ServerClock
from blockpact.experiments.outputs.lateness import period_firings
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

    def server_seconds(self, reset: bool = False) -> None:
        return None  # a server whose clock is not read (another server's)

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
    began = time.time()
    master.tick()
    master.started_at += 34.0 - 50.0  # the episode ends at 50 s: the period due at 60 s never fires
    master.final_check([])
    taken = time.time() - began  # the ticks' own time (a busy machine) passes on the episode's clock too
    [event] = [e for e in state.log.events if e.kind == "dynamics_timing"]
    pumpkins, melons = event.data["rules"]
    assert pumpkins["rule"] == "grow pumpkin in pumpkins" and melons["rule"] == "grow melon in melons"
    assert pumpkins["due"] == 3 and pumpkins["late"] == 1 and pumpkins["first_late_at"] == 30.0
    assert 3.9 <= pumpkins["max_late_s"] <= 4.5 + taken
    assert pumpkins["missed"] == 2 and pumpkins["first_missed_at"] == 60.0  # 60 s and 90 s never came
    assert 49.9 <= event.data["ended_at"] <= 50.5 + taken and event.data["episode_seconds"] == 90
    assert event.data["threshold_s"] == 1.0
    [late] = [e for e in state.log.events if e.kind == "firing_late"]  # as it fired, at 34 s
    assert late.data["firing"] == "rule" and late.data["due_at"] == 30.0 and 3.9 <= late.data["worst_late_s"] <= 4.5 + taken
    assert late.data["rules"] == ["grow pumpkin in pumpkins", "grow melon in melons"]  # both due at 30 s
    assert 33.9 <= late.time <= 34.5 + taken
    [missed] = [e for e in state.log.events if e.kind == "firing_missed"]
    assert missed.data["rules"] == ["grow pumpkin in pumpkins", "grow melon in melons"]
    assert missed.data["first_due_at"] == 60.0 and missed.data["missed"] == 4  # 60 s and 90 s, of each rule
    assert missed.time <= event.time


def test_a_master_on_time_logs_no_late_firing() -> None:
    spec = load_world(WORLD)
    state = WorldState(spec)
    master = WorldMaster(_Server(state), spec, state)  # type: ignore[arg-type]
    master.start()
    master.started_at -= 30.2  # each 30 s tick applied 0.2 s after it was due: on time
    master.tick()
    master.started_at -= 30.0
    master.tick()
    master.started_at -= 30.0  # the episode ends at its length: every tick came
    master.final_check([])
    assert not [e for e in state.log.events if e.kind in ("firing_late", "firing_missed")]
    [event] = [e for e in state.log.events if e.kind == "dynamics_timing"]
    assert all(r["late"] == 0 and r["missed"] == 0 for r in event.data["rules"])


def test_quota_periods_the_episode_never_reached_are_missed_and_the_one_under_way_is_cut() -> None:
    spec = load_world(WORLD)
    contract = ("1. Ann mines at most 2 pumpkins every 30 seconds.\n"
                "2. During the first 60 seconds Ann mines at most 1 pumpkin every 30 seconds.\n"
                "3. Ann mines at most 3 pumpkins.")  # no period: nothing is scheduled
    each, first = period_firings(spec, contract, 50.2)
    assert each["name"] == "clause 1: every 30 s" and first["name"] == "clause 2: every 30 s to 60 s"
    assert (each["due"], each["missed"], each["first_missed_at"], each["cut_at"]) == (3, 1, 60.0, 50.2)
    assert (first["due"], first["missed"], first["cut_at"]) == (2, 0, 50.2)  # its 30-60 s period was cut at 50.2
    assert each["late"] == first["late"] == 0  # a period is a span of the episode's clock: never late itself
    on_time = period_firings(spec, contract, 90.0)
    assert [(p["missed"], p["cut_at"]) for p in on_time] == [(0, None), (0, None)]
    assert period_firings(spec, None, 10.0) == [] and period_firings(spec, "3. Ann mines at most 3 pumpkins.", 1.0) == []


def test_rounds_on_a_lagging_server_clock_begin_late_or_never() -> None:
    """Programs keep time by the server's clock: a server 2.5 s behind from 10 s on starts the round of the period at
    30 s at 32.5 s; one that fell 12 s behind never reached 60 s before the episode ended at 70 s."""
    spec = load_world(WORLD)  # 90 s
    contract = "1. Ann mines at most 2 pumpkins every 30 seconds."  # periods at 0, 30 and 60 s
    lagging = [[10.0, 10.0], [12.5, 10.0], [40.0, 37.5]]  # stopped from 10 s to 12.5 s, then on time
    [period] = period_firings(spec, contract, 90.2, lagging)
    assert (period["late"], period["first_late_at"], period["worst_late_s"], period["missed"]) == (1, 30.0, 2.5, 1)
    assert period["first_missed_at"] == 60.0  # the samples end at 37.5 s of the server's clock: it never got there
    falling = [[10.0, 10.0], [70.0, 58.0]]  # 12 s behind by the end
    [period] = period_firings(spec, contract, 70.0, falling)
    assert (period["late"], period["first_late_at"], period["worst_late_s"]) == (1, 30.0, 5.0)  # 30 s reached at 35 s
    assert (period["missed"], period["first_missed_at"]) == (1, 60.0)  # before 70 s on the wall clock, never on the server's
    on_time = [[1.0, 1.0], [89.9, 89.6]]
    assert period_firings(spec, contract, 90.0, on_time)[0]["late"] == 0  # 0.3 s behind: on time


def test_the_server_clock_keeps_the_samples_where_its_lag_moved() -> None:
    clock = ServerClock()
    assert clock.to_json() is None
    clock.sample(1.0, None)  # a server whose clock is not read: nothing
    assert clock.to_json() is None
    for second, server in ((1.0, 1.0), (2.0, 2.0), (3.0, 3.01), (4.0, 2.5), (5.0, 3.5), (6.0, 4.5)):
        clock.sample(second, server)
    assert clock.to_json() == [[1.0, 1.0], [4.0, 2.5], [6.0, 4.5]]  # the lag moved at 4 s; the last is always kept


def _as_live(run: Path, sim_seconds: float | None = None) -> None:
    """The run's log as a live run writes it: backend minecraft, and the episode's clock stopped at `sim_seconds`."""
    lines = []
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["kind"] == "run_start":
            event["data"]["backend"] = "minecraft"
        if event["kind"] == "episode_end" and sim_seconds is not None:
            event["data"]["sim_seconds"] = sim_seconds
        lines.append(json.dumps(event))
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")


RULES = [{"rule": "grow pumpkin in pumpkins", "due": 3, "late": 1, "max_late_s": 4.1, "first_late_at": 30.0,
          "missed": 2, "first_missed_at": 60.0},
         {"rule": "grow melon in melons", "due": 3, "late": 0, "max_late_s": 0.0, "first_late_at": None,
          "missed": 0, "first_missed_at": None}]


def test_late_and_missed_firings_are_in_metrics_and_the_report(tmp_path: Path) -> None:
    run = tmp_path / "run"
    contract = "1. Ann mines at most 2 pumpkins every 30 seconds."
    assert main(["run", str(WORLD), "--seeds", "1", "--contract", contract, "--out", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    simulated = metrics["conditions"]["contract"]
    assert simulated["runs"][0]["episodes"][0]["dynamics_timing"] is None  # the simulator
    assert simulated["runs"][0]["episodes"][0]["lateness"] is None and simulated["runs"][0]["lateness"] is None
    assert simulated["lateness"] == {"clock": "simulated", "late": 0, "missed": 0, "worst_late_s": 0.0, "seeds": []}
    assert not [w for w in metrics["warnings"] if "lateness" in w]
    _with_world_events(run, {0: [{"kind": "dynamics_timing", "data": {"rules": RULES, "ended_at": 50.2,
                                                                      "episode_seconds": 90, "threshold_s": 1.0}}]})
    _as_live(run, 50.2)
    assert main(["report", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    condition = metrics["conditions"]["contract"]
    timing = condition["runs"][0]["episodes"][0]["dynamics_timing"]
    assert timing == {"rules": RULES[:1], "ended_at": 50.2, "episode_seconds": 90}  # only the rule that was off
    lateness = condition["runs"][0]["episodes"][0]["lateness"]
    assert (lateness["late"], lateness["missed"], lateness["worst_late_s"], lateness["scheduled"]) == (1, 3, 4.1, 9)
    assert [(f["kind"], f["name"]) for f in lateness["firings"]] == [("rule", "grow pumpkin in pumpkins"),
                                                                      ("period", "clause 1: every 30 s")]
    assert lateness["firings"][1]["first_missed_at"] == 60.0 and lateness["firings"][1]["cut_at"] == 50.2
    assert condition["runs"][0]["lateness"]["firings"][0]["episode"] == 0
    assert condition["lateness"] == {"clock": "wall", "late": 1, "missed": 3, "worst_late_s": 4.1, "seeds": [0]}
    [warning] = [w for w in metrics["warnings"] if w.startswith("live lateness:")]
    assert "1 scheduled firing(s) came 1 s or more late and 3 never came, in 1 completed episode(s)" in warning
    assert ("contract seed 0: rule grow pumpkin in pumpkins: 1 of 3 ticks late (up to 4.1 s, first due at 30 s), 2 never "
            "fired (the first due at 60 s; the episode ended at 50.2 s of 90); period clause 1: every 30 s: 1 never "
            "started (the first due at 60 s; the episode ended at 50.2 s of 90), the one under way cut short at 50.2 s"
            ) in warning
    html = (run / "report.html").read_text()
    assert "live lateness:" in html and "period clause 1: every 30 s: 1 never started" in html


def test_a_live_episode_on_time_has_zero_lateness_and_no_warning(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", str(WORLD), "--seeds", "1", "--contract", "1. Ann mines at most 2 pumpkins every 30 seconds.",
                 "--out", str(run)]) == 0
    on_time = [{**r, "late": 0, "max_late_s": 0.0, "first_late_at": None, "missed": 0, "first_missed_at": None}
               for r in RULES]
    _with_world_events(run, {0: [{"kind": "dynamics_timing", "data": {"rules": on_time, "ended_at": 90.3,
                                                                      "episode_seconds": 90, "threshold_s": 1.0}}]})
    _as_live(run, 90.3)
    assert main(["report", str(run)]) == 0
    metrics = json.loads((run / "metrics.json").read_text())
    lateness = metrics["conditions"]["contract"]["runs"][0]["episodes"][0]["lateness"]
    assert (lateness["late"], lateness["missed"], lateness["firings"], lateness["scheduled"]) == (0, 0, [], 9)
    assert metrics["conditions"]["contract"]["lateness"]["clock"] == "wall"
    assert not [w for w in metrics["warnings"] if "lateness" in w]
    assert "live lateness" not in (run / "report.html").read_text()


def test_a_live_episode_that_ended_before_the_worlds_length_is_said(tmp_path: Path) -> None:
    """The issue's fishery: a quota round due after a live episode's clock stopped never started, and nothing said so."""
    run = tmp_path / "run"
    assert main(["run", str(WORLD), "--seeds", "1", "--contract", "none", "--out", str(run)]) == 0
    _as_live(run, 61.5)
    assert main(["report", str(run)]) == 0
    warnings = json.loads((run / "metrics.json").read_text())["warnings"]
    assert ("live: 1 completed episode(s) ended before the world's length, so the contract's periods, the players' "
            "rounds and the rules due after their end never came: none seed 0 (61.5 s of 90)") in warnings
