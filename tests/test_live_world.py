"""Live episodes on the embedded server with the scripted players, played by the one episode engine: the
same outcomes, events and judge observables as the simulator; dynamics applied by the world master;
a bot that loses its connection mid-episode; a world authored as a file only. Episodes are shortened
through `dataclasses.replace(spec, episode_seconds=...)`, never by editing the built-in worlds; live episodes
last wall seconds, so their length is stretched by how busy the machine is (`scaled`): an episode whose
programs finish early ends early, and the world's dynamics get the same number of ticks under load."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.world import EpisodeFailed, LiveWorld
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.protocol import EpisodeOutcome
from blockpact.experiments.play.scripted import ScriptedNegotiation, play_scripted_episode
from blockpact.bridge.live.world_compiler import read_back
from blockpact.bridge.live.world_master import WorldMaster
from blockpact.judge.metrics import item_curves, resource_curves, reward_curves
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import WorldSpec

from harness.pace import scaled


TESTS = Path(__file__).parent
NEW_WORLD = TESTS / "worlds" / "live_coal_seam.toml"


@pytest.fixture(scope="module")
def server(embedded_server) -> EmbeddedServer:
    """The session's shared server (harness/live.py): every test here builds its own world in it."""
    return embedded_server


_play = play_scripted_episode  # one episode, its worlds made by `factory(spec, seed)`: its outcome and world events


def _live(server: EmbeddedServer, **options):
    return lambda spec, seed=0: LiveWorld(spec, seed, server=server, **options)


async def _contract(spec: WorldSpec) -> str:
    result = await ScriptedNegotiation().negotiate(spec, 0)
    assert result.contract is not None
    return result.contract


def test_double_vein_under_the_contract_ends_as_on_the_simulator(server, tmp_path) -> None:
    spec = dataclasses.replace(load_world("double_vein"), episode_seconds=scaled(90))
    contract = asyncio.run(_contract(spec))
    server.fit_view((0, 0, 0), (255, 0, 255))  # the ceiling, until the episode builds its world
    live, events = asyncio.run(_play(spec, contract, _live(server), tmp_path / "live"))
    assert server.request("viewDistance") == 2  # the bots joined with double_vein's map fitted (one chunk column)
    simulated, sim_events = asyncio.run(_play(spec, contract, SimWorld, tmp_path / "sim"))

    assert sum(live.inventory_rewards.values()) == 78 == sum(simulated.inventory_rewards.values())
    assert live.rewards == simulated.rewards and live.transfers == simulated.transfers
    obs, sim_obs = observables_from_events(spec, events), observables_from_events(spec, sim_events)
    assert obs.finished and obs.inventories["Gizmo"]["raw_iron"] == 12 and obs.inventories["Glitch"]["diamond"] == 6
    assert "diamond" not in obs.inventories["Gizmo"] and "raw_iron" not in obs.inventories["Glitch"]
    assert obs.collected == sim_obs.collected and obs.mined == sim_obs.mined  # dig causes, as on the simulator
    assert obs.tasks == sim_obs.tasks and {c.item for c in obs.chest_ops} == {c.item for c in sim_obs.chest_ops}
    assert [e.kind for e in events if e.kind.startswith("episode")] == ["episode_start", "episode_end"]
    assert not [e for e in events if e.data.get("cause") == "reconcile"], "the journal missed a change"


@pytest.mark.slow  # plays 30 wall seconds out; the authored world's test covers live dynamics in the fast suite
def test_cleanup_mushrooms_regrow_only_while_the_river_is_clean(server, tmp_path) -> None:
    spec = dataclasses.replace(load_world("cleanup"), episode_seconds=scaled(30))
    contract = asyncio.run(_contract(spec))
    outcome, events = asyncio.run(_play(spec, contract, _live(server), tmp_path))
    slime = resource_curves(events)["slime_block@river"]
    regrown = [e for e in events if e.kind == "block" and e.data["cause"] == "regrow"]
    cleaned = [e for e in events if e.kind == "block" and e.data["old"] == "slime_block" and e.data["cause"] == "dig"]
    assert slime.values[0] == 9 and cleaned, "Glitch cleans the river"
    assert regrown, "with the river clean, mushroom blocks grow back"
    for event in regrown:
        assert slime.at(event.time) <= 7, f"regrowth at {event.time:.1f} s with {slime.at(event.time)} slime in the river"
    first_clean = min(e.time for e in events if e.kind == "block" and slime.at(e.time) <= 7)
    assert min(e.time for e in regrown) >= first_clean
    assert events[-1].kind == "episode_end" and events[-1].time >= spec.episode_seconds  # ran to the episode's end
    assert outcome.sim_seconds >= spec.episode_seconds


