"""Live lateness on the embedded server, through `blockpact run --backend minecraft`: a world master held up for a
measured time (its event loop blocked, as on a busy machine) fires the rule's ticks due meanwhile late, and an
episode that ends with its program (live.toml's play_out = false) never reaches the later ticks. A server stopped
for a measured time (SIGSTOP, as a busy machine holds it) lags its clock, by which the players' programs keep time
(bot.time.age, which the embedded server used to leave at 0: the scripted player's second quota round never came):
the players' rounds of the quota's later periods begin late. The firings are in the event log as they happen, in
metrics.json's `lateness`, and in one warning line of metrics.json and report.html. The bookkeeping's own cases:
test_live_rule_timing.py."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from blockpact.bridge.live import world as live_world
from blockpact.bridge.live.world_master import WorldMaster
from blockpact.cli import main

WORLD = Path(__file__).parent / "worlds" / "late_patch.toml"  # pumpkins grow every 1 s for 80 s; Ann mines 2 coal
HOLD_SECONDS = 2.5  # the world master's first tick blocks the event loop this long before it runs


@pytest.fixture
def held_master(monkeypatch):
    """The first tick of each world master sleeps HOLD_SECONDS on the event loop's thread; episodes end with their
    programs. Returns the episode seconds at which each held tick began."""
    held: list[float] = []
    tick = WorldMaster.tick

    def held_tick(self: WorldMaster) -> None:
        if not getattr(self, "_held", False):
            self._held = True  # type: ignore[attr-defined]
            held.append(self.now)
            time.sleep(HOLD_SECONDS)
        tick(self)

    monkeypatch.setattr(WorldMaster, "tick", held_tick)
    _no_play_out(monkeypatch)
    return held


def _no_play_out(monkeypatch) -> None:
    """live.toml's play_out = false: an episode ends when its programs do."""
    settings = live_world.live_settings()
    no_play_out = dataclasses.replace(settings, world_master=dataclasses.replace(settings.world_master, play_out=False))
    monkeypatch.setattr(live_world, "live_settings", lambda: no_play_out)


def _world_events(out: Path) -> list[dict]:
    return [e["data"]["event"] for e in map(json.loads, (out / "events.jsonl").read_text().splitlines())
            if e["kind"] == "world"]


