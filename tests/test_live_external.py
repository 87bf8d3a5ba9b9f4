"""Live episodes on a server reached as players only (as on vanilla, Paper or Fabric): the embedded server is
addressed by host:port alone, its control channel is off limits, and an operator bot builds the world while
the bots' observations are the record. The judge's observables come out as on the simulator."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.backend import LiveWorlds
from blockpact.bridge.live.world import LiveWorld
from blockpact.bridge.live.mineflayer_body import ServerAddress
from blockpact.bridge.sim import SimWorld
from blockpact.bridge.live.world_access import PluginMissing
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.world_files import load_world

from harness.pace import scaled
from test_live_world import NEW_WORLD, _contract, _play


@pytest.fixture(scope="module")
def external(embedded_server: EmbeddedServer):
    """The shared embedded server as a stranger sees it: host and port (its control channel is off limits
    while this module runs); the operator bot is an operator there."""

    def no_control_channel(op: str, *args, **kwargs):
        raise AssertionError(f"the external path used the control channel ({op})")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(embedded_server, "request", no_control_channel)
        yield ServerAddress("127.0.0.1", int(embedded_server.port or 0))


@pytest.mark.slow  # 30 s or more; test_live_world's double_vein test plays the same episode through the plugin
def test_double_vein_on_an_external_server_ends_as_on_the_simulator(external, tmp_path) -> None:
    spec = dataclasses.replace(load_world("double_vein"), episode_seconds=scaled(90))
    contract = asyncio.run(_contract(spec))
    live, events = asyncio.run(_play(spec, contract, LiveWorlds(address=external), tmp_path / "live"))
    simulated, sim_events = asyncio.run(_play(spec, contract, SimWorld, tmp_path / "sim"))

    assert sum(live.inventory_rewards.values()) == 78 == sum(simulated.inventory_rewards.values())
    assert live.rewards == simulated.rewards and live.transfers == simulated.transfers
    obs, sim_obs = observables_from_events(spec, events), observables_from_events(spec, sim_events)
    assert obs.inventories == sim_obs.inventories
    assert obs.collected == sim_obs.collected and obs.mined == sim_obs.mined
    assert sorted((c.player, c.item, c.delta) for c in obs.chest_ops) == sorted((c.player, c.item, c.delta) for c in sim_obs.chest_ops)
    assert obs.chests == sim_obs.chests
    causes = {e.data["cause"] for e in events if e.kind == "inventory"}
    assert causes <= {"chest:withdraw", "dig:iron_ore", "dig:diamond_ore"}, causes
    assert not [e for e in events if e.kind == "block" and e.data["cause"] != "dig"]


def test_dynamics_chat_and_signals_on_an_external_server(external, tmp_path) -> None:
    """The coal seam's dynamics go through the operator's /fill; chat and signals are witnessed."""
    spec = dataclasses.replace(load_world(NEW_WORLD), episode_seconds=scaled(12, at_most=1.5))  # played out
    greet = "async function greet(bot) { bot.chat('hello Bo'); await sendSignal(bot, 'ready'); }"
    idle = "async function idle(bot) { await waitSignal(bot, 'ready', 30); bot.chat('got it'); }"

    async def play():
        world = LiveWorld(spec, 0, address=external)
        try:
            await world.run_programs({"Ada": greet, "Bo": idle})
            world.finish()
            return world.events
        finally:
            await world.close()

    events = asyncio.run(play())
    obs = observables_from_events(spec, events)
    assert [(p, m) for _, p, m in obs.chat if not m.startswith("[signal]")] == [("Ada", "hello Bo"), ("Bo", "got it")]
    assert [(p, t) for _, p, t in obs.signals] == [("Ada", "ready")]
    spawned = [e for e in events if e.kind == "block" and e.data["cause"] == "spawn"]
    assert spawned and all(e.data["new"] == "mud" and e.agent is None for e in spawned), "mud seeps in through /fill"
    assert events[-1].kind == "episode_end" and events[-1].time >= spec.episode_seconds


def test_what_needs_the_plugin_is_named(external) -> None:
    spec = load_world("cleanup")

    async def build():
        world = LiveWorld(spec, 0, address=external)
        try:
            await world.run_programs({p: "async function f(bot) {}" for p in spec.players})
        finally:
            await world.close()

    with pytest.raises(PluginMissing, match=r"red_mushroom_block.*plugin.*data pack"):
        asyncio.run(build())


def test_a_harvest_rule_is_reported_unsupported_before_the_episode(external) -> None:
    """tests/worlds/axe_rule.toml's [harvest] rules need the plugin: a `live_unsupported` event names them before
    any program starts (the embedded server applies them: tests/test_harvest_rules.py). Every episode's log has it;
    the user is told once per run (a 10-seed run said it 10 times)."""
    spec = load_world(Path(__file__).parent / "worlds" / "axe_rule.toml")
    said: list[str] = []
    backend = LiveWorlds(address=external, announce=said.append)

    async def play(seed: int):
        world = backend(spec, seed)
        try:
            await world.run_programs({p: "async function f(bot) {}" for p in spec.players})
            return world.events
        finally:
            await world.close()

    parts = ["harvest.iron_ore: tool overrides", "harvest.oak_log: tool overrides"]
    for seed in (0, 1):
        events = asyncio.run(play(seed))
        kinds = [e.kind for e in events]
        assert [e.data["parts"] for e in events if e.kind == "live_unsupported"] == [parts]
        assert kinds.index("live_unsupported") < kinds.index("program_start")
    assert len([line for line in said if "does not reproduce part of" in line and "harvest.iron_ore" in line]) == 1, said


def test_an_operator_bot_without_op_is_told_so(external) -> None:
    async def join():
        world = LiveWorld(load_world("double_vein"), 0, address=external)
        world.access.operator = "not_an_op"  # type: ignore[attr-defined]
        try:
            await world.run_programs({})
        finally:
            await world.close()

    with pytest.raises(PluginMissing, match=r"not_an_op is not an operator.*/op not_an_op"):
        asyncio.run(join())


def test_a_person_awaited_again_is_told_again() -> None:
    """Lines for the user are said once per run, but not those to people in human slots: a person who left after
    seed 0 must be asked to join again for seed 1 (a review)."""
    said: list[str] = []
    backend = LiveWorlds(announce=said.append)
    seats = backend.seat_humans(["Alice"])
    backend.announce("the server does not reproduce part of w")
    backend.announce("the server does not reproduce part of w")
    seats.announce("waiting up to 120 s for a person to join as Alice")
    seats.announce("waiting up to 120 s for a person to join as Alice")
    assert said == ["the server does not reproduce part of w"] + ["waiting up to 120 s for a person to join as Alice"] * 2
