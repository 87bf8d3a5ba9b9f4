"""Lockstep (bridge/live/lockstep.py, js/mineflayer/lockstep.js): the bots take their shared actions in the order the
simulator served the same programs, so Double-Vein without a contract, whose two players race for the pickaxe and for
the last iron blocks, ends on the embedded server as on the simulator: player by player. Free-running, the live split
of the vein varied from run to run (28/45, 32/42, 28/45 in three runs of the same code); see test_parity_matrix.
A bot that cannot follow gives the order up, said in a `lockstep_diverged` event, and the episode goes on."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from blockpact.agents.scripted.greedy import ScriptedGreedyAgent
from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.lockstep import SimulatedTwin
from blockpact.bridge.live.mineflayer_body import ServerAddress
from blockpact.bridge.live.world import LiveWorld
from blockpact.bridge.sim import SimWorld
from blockpact.cli import build_parser, main
from blockpact.cli.run import plan_from_flags
from blockpact.errors import UserError
from blockpact.experiments.plan.live_options import lockstep_choice
from blockpact.worlds.world_files import load_world

from test_live_world import _play

WORLDS = Path(__file__).parent / "worlds"


@pytest.fixture(scope="module")
def server(embedded_server) -> EmbeddedServer:
    return embedded_server


def _lockstep(server: EmbeddedServer, said: list[str] | None = None):
    return lambda spec, seed=0: LiveWorld(spec, seed, server=server, lockstep=True,
                                          announce=(said.append if said is not None else None))


def test_the_simulator_writes_down_its_order_of_shared_actions() -> None:
    """Each block search, dig and chest use, in the order the clock served them, with where the player stood."""
    twin = SimulatedTwin(load_world("double_vein"), 0)
    programs = {p: ScriptedGreedyAgent(p, twin.spec).proposal().code for p in ("Gizmo", "Glitch")}
    entries = asyncio.run(twin.schedule(programs, {}, None, None))
    asyncio.run(twin.close())
    assert [e["time"] for e in entries] == sorted(e["time"] for e in entries)
    chest = [e for e in entries if e["kind"] == "chest"]
    assert [e["player"] for e in chest] == ["Glitch", "Gizmo", "Gizmo"]  # Glitch takes the iron pickaxe first
    assert all(e["stand"] is not None and e["target"] == [6, 64, 7] for e in chest)
    digs = [e for e in entries if e["kind"] == "dig"]
    assert len(digs) == 18 and len({tuple(e["target"]) for e in digs}) == 18  # every ore block, once
    finds = [e for e in entries if e["kind"] == "find" and e["target"] is not None]
    assert all(e["stand"] is not None for e in finds)
    assert twin.world.sim.schedule is None  # asked for per batch only
    assert not any(e["draws"] for e in digs)  # ores without a drop table: their digs may overlap live


def test_a_dig_that_draws_a_drop_count_says_so_in_the_schedule() -> None:
    """The drop stream is one counter per episode: digs of blocks with a drop table must keep the simulator's order."""
    twin = SimulatedTwin(load_world(WORLDS / "melon_pair.toml"), 0)
    programs = {p: ScriptedGreedyAgent(p, twin.spec).proposal().code for p in twin.spec.players}
    entries = asyncio.run(twin.schedule(programs, {}, None, None))
    asyncio.run(twin.close())
    digs = [e for e in entries if e["kind"] == "dig"]
    assert digs and all(e["draws"] == (e["resource"] == "block:melon") for e in digs)


def test_double_vein_without_a_contract_ends_as_on_the_simulator_in_lockstep(server, tmp_path) -> None:
    spec = load_world("double_vein")
    said: list[str] = []
    live, events = asyncio.run(_play(spec, None, _lockstep(server, said), tmp_path / "live"))
    simulated, _ = asyncio.run(_play(spec, None, SimWorld, tmp_path / "sim"))
    (status,) = [e for e in events if e.kind == "lockstep"]
    assert status.data["diverged"] is None and status.data["done"] == status.data["scheduled"] > 40, status.data
    assert status.data["cut"] == 0
    assert not [e for e in events if e.kind == "lockstep_diverged"]
    assert not [line for line in said if "stalled" not in line]  # a busy machine's lateness note is no divergence
    assert live.inventory_rewards == simulated.inventory_rewards, (live.inventory_rewards, simulated.inventory_rewards)
    assert live.rewards == simulated.rewards and live.transfers == simulated.transfers
    assert events[0].kind == "episode_start" and events[0].data["lockstep"] == "simulator"


def test_a_bot_that_cannot_follow_gives_the_order_up_and_the_episode_goes_on(server, tmp_path, monkeypatch) -> None:
    """The twin's schedule is made wrong where Glitch picks its second diamond: live, Glitch picks another."""
    real = SimulatedTwin.schedule

    async def misplanned(self, *args):
        entries = await real(self, *args)
        second = [e for e in entries if e["player"] == "Glitch" and e["kind"] == "find"][1]
        second["target"] = [0, 0, 0]
        return entries

    monkeypatch.setattr(SimulatedTwin, "schedule", misplanned)
    spec = load_world("double_vein")
    said: list[str] = []
    live, events = asyncio.run(_play(spec, None, _lockstep(server, said), tmp_path / "live"))
    (diverged,) = [e for e in events if e.kind == "lockstep_diverged"]
    assert diverged.agent == "Glitch"
    assert "Glitch's search for diamond_ore at (0, 0, 0)" in diverged.data["reason"] and "live" in diverged.data["reason"]
    (status,) = [e for e in events if e.kind == "lockstep"]
    assert status.data["diverged"] == diverged.data["reason"] and status.data["done"] < status.data["scheduled"]
    assert len(said) == 1 and said[0].startswith("seed 0: lockstep given up after ")
    assert sum(live.inventory_rewards.values()) > 0 and [e for e in events if e.kind == "episode_end"]  # it went on