def test_a_held_world_master_and_an_early_end_are_reported_as_lateness(tmp_path: Path, held_master, capsys) -> None:
    out = tmp_path / "live"
    code = main(["run", str(WORLD), "--backend", "minecraft", "--seeds", "1", "--contract", "none", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    [began] = held_master
    events = [e["data"]["event"] for e in map(json.loads, (out / "events.jsonl").read_text().splitlines())
              if e["kind"] == "world"]
    late, *later = [e for e in events if e["kind"] == "firing_late"]  # the held tick's batch, as it fired (a busy
    # machine may hold later ticks a second or more too)
    assert late["data"]["rules"] == ["grow pumpkin in patch"] and late["data"]["due_at"] == 1.0
    assert late["data"]["worst_late_s"] >= began + HOLD_SECONDS - 1.0 - 0.05  # due at 1 s, applied after the hold
    assert late["time"] >= began + HOLD_SECONDS - 0.05
    [timing] = [e for e in events if e["kind"] == "dynamics_timing"]
    ended = timing["data"]["ended_at"]
    assert ended < 40, "the episode ended with Ann's program (her greedy program mines the two coal ores)"
    [missed] = [e for e in events if e["kind"] == "firing_missed"]
    assert missed["data"]["rules"] == ["grow pumpkin in patch"] and missed["data"]["first_due_at"] > ended - 1
    assert missed["data"]["missed"] == 80 - int(missed["data"]["first_due_at"]) + 1  # every second after the end

    metrics = json.loads((out / "metrics.json").read_text())
    condition = metrics["conditions"]["none"]
    lateness = condition["runs"][0]["episodes"][0]["lateness"]
    [rule] = lateness["firings"]
    assert (rule["kind"], rule["name"], rule["due"]) == ("rule", "grow pumpkin in patch", 80)
    assert rule["late"] >= 1 and rule["first_late_at"] == 1.0 and rule["worst_late_s"] >= late["data"]["worst_late_s"]
    assert rule["missed"] == missed["data"]["missed"] and rule["first_missed_at"] == missed["data"]["first_due_at"]
    assert (lateness["late"], lateness["missed"], lateness["scheduled"]) == (rule["late"], rule["missed"], 80)
    assert condition["lateness"]["clock"] == "wall" and condition["lateness"]["seeds"] == [0]
    assert condition["lateness"]["worst_late_s"] == rule["worst_late_s"] >= HOLD_SECONDS - 0.05
    [warning] = [w for w in metrics["warnings"] if w.startswith("live lateness:")]
    assert f"none seed 0: rule grow pumpkin in patch: {rule['late']} of 80 ticks late (up to " in warning
    assert f"{rule['missed']} never fired (the first due at {rule['first_missed_at']:g} s; the episode ended at " in warning
    assert "live lateness:" in (out / "report.html").read_text()


STOP_SECONDS = 3.0  # the server is stopped this long, 1 s into the episode


@pytest.fixture
def stopped_server(monkeypatch):
    """Each world master's first tick past 1 s stops the embedded server's process for STOP_SECONDS (a thread sends
    SIGCONT); episodes end with their programs. Returns the episode seconds at which each stop began."""
    stops: list[float] = []
    tick = WorldMaster.tick

    def stopping_tick(self: WorldMaster) -> None:
        if not getattr(self, "_stopped", False) and self.now >= 1.0:
            self._stopped = True  # type: ignore[attr-defined]
            pid = self.access.server.pid  # type: ignore[attr-defined]
            stops.append(self.now)
            os.kill(pid, signal.SIGSTOP)
            threading.Timer(STOP_SECONDS, os.kill, (pid, signal.SIGCONT)).start()
        tick(self)

    monkeypatch.setattr(WorldMaster, "tick", stopping_tick)
    _no_play_out(monkeypatch)
    return stops


def test_a_lagging_server_clock_starts_the_players_quota_rounds_late(tmp_path: Path, stopped_server, capsys) -> None:
    world = tmp_path / "late_patch.toml"
    world.write_text(WORLD.read_text().replace("seconds = 80", "seconds = 40"))
    out = tmp_path / "live"
    contract = "1. Ann mines at most 1 coal_ore every 10 seconds."  # periods at 0, 10, 20 and 30 s: one coal in each
    code = main(["run", str(world), "--backend", "minecraft", "--seeds", "1", "--contract", contract, "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    [stopped] = stopped_server
    events = _world_events(out)
    digs = [e["time"] for e in events if e["kind"] == "inventory" and e["data"]["item"] == "coal"]
    assert len(digs) == 2, "Ann's second round came: the server's clock moves"
    [clock] = [e for e in events if e["kind"] == "server_clock"]
    lag = clock["data"]["samples"][-1][0] - clock["data"]["samples"][-1][1]
    assert lag >= STOP_SECONDS - 0.5, clock  # the stopped server's ticks never came back
    assert digs[1] >= 10 + STOP_SECONDS - 0.5  # her second round began on the server's clock

    metrics = json.loads((out / "metrics.json").read_text())
    lateness = metrics["conditions"]["contract"]["runs"][0]["episodes"][0]["lateness"]
    [period] = [f for f in lateness["firings"] if f["kind"] == "period"]
    assert (period["name"], period["due"]) == ("clause 1: every 10 s", 4)
    assert period["late"] >= 1 and period["first_late_at"] == 10.0 and period["worst_late_s"] >= STOP_SECONDS - 0.5
    assert period["late"] + period["missed"] == len([s for s in (10.0, 20.0, 30.0) if s > stopped])  # every one after
    assert lateness["ended_at"] < 40  # her program ended after the round it found nothing in (the last one missed)
    [warning] = [w for w in metrics["warnings"] if w.startswith("live lateness:")]
    assert f"period clause 1: every 10 s: {period['late']} of 4 rounds began late on the server's clock" in warning
    assert "rounds began late on the server" in (out / "report.html").read_text()
