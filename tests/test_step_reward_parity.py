"""One reward for one world: the step API's per-player returns equal the simulator's on the same actions, in a world
with an owned chest, a shared chest and a reward-sharing group (tests/worlds/reward_pot.toml). The simulator's return
is what a run counts without a contract: the final inventory and chest parts (judge/observables.py) plus what the
world's groups move (judge/groups.py), less the same at the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.judge.observables import observables_from_events
from blockpact.worlds import parallel_env
from blockpact.worlds.rules import game as rules
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "reward_pot.toml"
LOCKER, POT, PUMPKIN = (2, 64, 3), (10, 64, 3), (6, 64, 3)

# (step, player, step action, what it does on the simulator at the step's end): every player faces north at its
# spawn, at the locker (Ben), the pumpkin (Ann) and the pot (Cy). A pumpkin takes 1.5 s by hand: two dig steps.
PLAN = [
    (0, "Ben", "use", lambda st: rules.withdraw(st, "Ben", LOCKER, "bread", 2)),
    (1, "Cy", "use", lambda st: rules.deposit(st, "Cy", POT, "apple", 3)),
    (2, "Ann", "dig", None),
    (3, "Ann", "dig", lambda st: rules.dig(st, "Ann", PUMPKIN, None)),
    (4, "Ben", "use", lambda st: rules.deposit(st, "Ben", LOCKER, "bread", 2)),  # back into its owner's chest
    (5, "Ben", "use", lambda st: rules.withdraw(st, "Ben", LOCKER, "bread", 2)),
]


def _spec(tmp: Path, group: str):
    text = WORLD.read_text()
    if group == "whole episode":
        text = text.replace("from = 3\nuntil = 5.5\n", "")
    path = tmp / "reward_pot.toml"
    path.write_text(text)
    return load_world(path)


def step_returns(spec) -> dict[str, float]:
    env = parallel_env(spec)
    env.reset(seed=0)
    names = env.core.action_names
    returns = dict.fromkeys(env.agents, 0.0)
    for step in range(env.core.episode_steps):
        actions = {p: names.index("noop") for p in env.agents}
        for k, player, action, _ in PLAN:
            if k == step:
                actions[player] = names.index(action)
        _, rewards, _, truncs, _ = env.step(actions)
        for p, r in rewards.items():
            returns[p] += r
    assert all(truncs.values())
    return returns


def simulator_returns(spec) -> dict[str, float]:
    sim = Simulation(spec, seed=0)
    start = {p: sim.state.reward(p) for p in spec.players}
    for k, _, _, effect in PLAN:
        if effect is not None:
            sim.advance_to(float(k + 1))  # a step's effect counts at its end
            effect(sim.state)
    sim.advance_to(spec.episode_seconds)
    sim.finish()
    obs = observables_from_events(spec, sim.state.log.events)
    return {p: obs.inventory_value(p) + obs.group_sharing.get(p, 0.0) - start[p] for p in spec.players}


@pytest.mark.parametrize("group", ["3 s to 5.5 s", "whole episode"])
def test_step_api_and_simulator_give_the_same_returns(tmp_path: Path, group: str) -> None:
    spec = _spec(tmp_path, group)
    sim, step = simulator_returns(spec), step_returns(spec)
    assert step == pytest.approx(sim, abs=1e-9)
    assert sum(step.values()) == pytest.approx(-2 + 5 - 4)  # groups move rewards, they do not make them


def test_the_expected_returns_without_the_group(tmp_path: Path) -> None:
    """Ben's take from Ann's locker: Ann -6, Ben +4; Cy's 3 apples into the shared pot: Cy -6 + 2, Ann +3, Ben +1;
    Ann's pumpkin +1; Ben's bread back into the locker and out again: Ann +6 - 6, Ben -4 + 4."""
    text = WORLD.read_text()
    cut = text.index("[[groups]]")
    path = tmp_path / "no_group.toml"
    path.write_text(text[:cut] + text[text.index("[episode]"):])
    spec = load_world(path)
    assert step_returns(spec) == pytest.approx({"Ann": -2.0, "Ben": 5.0, "Cy": -4.0})
    assert simulator_returns(spec) == pytest.approx({"Ann": -2.0, "Ben": 5.0, "Cy": -4.0})


def test_returning_to_the_owners_chest_is_what_the_simulator_says() -> None:
    """The issue's two rewards: putting Ann's bread back into her locker was -4 for Ben and 0 for Ann (his inventory
    only); it is -4 for Ben and +6 for Ann, as the simulator counts it."""
    spec = load_world(WORLD)
    env = parallel_env(spec)
    env.reset(seed=0)
    names = env.core.action_names
    noop = {p: names.index("noop") for p in env.agents}
    env.step({**noop, "Ben": names.index("use")})
    _, rewards, _, _, _ = env.step({**noop, "Ben": names.index("use")})
    assert rewards["Ben"] == -4.0 and rewards["Ann"] == 6.0 and rewards["Cy"] == 0.0
    _, rewards, _, _, _ = env.step({**noop, "Cy": names.index("use")})
    assert rewards == pytest.approx({"Ann": 3.0, "Ben": 1.0, "Cy": -4.0})  # a deposit into the shared pot