def test_an_episode_end_that_cuts_the_programs_short_is_not_a_divergence(server, tmp_path) -> None:
    """Bots in lockstep wait for each other: in the same time they may do less than their twin. What they did was in
    order; the actions they did not get to are `cut`, every scheduled action is accounted for."""
    spec = dataclasses.replace(load_world("double_vein"), episode_seconds=8)
    said: list[str] = []
    _, events = asyncio.run(_play(spec, None, _lockstep(server, said), tmp_path / "live"))
    (status,) = [e for e in events if e.kind == "lockstep"]
    assert status.data["diverged"] is None and status.data["done"] + status.data["cut"] == status.data["scheduled"]
    assert not [e for e in events if e.kind == "lockstep_diverged"]
    assert not [line for line in said if "stalled" not in line]  # a busy machine's lateness note is no divergence


def test_live_toml_lockstep_is_what_the_run_records_and_a_flag_overrides(monkeypatch, tmp_path, capsys) -> None:
    import blockpact.bridge.live.settings as live_toml

    on = live_toml.live_settings()
    on = dataclasses.replace(on, episode=dataclasses.replace(on.episode, lockstep=True))
    monkeypatch.setattr(live_toml, "live_settings", lambda: on)
    assert lockstep_choice(None, "minecraft") is True and lockstep_choice(False, "minecraft") is False
    assert lockstep_choice(None, "sim") is False  # a live setting
    assert main(["run", "double_vein", "--backend", "minecraft", "--server", "127.0.0.1:1", "--out", str(tmp_path / "a")]) == 1
    assert "live.toml [episode] lockstep) needs the embedded server (leave out --server, or add --no-lockstep)" in capsys.readouterr().err
    for flags, recorded in (([], True), (["--no-lockstep"], False)):
        args = build_parser("run").parse_args(["run", "double_vein", "--backend", "minecraft", *flags])
        assert plan_from_flags(args).live["lockstep"] is recorded  # what run_start records, resume reads back
    assert main(["run", "double_vein", "--out", str(tmp_path / "b"), "--seeds", "1"]) == 0  # the simulator: not refused
    start = json.loads((tmp_path / "b" / "events.jsonl").read_text().splitlines()[0])
    assert start["data"]["live"] is None


def test_lockstep_needs_the_embedded_server_and_bots_in_every_slot(tmp_path, capsys) -> None:
    spec = load_world("double_vein")
    with pytest.raises(UserError, match="lockstep needs the embedded server"):
        LiveWorld(spec, 0, address=ServerAddress("127.0.0.1", 1, spec.mc_version, "offline"), lockstep=True)
    assert main(["run", "double_vein", "--lockstep", "--out", str(tmp_path / "a")]) == 1
    assert "--lockstep apply to --backend minecraft only" in capsys.readouterr().err
    assert main(["run", "double_vein", "--backend", "minecraft", "--server", "127.0.0.1:1", "--lockstep",
                 "--out", str(tmp_path / "b")]) == 1
    assert "lockstep (--lockstep, or live.toml [episode] lockstep) needs the embedded server" in capsys.readouterr().err
    scenario = tmp_path / "with_a_person.toml"
    scenario.write_text('[scenario]\nworld = "double_vein"\nbackend = "minecraft"\nseeds = 1\n\n[[conditions]]\n'
                        'contract = "none"\n\n[players]\nGizmo = "scripted"\nGlitch = "human"\n')
    assert main(["run", str(scenario), "--lockstep", "--out", str(tmp_path / "c")]) == 1
    assert "a person does not wait for the bots' turns" in capsys.readouterr().err
    assert not [p for p in "abc" if (tmp_path / p).exists()]


def test_ending_lockstep_on_a_gone_server_raises_nothing_so_ctrl_c_still_stops_the_run() -> None:
    """A terminal's Ctrl-C reaches the embedded server too (same process group): it exits while the run's cancellation
    unwinds the batch, and `_lockstep_ended` (in the batch's `finally`) recorded on it. Its ServerError replaced the
    cancellation: the unit was counted as failed with cause `server`, the run went on to the next seed and exited 3."""
    from types import SimpleNamespace

    from blockpact.bridge.live.embedded_server import ServerError

    def gone() -> None:
        raise ServerError("the embedded server is not running (control request 'drainEvents')")

    world = LiveWorld.__new__(LiveWorld)
    emitted: list[str] = []
    world.master = SimpleNamespace(record=gone)
    world.emit = lambda agent, kind, **data: emitted.append(kind)
    world._lockstep_ended({"diverged": None, "done": 3, "scheduled": 5, "cut": 2})  # raises nothing
    assert emitted == []
