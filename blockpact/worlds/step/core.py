"""B copies of a world stepped at once: the state and the step of the step-level multi-agent API.

One step is `step_seconds` of simulated time for every agent of every copy: turns, then moves, digs,
places and chest uses, then the world's dynamics for every dynamics tick passed (the order and the
tie-breaks are described in `kernel.py`, which does the work). The rules come from `rules/tables.py`
through `StepTables`; the dynamics from the spec's rules through `StepDynamics` (`rules/interpreter.py`).
"""

from __future__ import annotations

import math

import numpy as np

from blockpact.settings import settings
from blockpact.worlds.colors import block_color
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.rules.interpreter import StepDynamics
from blockpact.worlds.rules.padded_grids import PaddedGrids
from blockpact.worlds.step.arrays import State, Static
from blockpact.worlds.step.kernel import restart_all, step_all
from blockpact.worlds.step.observe import Observation, observe_all
from blockpact.worlds.step.sharing import GroupSharing
from blockpact.worlds.step.options import ACTION_KINDS, CRAFT_PREFIX, StepOptions, action_kind, crafted_items
from blockpact.worlds.rules.tables import WALL, compile_tables

EPS = 1e-9


class BatchedEnv:
    """Copies advance in lockstep and all reach the episode's end together; with `autoreset` they start
    their next episode (the next seed of each copy's sequence) in the same step, and the observation
    returned is the new episode's first."""

    def __init__(self, spec: WorldSpec, num_envs: int, options: StepOptions, autoreset: bool = True) -> None:
        self.spec, self.options, self.num_envs, self.autoreset = spec, options, num_envs, autoreset
        self.tables = t = compile_tables(spec, crafted_items(options.actions))
        self.players = sorted(spec.players)
        self.action_names = options.actions
        self.tick_seconds = settings().simulator.tick_seconds
        self.episode_steps = max(1, math.ceil(spec.episode_seconds / options.step_seconds - EPS))
        layers = np.array(options.window_layers, dtype=np.int64)
        ahead, behind, sides = options.window_ahead, options.window_behind, options.window_sides
        o = spec.origin
        initial = np.zeros(spec.size, dtype=np.uint8)
        for (x, y, z), name in spec.blocks.items():
            initial[x - o[0], y - o[1], z - o[2]] = t.block(name)
        below, above = max(1, -int(layers.min())), max(2, int(layers.max()) + 1)
        g = self.grids = PaddedGrids(initial, t.block(WALL), max(ahead, behind, sides, 1), below, above, num_envs)
        self.dynamics = StepDynamics(spec, t, g)
        B, N, I = num_envs, len(self.players), len(t.items)
        spawn = np.array([spec.players[p].spawn for p in self.players], dtype=np.int64).reshape(N, 3) - np.array(o) + [g.pad, below, g.pad]
        chests = sorted(spec.chests)
        chest_index = np.full(g.cells_per_copy, -1, dtype=np.int64)
        for k, (x, y, z) in enumerate(chests):
            chest_index[((y - o[1] + below) * g.SZ + z - o[2] + g.pad) * g.SX + x - o[0] + g.pad] = k
        self.static = Static(
            kinds=np.array([ACTION_KINDS.index(action_kind(a)) for a in options.actions], dtype=np.int64),
            craft_recipe=np.array([crafted_items(options.actions).index(a[len(CRAFT_PREFIX):]) if action_kind(a) == "craft" else -1
                                   for a in options.actions], dtype=np.int64),
            recipe_in=t.recipe_in, recipe_out=t.recipe_out, recipe_count=t.recipe_count, recipe_table=t.recipe_table,
            table_block=t.block("crafting_table") if "crafting_table" in t.palette else -1,
            solid=t.solid, diggable=t.diggable, replaceable=t.replaceable, harvest=t.harvest, dig_seconds=t.dig_seconds,
            tool_rank=t.tool_rank, tool_slot=t.tool_slot, fixed_drops=t.fixed_drops, drop_slot=t.drop_slot,
            drop_cdf=t.drop_cdf, drop_counts=t.drop_counts, place_block=t.place_block, values=t.values,
            chest_index=chest_index,
            chest_share=np.array([[spec.chests[c].share(p, N) for p in self.players] for c in chests], dtype=np.float64).reshape(len(chests), N),
            colors=np.array([block_color(n) for n in t.palette], dtype=np.uint8).reshape(-1, 3),
            template=g.template.reshape(-1), spawn=spawn,
            inventory0=np.array([[spec.players[p].inventory.get(i, 0) for i in t.items] for p in self.players], dtype=np.int64).reshape(N, I),
            chest0=np.array([[spec.chests[c].items.get(i, 0) for i in t.items] for c in chests], dtype=np.int64).reshape(len(chests), I),
            layers=layers, SX=g.SX, SZ=g.SZ, Yp=g.Yp, floor=g.below, height=g.height, ahead=ahead, sides=sides,
            rows=ahead + behind + 1, cols=2 * sides + 1,
            place_slot=t.slot(options.place_item) if options.place_item else -1,
            chest_block=t.block("chest") if "chest" in t.palette else -1, air=t.block("air"),
            step_seconds=float(options.step_seconds), rgb=bool(options.render_rgb),
        )
        self.state = State(
            flat=g.flat, agents=g.agents_flat,
            x=np.zeros((B, N), dtype=np.int64), y=np.zeros((B, N), dtype=np.int64), z=np.zeros((B, N), dtype=np.int64),
            facing=np.zeros((B, N), dtype=np.int64), inventory=np.zeros((B, N, I), dtype=np.int64),
            chests=np.zeros((B, len(chests), I), dtype=np.int64), dig_cell=np.full((B, N), -1, dtype=np.int64),
            dig_block=np.zeros((B, N), dtype=np.int64), dig_progress=np.zeros((B, N)), value=np.zeros((B, N)),
            seeds=options.seed + np.arange(B, dtype=np.int64), episodes=np.full(B, -1, dtype=np.int64),
            keys=np.zeros(B, dtype=np.uint64),
        )
        self.x, self.y, self.z, self.inventory, self.chests = (self.state.x, self.state.y, self.state.z, self.state.inventory, self.state.chests)
        self.schedule = self.dynamics.schedule(options.step_seconds, self.tick_seconds, self.episode_steps)
        self.sharing = GroupSharing(spec, self.players, float(options.step_seconds))
        self.t = 0

    # -- episodes ---------------------------------------------------------------------------------
    def reset(self, seed: int | list[int] | None = None) -> dict[str, np.ndarray]:
        """Start a new episode in every copy: copy b takes seed `seed + b` (or `seed[b]`), else its next episode."""
        st = self.state
        if seed is None:
            st.episodes[:] += 1
        else:
            st.seeds[:] = np.asarray(seed, dtype=np.int64) + (0 if np.ndim(seed) else np.arange(self.num_envs))
            st.episodes[:] = 0
        restart_all(st, self.static)
        self.t = 0
        return self.as_dict(observe_all(st, self.static))

    # -- the step ---------------------------------------------------------------------------------
    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        """actions (B, N) indices into `action_names`; returns observations, rewards, terminated, truncated (B, N)."""
        obs, rewards, over = self.step_arrays(actions)
        shape = rewards.shape
        return self.as_dict(obs), rewards, np.zeros(shape, dtype=bool), np.full(shape, over)

    def step_arrays(self, actions: np.ndarray) -> tuple[Observation, np.ndarray, bool]:
        """The step without the dict and flag arrays: observations, rewards and whether the episode ended."""
        a = np.asarray(actions, dtype=np.int64)
        if a.shape != self.state.x.shape:
            raise ValueError(f"actions have shape {a.shape} (expected {self.state.x.shape}: copies x players)")
        t = self.t
        if t + 1 >= len(self.schedule.start):  # stepping on past the episode's end without a reset
            self.schedule = self.dynamics.schedule(self.options.step_seconds, self.tick_seconds, 2 * (t + 1))
        over = t + 1 >= self.episode_steps
        restart = over and self.autoreset
        obs, rewards, bad = step_all(a, t, restart, self.state, self.static, self.dynamics.rules, self.schedule)
        if bad >= 0:
            b, n = divmod(bad, a.shape[1])
            raise ValueError(f"action {a[b, n]} of copy {b}, player {self.players[n]} is out of range (expected 0 .. {len(self.action_names) - 1})")
        self.t = 0 if restart else t + 1
        return obs, self.sharing.apply(rewards, t), over

    # -- what agents see ------------------------------------------------------------------------
    def observe(self) -> dict[str, np.ndarray]:
        """(B, N, ...) arrays: block windows (palette indices), players in the window, inventories, optionally RGB."""
        return self.as_dict(observe_all(self.state, self.static))

    def as_dict(self, obs: Observation) -> dict[str, np.ndarray]:
        out = {"blocks": obs.blocks, "agents": obs.agents, "inventory": obs.inventory}
        if self.options.render_rgb:
            out["rgb"] = obs.rgb
        return out

