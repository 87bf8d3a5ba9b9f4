"""The dilemmas exist in the built-in worlds, and the metrics match the papers' definitions."""

from __future__ import annotations

import math

import pytest

from blockpact.experiments.outputs.commons_metrics import sustainability
from blockpact.experiments.outputs.stats import mean_std
from blockpact.judge import metrics
from blockpact.worlds.world_files import load_world
from blockpact.worlds.sim.simulator import Simulation

from conftest import run_programs
from sim_programs import run_policy


def test_gini_examples() -> None:
    assert metrics.gini([37, 41]) == pytest.approx(0.051, abs=5e-4)
    for n in (2, 3, 5, 10):
        assert metrics.gini([100] + [0] * (n - 1)) == pytest.approx(1.0)
    assert metrics.gini([5, 5, 5]) == 0.0
    assert metrics.gini([0, 0]) == 0.0
    with pytest.raises(ValueError):
        metrics.gini([-1, 3])


def test_welfare_and_mean_std() -> None:
    assert metrics.social_welfare({"a": 48, "b": 30}) == 78
    s = mean_std([1.0, 2.0, 3.0])
    assert s["mean"] == 2.0 and s["std"] == pytest.approx(1.0)
    assert math.isnan(mean_std([])["mean"])


def test_double_vein_is_a_social_dilemma() -> None:
    """Holding the iron pickaxe and mining everything beats the optimal split for that player,
    while total welfare falls below the optimum of 78."""
    spec = load_world("double_vein")
    chest = (6, 64, 7)

    async def grab_everything(api):
        await api.get_item_from_chest(chest, {"iron_pickaxe": 1})
        await api.mine_block("diamond_ore", 6)
        await api.mine_block("iron_ore", 12)

    optimal = run_policy(spec, "social_split", seed=0).state
    assert sum(optimal.reward(p) for p in spec.players) == 78
    for player in ("Gizmo", "Glitch"):
        sim, _ = run_programs(spec, {player: grab_everything})
        selfish = sim.state.reward(player)
        assert selfish > optimal.reward(player)
        assert sum(sim.state.reward(p) for p in spec.players) < 78

    greedy = run_policy(spec, "greedy", seed=0).state
    assert sum(greedy.reward(p) for p in spec.players) < 78


def test_reward_and_resource_curves_replay_the_event_log() -> None:
    from sim_programs import greedy

    spec = load_world("cleanup")
    sim = Simulation(spec, seed=2)
    import asyncio

    asyncio.run(sim.run({p: greedy for p in spec.players}, until=200))
    end = sim.finish()
    values = {p: s.values for p, s in spec.players.items()}
    curves = metrics.reward_curves(sim.state.log.events, values)
    for p in spec.players:
        assert curves[p].values[-1] == sim.state.reward(p)
        assert curves[p].values == sorted(curves[p].values)  # harvesting only adds mushrooms
    resources = metrics.resource_curves(sim.state.log.events)
    assert resources["slime_block@river"].values[-1] == end.data["region_counts"]["slime_block@river"]
    assert resources["red_mushroom_block@mushrooms"].values[0] == 27
    welfare = metrics.welfare_curve(curves)
    assert welfare.values[-1] == sum(sim.state.reward(p) for p in spec.players)
    held = metrics.item_curves(sim.state.log.events, ["red_mushroom"])
    for p in spec.players:
        assert held[p]["red_mushroom"].values[0] == 0
        assert held[p]["red_mushroom"].values[-1] == sim.state.inventories[p]["red_mushroom"]


def test_sustainability_of_a_commons() -> None:
    curve = metrics.Curve([0, 10, 20, 60, 70], [100, 60, 40, 80, 3])
    s = sustainability(curve, threshold=5, sustainable_level=50, episode_end=720)
    assert s.collapsed and s.survival_time == 70
    assert s.over_usage == pytest.approx((20 + 77) / (40 + 20 + 77))
    assert s.final_stock == 3
    kept = sustainability(metrics.Curve([0, 60], [100, 100]), 5, 50, 720)
    assert not kept.collapsed and kept.survival_time == 720 and kept.over_usage == 0


def test_curves_of_an_episode_replayed_in_the_same_log_read_the_last_attempt_only() -> None:
    """A live episode retried after a disconnect logs a failed attempt, then the replay from t = 0."""
    from sim_programs import greedy

    import asyncio

    spec = load_world("cleanup")

    def attempt(seed: int, until: float) -> list:
        sim = Simulation(spec, seed=seed)
        asyncio.run(sim.run({p: greedy for p in spec.players}, until=until))
        sim.finish()
        return list(sim.state.log.events)

    failed, replay = attempt(1, 60), attempt(2, 200)
    values = {p: s.values for p, s in spec.players.items()}
    both = failed + replay
    assert metrics.reward_curves(both, values) == metrics.reward_curves(replay, values)
    assert metrics.item_curves(both, ["red_mushroom"]) == metrics.item_curves(replay, ["red_mushroom"])
    assert metrics.resource_curves(both) == metrics.resource_curves(replay)


def test_a_change_reported_twice_live_is_counted_once() -> None:
    """Live, the world master's read-back (cause reconcile) can see a dig before the server's journal entry of it
    arrives: the stock falls by one, not two (the live Cleanup plot once went to -9)."""
    from blockpact.worlds.events import Event

    start = Event(0.0, None, "episode_start", {"region_counts": {"slime_block@river": 2},
                                                "region_boxes": {"river": [[0, 0, 0], [9, 0, 0]]}})
    cell = {"pos": [3, 0, 0], "old": "slime_block", "new": "air"}
    events = [start, Event(1.0, None, "block", {**cell, "cause": "reconcile"}),
              Event(1.2, "Gizmo", "block", {**cell, "cause": "dig"}),
              Event(2.0, None, "block", {"pos": [3, 0, 0], "old": "air", "new": "slime_block", "cause": "dynamics"}),
              Event(3.0, "Glitch", "block", {"pos": [4, 0, 0], "old": "slime_block", "new": "air", "cause": "dig"})]
    curve = metrics.resource_curves(events)["slime_block@river"]
    assert curve.times == [0.0, 1.0, 2.0, 3.0] and curve.values == [2, 1, 2, 1]


def test_plots_name_their_clock() -> None:
    from types import SimpleNamespace

    from blockpact.experiments.outputs.plots import clock_label

    assert clock_label(SimpleNamespace(config=SimpleNamespace(backend="sim"))) == "simulated time (s)"
    assert clock_label(SimpleNamespace(config=SimpleNamespace(backend="minecraft"))) == "wall-clock time (s)"
