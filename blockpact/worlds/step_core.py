"""B copies of a world stepped at once: the state and the step of the step-level multi-agent API.

One step is `step_seconds` of simulated time for every agent of every copy: turns, then moves, digs,
places and chest uses (each resolved in player order: of two agents after the same cell or chest,
the first by name wins; a move into a cell another player stands in or is first to enter fails), then
the world's dynamics for every dynamics tick passed. The rules come from `rules.py` through
`StepTables`; the dynamics from the spec's rules through `StepDynamics`.
"""

from __future__ import annotations

import math

import numpy as np

from blockpact.config import defaults
from blockpact.worlds.dynamics import ticks_between
from blockpact.worlds.render import block_color
from blockpact.worlds.spec import WorldSpec
from blockpact.worlds.step_dynamics import StepDynamics
from blockpact.worlds.step_grid import DX, DZ, RotatedGrids
from blockpact.worlds.step_options import ACTION_KINDS, StepOptions
from blockpact.worlds.step_rng import episode_keys, uniforms
from blockpact.worlds.step_tables import WALL, compile_tables

NOOP, FORWARD, BACKWARD, LEFT, RIGHT, TURN_LEFT, TURN_RIGHT, DIG, DIG_DOWN, PLACE, USE = range(len(ACTION_KINDS))
RELATIVE = np.zeros(len(ACTION_KINDS), dtype=np.int64)  # quarter turns from facing to the move's direction
RELATIVE[[FORWARD, RIGHT, BACKWARD, LEFT]] = [0, 1, 2, 3]
DROP_STREAM = 1 << 20  # draw streams below this belong to the dynamics rules
EPS = 1e-9