def _kicking_glitch(server, on_disconnect: str, seen_before_kick: list[Event]):
    """A world factory whose first world kicks Glitch once it holds a diamond, noting what was logged by then."""

    def kicking_world(spec, seed=0):
        world = LiveWorld(spec, seed, server=server, on_disconnect=on_disconnect)

        async def kick_glitch() -> None:
            while not any(e.kind == "inventory" and e.agent == "Glitch" and e.data["item"] == "diamond"
                          for e in world.events):
                await asyncio.sleep(0.2)
            world.master.record()
            seen_before_kick.extend(world.events)
            await asyncio.to_thread(server.command, "kick Glitch")

        kicker = asyncio.ensure_future(kick_glitch())
        world_finish = world.finish

        def finish():
            kicker.cancel()
            return world_finish()

        world.finish = finish  # type: ignore[method-assign]
        return world

    return kicking_world


@pytest.mark.slow  # a whole episode; test_a_disconnect_fails_the_episode_when_so_configured is the fast one
def test_a_bot_that_loses_its_connection_is_reconnected_and_nothing_logged_is_lost(server, tmp_path) -> None:
    spec = dataclasses.replace(load_world("double_vein"), episode_seconds=scaled(90))
    contract = asyncio.run(_contract(spec))
    seen_before_kick: list[Event] = []
    kicking_world = _kicking_glitch(server, "reconnect", seen_before_kick)
    outcome, events = asyncio.run(_play(spec, contract, kicking_world, tmp_path))
    states = [e.data["state"] for e in events if e.kind == "connection" and e.agent == "Glitch"]
    assert "lost" in states and "reconnected" in states, states
    assert any(e.kind == "program_restart" and e.agent == "Glitch" for e in events)
    assert seen_before_kick and all(e in events for e in seen_before_kick), "events logged before the kick were lost"
    assert sum(outcome.inventory_rewards.values()) == 78  # the restarted program finished the job
    obs = observables_from_events(spec, events)
    assert obs.inventories["Glitch"]["diamond"] == 6


@dataclasses.dataclass
class RetriedEpisode:
    spec: WorldSpec
    outcome: EpisodeOutcome
    events: list[Event]
    builds: list[list[str]]  # the server's world read back against the spec right after each build
    seen_before_kick: list[Event]

    @property
    def replay(self) -> list[Event]:
        return self.events[max(i for i, e in enumerate(self.events) if e.kind == "episode_start"):]


@pytest.fixture(scope="module")
def retried_episode(server, tmp_path_factory) -> RetriedEpisode:
    """double_vein under the contract, on_disconnect = "retry": Glitch is kicked once it has a diamond."""
    spec = dataclasses.replace(load_world("double_vein"), episode_seconds=scaled(90))
    contract = asyncio.run(_contract(spec))
    builds: list[list[str]] = []
    build = WorldMaster.build

    async def checked_build(self):
        compiled = await build(self)
        builds.append(read_back(server, spec))
        return compiled

    seen_before_kick: list[Event] = []
    kicking_world = _kicking_glitch(server, "retry", seen_before_kick)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WorldMaster, "build", checked_build)
        outcome, events = asyncio.run(_play(spec, contract, kicking_world, tmp_path_factory.mktemp("retry")))
    return RetriedEpisode(spec, outcome, events, builds, seen_before_kick)


@pytest.mark.slow  # two episodes
def test_a_disconnect_retries_the_episode_on_a_rebuilt_world_in_the_same_log(retried_episode) -> None:
    spec, events, replay = retried_episode.spec, retried_episode.events, retried_episode.replay
    episode_kinds = [e.kind for e in events if e.kind.startswith("episode")]
    assert episode_kinds == ["episode_start", "episode_failed", "episode_start", "episode_end"], episode_kinds
    (failed,) = [e for e in events if e.kind == "episode_failed"]
    assert "Glitch lost its connection" in failed.data["reason"] and "kicked" in failed.data["reason"], failed.data
    assert retried_episode.builds == [[], []], "the world was not rebuilt as the spec says"
    seen = retried_episode.seen_before_kick
    assert seen and all(e in events for e in seen), "events logged before the failure were lost"
    assert replay[0].data["attempt"] == 1 and replay[0].data["inventories"] == events[0].data["inventories"]
    assert {e.agent for e in replay if e.kind == "task"} == set(spec.players)  # the judge reads the replay's tasks

    assert sum(retried_episode.outcome.inventory_rewards.values()) == 78  # the replay played to its end
    obs = observables_from_events(spec, events)
    assert obs.finished and obs.inventories["Gizmo"]["raw_iron"] == 12 and obs.inventories["Glitch"]["diamond"] == 6
    dug_diamonds = sum(1 for e in events if e.kind == "block" and e.data["old"] == "diamond_ore" and e.data["cause"] == "dig")
    assert dug_diamonds > 6 and obs.mined["Glitch"] == {"diamond_ore": 6}  # the failed attempt's digs do not count
    assert obs.collected == observables_from_events(spec, replay).collected


