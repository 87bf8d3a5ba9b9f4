"""The step-level multi-agent API: a PettingZoo `ParallelEnv` for any world, and its batched form.

Actions are discrete (see data/step_env.toml): noop, moves relative to facing, turns, dig, place,
use. Observations per agent: an egocentric window of palette block indices (rows ahead to behind,
columns left to right, a few y-layers), where other players stand, and the inventory counts. The
reward of a step is the change in what the simulator counts for the agent under its own values: its
inventory and its part of owned and shared chests, shared by the world's groups (sharing.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.step.core import BatchedEnv
from blockpact.worlds.step.options import load_options

COUNT_MAX = 2**31 - 1


def _spec(world: str | Path | WorldSpec) -> WorldSpec:
    return world if isinstance(world, WorldSpec) else load_world(world)


def observation_space(core: BatchedEnv) -> spaces.Dict:
    """One agent's observation space (the same for every agent)."""
    o, P = core.options, len(core.tables.palette)
    rows, cols = o.window_ahead + o.window_behind + 1, 2 * o.window_sides + 1
    parts: dict[str, spaces.Space] = {
        "blocks": spaces.Box(0, P - 1, (len(o.window_layers), rows, cols), np.uint8),
        "agents": spaces.Box(0, 1, (rows, cols), np.uint8),
        "inventory": spaces.Box(0, COUNT_MAX, (len(core.tables.items),), np.int64),
    }
    if o.render_rgb:
        parts["rgb"] = spaces.Box(0, 255, (rows, cols, 3), np.uint8)
    return spaces.Dict(parts)


def batched_env(world: str | Path | WorldSpec, num_envs: int, **options: Any) -> BatchedEnv:
    """`num_envs` copies stepped at once: arrays with a leading batch axis, finished copies reset themselves."""
    spec = _spec(world)
    return BatchedEnv(spec, num_envs, load_options(spec, options), autoreset=True)


def parallel_env(world: str | Path | WorldSpec, **options: Any) -> BlockpactParallelEnv:
    return BlockpactParallelEnv(world, **options)


class BlockpactParallelEnv(ParallelEnv):
    """A batch of one copy without auto-reset, behind PettingZoo's dict-per-agent interface."""

    metadata = {"name": "blockpact_v0", "render_modes": []}

    def __init__(self, world: str | Path | WorldSpec, **options: Any) -> None:
        spec = _spec(world)
        self.core = BatchedEnv(spec, 1, load_options(spec, options), autoreset=False)
        self.possible_agents = list(self.core.players)
        self.agents: list[str] = []
        self._obs_space = observation_space(self.core)
        self._act_space = spaces.Discrete(len(self.core.action_names))
        self._actions = np.zeros((1, len(self.possible_agents)), dtype=np.int64)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        obs = self.core.reset(seed)
        self.agents = list(self.possible_agents)
        return self._split(obs), {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Agents without an action this step do nothing (noop)."""
        self._actions[0] = [actions.get(agent, 0) for agent in self.possible_agents]
        obs, rewards, over = self.core.step_arrays(self._actions)
        agents = self.agents
        out = (
            self._split(self.core.as_dict(obs)),
            dict(zip(agents, rewards[0].tolist())),
            dict.fromkeys(agents, False),  # no world ends early: episodes are truncated at their length
            dict.fromkeys(agents, over),
            {a: {} for a in agents},
        )
        if over:
            self.agents = []
        return out

    def _split(self, obs: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
        """Per-agent views into this step's fresh arrays (nothing else writes them)."""
        keys = list(obs)
        return dict(zip(self.possible_agents, (dict(zip(keys, parts)) for parts in zip(*(obs[k][0] for k in keys)))))