class BatchedEnv:
    """Copies advance in lockstep and all reach the episode's end together; with `autoreset` they start
    their next episode (the next seed of each copy's sequence) in the same step, and the observation
    returned is the new episode's first."""

    def __init__(self, spec: WorldSpec, num_envs: int, options: StepOptions, autoreset: bool = True) -> None:
        self.spec, self.options, self.num_envs, self.autoreset = spec, options, num_envs, autoreset
        self.tables = t = compile_tables(spec)
        self.players = sorted(spec.players)
        self.action_names = options.actions
        self.kinds = np.array([ACTION_KINDS.index(a) for a in options.actions], dtype=np.int64)
        self.tick_seconds = float(defaults()["simulator"]["tick_seconds"])
        self.episode_steps = max(1, math.ceil(spec.episode_seconds / options.step_seconds - EPS))
        self.layers = np.array(options.window_layers, dtype=np.int64)
        ahead, behind, sides = options.window_ahead, options.window_behind, options.window_sides
        o = spec.origin
        initial = np.zeros(spec.size, dtype=np.uint8)
        for (x, y, z), name in spec.blocks.items():
            initial[x - o[0], y - o[1], z - o[2]] = t.block(name)
        below, above = max(1, -int(self.layers.min())), max(2, int(self.layers.max()) + 1)
        g = self.grids = RotatedGrids(initial, t.block(WALL), max(ahead, behind, sides, 1), below, above, num_envs, (ahead + behind + 1, 2 * sides + 1))
        self.dynamics = StepDynamics(spec, t, g)
        B, N, I = num_envs, len(self.players), len(t.items)
        self.b = np.repeat(np.arange(B)[:, None], N, axis=1)
        self.base = np.arange(B, dtype=np.int64) * 4 * g.cells_per_copy
        self.lower = np.tri(N, k=-1, dtype=bool).T[None]  # [.., n, m]: m comes before n
        spawn = np.array([spec.players[p].spawn for p in self.players]).reshape(N, 3) - np.array(o) + [g.pad, below, g.pad]
        self.spawn = spawn
        self.inventory0 = np.array([[spec.players[p].inventory.get(i, 0) for i in t.items] for p in self.players], dtype=np.int64).reshape(N, I)
        chests = sorted(spec.chests)
        self.chest0 = np.array([[spec.chests[c].items.get(i, 0) for i in t.items] for c in chests], dtype=np.int64).reshape(len(chests), I)
        self.chest_index = np.full(g.cells_per_copy, -1, dtype=np.int64)
        for k, (x, y, z) in enumerate(chests):
            self.chest_index[((y - o[1] + below) * g.S + z - o[2] + g.pad) * g.S + x - o[0] + g.pad] = k
        self.colors = np.array([block_color(n) for n in t.palette], dtype=np.uint8)
        self.x, self.y, self.z = (np.empty((B, N), dtype=np.int64) for _ in range(3))
        self.facing = np.zeros((B, N), dtype=np.int64)
        self.inventory = np.empty((B, N, I), dtype=np.int64)
        self.chests = np.empty((B, len(chests), I), dtype=np.int64)
        self.dig_cell = np.full((B, N), -1, dtype=np.int64)
        self.dig_block = np.zeros((B, N), dtype=np.int64)
        self.dig_progress = np.zeros((B, N))
        self.value = np.zeros((B, N))
        self.seeds = options.seed + np.arange(B, dtype=np.int64)
        self.episodes = np.full(B, -1, dtype=np.int64)
        self.keys = episode_keys(self.seeds, np.zeros(B, dtype=np.int64))
        self.t = 0

    # -- episodes ---------------------------------------------------------------------------------
    def reset(self, seed: int | list[int] | None = None) -> dict[str, np.ndarray]:
        """Start a new episode in every copy: copy b takes seed `seed + b` (or `seed[b]`), else its next episode."""
        if seed is None:
            self.episodes += 1
        else:
            self.seeds = np.asarray(seed, dtype=np.int64) + (0 if np.ndim(seed) else np.arange(self.num_envs))
            self.episodes[:] = 0
        self._restart()
        return self.observe()

    def _restart(self) -> None:
        self.keys = episode_keys(self.seeds, self.episodes)
        self.grids.reset()
        self.x[:], self.y[:], self.z[:] = self.spawn[:, 0], self.spawn[:, 1], self.spawn[:, 2]
        self.facing[:] = 0
        self.inventory[:] = self.inventory0
        self.chests[:] = self.chest0
        self.dig_cell[:] = -1
        self.dig_progress[:] = 0.0
        self.value = np.einsum("bni,ni->bn", self.inventory, self.tables.values)
        self.t = 0
        self._mark_agents(1)

    # -- the step ---------------------------------------------------------------------------------
    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        """actions (B, N) indices into `action_names`; returns observations, rewards, terminated, truncated (B, N)."""
        kind = self.kinds[np.asarray(actions, dtype=np.int64)]
        self.facing = (self.facing + (kind == TURN_RIGHT) - (kind == TURN_LEFT)) % 4
        self._move(kind)
        fx, fz = self.x + DX[self.facing], self.z + DZ[self.facing]
        self._dig(kind, fx, fz)
        if (kind == PLACE).any():
            self._place(kind, fx, fz)
        if (kind == USE).any():
            self._use(kind, fx, fz)
        start = self.t * self.options.step_seconds
        self.t += 1
        for second in ticks_between(start, self.t * self.options.step_seconds, self.tick_seconds):
            self.dynamics.tick(second, round(second / self.tick_seconds), self.keys, self._body_cells())
        value = np.einsum("bni,ni->bn", self.inventory, self.tables.values)
        rewards, self.value = value - self.value, value
        over = self.t >= self.episode_steps
        truncated = np.full(kind.shape, over)
        if over and self.autoreset:
            self.episodes += 1
            self._restart()
        return self.observe(), rewards, np.zeros(kind.shape, dtype=bool), truncated

    def _move(self, kind: np.ndarray) -> None:
        g, solid = self.grids, self.tables.solid
        moving = (kind >= FORWARD) & (kind <= RIGHT)
        if not moving.any():
            return
        d = (self.facing + RELATIVE[kind]) % 4
        x, y, z = self.x, self.y, self.z
        tx, tz = x + DX[d] * moving, z + DZ[d] * moving
        ys = np.clip(y[..., None] + np.arange(-4, 3), 0, g.Yp - 1)
        col = solid[g.get(self.b[..., None], ys, tx[..., None], tz[..., None])]  # col[..., k + 4]: solid at y + k

        def stand(k: int) -> np.ndarray:
            inside = (y + k >= g.below) & (y + k < g.below + g.height)
            return ~col[..., k + 4] & ~col[..., k + 5] & col[..., k + 3] & inside

        level, up = stand(0), stand(1) & ~solid[g.get(self.b, np.minimum(y + 2, g.Yp - 1), x, z)]
        up &= ~level
        d1 = stand(-1)
        d2 = ~d1 & ~col[..., 3] & stand(-2)
        d3 = ~d1 & ~d2 & ~col[..., 3] & ~col[..., 2] & stand(-3)
        fall = ~level & ~up & ~col[..., 4] & ~col[..., 5] & (d1 | d2 | d3)
        can = moving & (level | up | fall)
        ty = y + np.where(level, 0, np.where(up, 1, np.where(d1, -1, np.where(d2, -2, -3))))
        same_column = (tx[:, :, None] == x[:, None, :]) & (tz[:, :, None] == z[:, None, :]) & (np.abs(ty[:, :, None] - y[:, None, :]) <= 1)
        taken = (same_column & ~np.eye(len(self.players), dtype=bool)).any(axis=2)
        clash = (tx[:, :, None] == tx[:, None, :]) & (tz[:, :, None] == tz[:, None, :]) & (np.abs(ty[:, :, None] - ty[:, None, :]) <= 1)
        first = ~(clash & can[:, None, :] & self.lower).any(axis=2)
        ok = can & ~taken & first
        if ok.any():
            self.grids.mark_agents(self.b[ok], x[ok], z[ok], 0)
            self.x, self.y, self.z = np.where(ok, tx, x), np.where(ok, ty, y), np.where(ok, tz, z)
            self._mark_agents(1)  # all, in case a player left a column another still stands in

    def _first_per_cell(self, active: np.ndarray, cell: np.ndarray) -> np.ndarray:
        """Active agents that no earlier active agent of the same copy competes with for `cell`."""
        same = (cell[:, :, None] == cell[:, None, :]) & active[:, None, :] & self.lower
        return active & ~same.any(axis=2)

    def _dig(self, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray) -> None:
        t, g = self.tables, self.grids
        digging = (kind == DIG) | (kind == DIG_DOWN)
        if not digging.any():
            self.dig_cell[:] = -1
            return
        b, y = self.b, self.y
        feet, head, low = (g.get(b, y + k, fx, fz) for k in (0, 1, -1))
        use_feet = t.diggable[feet]
        down = kind == DIG_DOWN
        ty = np.where(down, y - 1, np.where(use_feet, y, y + 1))
        block = np.where(down, low, np.where(use_feet, feet, head)).astype(np.int64)
        active = digging & t.diggable[block]
        cell = g.index(b, ty, fx, fz)
        owned = np.ones(kind.shape + (len(t.tools),), dtype=bool)
        owned[..., 1:] = self.inventory[..., t.tool_slot[1:]] > 0
        tool = np.where(owned, t.tool_rank[block], len(t.tools) + 1).argmin(axis=2)
        progress = np.where((cell == self.dig_cell) & (block == self.dig_block), self.dig_progress, 0.0) + self.options.step_seconds
        done = active & (progress >= t.dig_seconds[block, tool] - EPS)
        going = active & ~done
        self.dig_cell = np.where(going, cell, -1)
        self.dig_block = block
        self.dig_progress = np.where(going, progress, 0.0)
        if not done.any():
            return
        win = self._first_per_cell(done, cell)
        bi, ni = np.nonzero(win)
        blk, hv = block[bi, ni], t.harvest[block[bi, ni], tool[bi, ni]]
        self.inventory[bi, ni] += t.fixed_drops[blk] * hv[:, None]
        slot = t.drop_slot[blk]
        rolled = hv & (slot >= 0)
        if rolled.any():
            u = uniforms(self.keys[bi], self.t, DROP_STREAM, len(self.players))[np.arange(len(bi)), ni]
            k = (u[:, None] >= t.drop_cdf[blk]).sum(axis=1)
            self.inventory[bi[rolled], ni[rolled], slot[rolled]] += t.drop_counts[blk, k][rolled]
        chest = self.chest_index[cell[bi, ni] - self.base[bi]]
        spill = chest >= 0
        if spill.any():
            self.inventory[bi[spill], ni[spill]] += self.chests[bi[spill], chest[spill]]
            self.chests[bi[spill], chest[spill]] = 0
        g.set(bi, ty[bi, ni], fx[bi, ni], fz[bi, ni], t.block("air"))

    def _place(self, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray) -> None:
        t, g, b, y = self.tables, self.grids, self.b, self.y
        if self.options.place_item:
            slot = np.full(kind.shape, t.slot(self.options.place_item))
            has = np.take_along_axis(self.inventory, slot[..., None], axis=2)[..., 0] > 0
        else:
            held = (self.inventory > 0) & (t.place_block >= 0)
            slot, has = held.argmax(axis=2), held.any(axis=2)
        block = t.place_block[slot]
        ok = (kind == PLACE) & has & (block >= 0) & t.replaceable[g.get(b, y, fx, fz)]
        beside = [(0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1)]
        ok &= np.any([t.solid[g.get(b, np.clip(y + dy, 0, g.Yp - 1), fx + dx, fz + dz)] for dx, dy, dz in beside], axis=0)
        body = (fx[:, :, None] == self.x[:, None, :]) & (fz[:, :, None] == self.z[:, None, :]) & ((y[:, :, None] == self.y[:, None, :]) | (y[:, :, None] == self.y[:, None, :] + 1))
        ok &= ~(t.solid[block] & body.any(axis=2))
        win = self._first_per_cell(ok, g.index(b, y, fx, fz))
        bi, ni = np.nonzero(win)
        self.inventory[bi, ni, slot[bi, ni]] -= 1
        g.set(bi, y[bi, ni], fx[bi, ni], fz[bi, ni], block[bi, ni])

    def _use(self, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray) -> None:
        """Open the faced chest: take all of its first item (item order), or put all of one's own first item in an empty chest."""
        g, b, y = self.grids, self.b, self.y
        chest_id = self.tables.block("chest") if "chest" in self.tables.palette else -1
        found = np.full(kind.shape, -1)
        for dy in (1, 0):  # feet height wins over head height
            cell = g.index(b, y + dy, fx, fz)
            here = (self.chest_index[cell - self.base[:, None]] >= 0) & (g.flat[cell] == chest_id)
            found = np.where(here, self.chest_index[cell - self.base[:, None]], found)
        win = self._first_per_cell((kind == USE) & (found >= 0), found)
        for bi, ni in zip(*np.nonzero(win)):
            box, own = self.chests[bi, found[bi, ni]], self.inventory[bi, ni]
            source, target = (box, own) if box.any() else (own, box)
            if source.any():
                j = int(np.argmax(source > 0))
                target[j] += source[j]
                source[j] = 0

    # -- what agents see ------------------------------------------------------------------------
    def _mark_agents(self, value: int) -> None:
        self.grids.mark_agents(self.b.ravel(), self.x.ravel(), self.z.ravel(), value)

    def _body_cells(self) -> np.ndarray:
        S = self.grids.S
        feet = (self.y * S + self.z) * S + self.x
        return np.concatenate([feet, feet + S * S], axis=1)

    def observe(self) -> dict[str, np.ndarray]:
        """(B, N, ...) arrays: block windows (palette indices), players in the window, inventories, optionally RGB."""
        o = self.options
        blocks, agents = self.grids.windows(self.b, self.facing, self.y, self.x, self.z, self.layers, o.window_ahead, o.window_sides)
        obs = {"blocks": blocks, "agents": agents, "inventory": self.inventory.copy()}
        if o.render_rgb:
            top = len(self.layers) - 1 - np.argmax((blocks != 0)[:, :, ::-1], axis=2)
            rgb = self.colors[np.take_along_axis(blocks, top[:, :, None], axis=2)[:, :, 0]]
            rgb[agents > 0] = 255
            obs["rgb"] = rgb
        return obs