@pytest.mark.slow  # the same two episodes
def test_the_metrics_of_a_retried_episode_read_the_replay_only(retried_episode) -> None:
    values = {p: dict(s.values) for p, s in retried_episode.spec.players.items()}
    events, replay = retried_episode.events, retried_episode.replay
    assert reward_curves(events, values) == reward_curves(replay, values)
    assert item_curves(events, ["raw_iron", "diamond"]) == item_curves(replay, ["raw_iron", "diamond"])


def test_a_disconnect_fails_the_episode_when_so_configured(server, tmp_path) -> None:
    spec = dataclasses.replace(load_world(NEW_WORLD), episode_seconds=scaled(30))
    program = "async function idle(bot) { for (;;) await waitSignal(bot, 'never', 60); }"
    greeting = "async function greet(bot) { await sendSignal(bot, 'hello'); await waitSignal(bot, 'never', 60); }"

    async def play() -> None:
        world = LiveWorld(spec, 0, server=server, on_disconnect="fail")
        try:
            run = asyncio.ensure_future(world.run_programs({"Ada": greeting, "Bo": program}))
            while not any(e.kind == "signal" for e in world.events):
                if run.done():
                    run.result()  # the episode ended (or failed) before Ada's signal: say why
                    raise AssertionError("the episode ended without Ada's signal")
                await asyncio.sleep(0.1)
                if world.master.started_at is not None:
                    world.master.record()
            await asyncio.to_thread(server.command, "kick Bo")
            with pytest.raises(EpisodeFailed, match="Bo lost its connection"):
                await run
            assert world.finish().kind == "episode_end"
            (signal,) = [e for e in world.events if e.kind == "signal"]
            assert signal.agent == "Ada" and signal.data == {"task": "hello", "to": ["Bo"]}  # as the simulator logs it
        finally:
            await world.close()

    asyncio.run(play())


def test_a_world_authored_as_a_file_runs_on_the_simulator_and_live(server, tmp_path) -> None:
    spec = dataclasses.replace(load_world(NEW_WORLD), episode_seconds=scaled(20, at_most=1.5))  # played out
    for name, factory in (("sim", SimWorld), ("live", _live(server))):
        outcome, events = asyncio.run(_play(spec, None, factory, tmp_path / name))
        obs = observables_from_events(spec, events)
        assert obs.finished and obs.collected["Ada"].get("coal", 0) > 0 and obs.collected["Bo"].get("coal", 0) > 0, name
        assert sum(outcome.inventory_rewards.values()) == 2 * sum(sum(c.values()) for c in obs.collected.values()), name
        assert any(e.kind == "block" and e.data["cause"] == "spawn" for e in events), name


def test_a_world_master_that_fails_stops_the_episode_at_once(server, monkeypatch) -> None:
    """A failing tick (a journal that cannot be read, a wedged bridge) ends the episode with the reason, without
    waiting for the episode's end (played out here: the coal seam has dynamics)."""
    spec = dataclasses.replace(load_world(NEW_WORLD), episode_seconds=scaled(120))
    program = "async function idle(bot) { for (;;) await waitSignal(bot, 'never', 60); }"
    tick = WorldMaster.tick
    ticks = 0

    def failing_tick(self) -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 3:
            raise RuntimeError("the journal could not be read")
        tick(self)

    monkeypatch.setattr(WorldMaster, "tick", failing_tick)

    async def play() -> float:
        world = LiveWorld(spec, 0, server=server)
        try:
            with pytest.raises(EpisodeFailed, match="the world master stopped: the journal could not be read"):
                await world.run_programs({"Ada": program, "Bo": program})
            return world.now
        finally:
            await world.close()

    assert asyncio.run(play()) < spec.episode_seconds / 4
