"""The compiled step of the step-level API: one loop over copies and agents, no Python per step.

It applies the rules as tabulated in `rules/tables.py` (`StepTables`, flattened into `Static`, see arrays.py),
the world's dynamics as compiled by `rules/interpreter.py`, and the counter-based draws of `rules/rng.py` (a drop
table's count: stream DROPS at the step, one index per player).
Within a copy one step resolves, in order: turns; moves; digs; places; chest uses (all reading the state the
previous phase left; of two agents after the same cell or chest the first by name wins (as on the
simulator's clock, which serves players in name order); a move into a column another player stands in
fails); then the dynamics ticks that fall in the step; rewards; the automatic restart at the episode's
end; observations (observe.py). Copies never interact, so each is stepped to the end before the next.
Compiled with `cache=True`: the first use on a machine compiles (see BENCHMARKS.md for how long), later
processes load the cached machine code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from blockpact.worlds.rules.interpreter import Rules, Schedule, apply_rules
from blockpact.worlds.rules.padded_grids import DX, DZ
from blockpact.worlds.rules.rng import DROPS, episode_key, spread, stream_base, unit, word
from blockpact.worlds.step.arrays import State, Static
from blockpact.worlds.step.observe import Observation, empty_observation, observe_copy
from blockpact.worlds.step.options import ACTION_KINDS

NOOP, FORWARD, BACKWARD, LEFT, RIGHT, TURN_LEFT, TURN_RIGHT, DIG, DIG_DOWN, PLACE, USE, CRAFT = range(len(ACTION_KINDS))
RELATIVE = np.zeros(len(ACTION_KINDS), dtype=np.int64)  # quarter turns from facing to the move's direction
RELATIVE[[FORWARD, RIGHT, BACKWARD, LEFT]] = [0, 1, 2, 3]
EPS = 1e-9


@njit(cache=True, inline="always")
def _mark(st: State, tb: Static, b: int, x: int, z: int, value: int) -> None:
    st.agents[(b * tb.SZ + z) * tb.SX + x] = value


@njit(cache=True, inline="always")
def _solid(st: State, tb: Static, column: int, y: int) -> bool:
    """Whether the cell at height y (clipped to the grid) of a column (copy offset + z * SX + x) is solid."""
    return tb.solid[st.flat[column + min(max(y, 0), tb.Yp - 1) * tb.SZ * tb.SX]]


@njit(cache=True, inline="always")
def _move(b: int, kind: np.ndarray, st: State, tb: Static, tx: np.ndarray, ty: np.ndarray, tz: np.ndarray, can: np.ndarray, ok: np.ndarray) -> None:
    """Step to the neighbouring column: level, one up, or down by up to three; blocked by players."""
    N, copy, bottom, top = kind.shape[0], b * tb.Yp * tb.SZ * tb.SX, tb.floor, tb.floor + tb.height
    x, y, z = st.x[b], st.y[b], st.z[b]
    moving = False
    for n in range(N):
        k = kind[n]
        can[n] = False
        if k < FORWARD or k > RIGHT:
            continue
        moving = True
        d = (st.facing[b, n] + RELATIVE[k]) % 4
        X, Y, Z = x[n] + DX[d], y[n], z[n] + DZ[d]
        column = copy + Z * tb.SX + X
        # solid at Y - 4 .. Y + 2 in the target column; a player fits with feet at Y + j when the feet
        # and head cells are free, the one below solid, and Y + j inside the map's height
        s4, s3, s2, s1 = _solid(st, tb, column, Y - 4), _solid(st, tb, column, Y - 3), _solid(st, tb, column, Y - 2), _solid(st, tb, column, Y - 1)
        s0, p1, p2 = _solid(st, tb, column, Y), _solid(st, tb, column, Y + 1), _solid(st, tb, column, Y + 2)
        level = not s0 and not p1 and s1 and bottom <= Y < top
        up = not level and not p1 and not p2 and s0 and bottom <= Y + 1 < top and not _solid(st, tb, copy + z[n] * tb.SX + x[n], Y + 2)
        d1 = not s1 and not s0 and s2 and bottom <= Y - 1 < top
        d2 = not d1 and not s1 and not s2 and s3 and bottom <= Y - 2 < top
        d3 = not d1 and not d2 and not s1 and not s2 and not s3 and s4 and bottom <= Y - 3 < top
        fall = not level and not up and not s0 and not p1 and (d1 or d2 or d3)
        can[n] = level or up or fall
        tx[n], tz[n] = X, Z
        ty[n] = Y + (0 if level else 1 if up else -1 if d1 else -2 if d2 else -3)
    if not moving:
        return
    moved = False
    for n in range(N):
        ok[n] = can[n]
        if not can[n]:
            continue
        for m in range(N):
            if m != n and tx[n] == x[m] and tz[n] == z[m] and abs(ty[n] - y[m]) <= 1:
                ok[n] = False  # someone stands there
            if m < n and can[m] and tx[n] == tx[m] and tz[n] == tz[m] and abs(ty[n] - ty[m]) <= 1:
                ok[n] = False  # an earlier player enters it
        moved |= ok[n]
    if not moved:
        return
    for n in range(N):
        if ok[n]:
            _mark(st, tb, b, x[n], z[n], 0)
    for n in range(N):
        if ok[n]:
            x[n], y[n], z[n] = tx[n], ty[n], tz[n]
    for n in range(N):  # all, in case a player left a column another still stands in
        _mark(st, tb, b, x[n], z[n], 1)


@njit(cache=True, inline="always")
def _dig(b: int, t: int, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray, st: State, tb: Static, cell: np.ndarray, block: np.ndarray, tool: np.ndarray, done: np.ndarray) -> None:
    """Dig the faced block (feet height, else head height; dig_down: one below the feet) for a step;
    it breaks once the dig time of the best tool held has been spent on the same cell and block."""
    N, SX, SZ, copy = kind.shape[0], tb.SX, tb.SZ, b * tb.Yp * tb.SZ * tb.SX
    y = st.y[b]
    T = tb.tool_slot.shape[0]
    any_done = False
    for n in range(N):
        done[n] = False
        if kind[n] != DIG and kind[n] != DIG_DOWN:
            st.dig_cell[b, n] = -1
            continue
        feet = st.flat[copy + (y[n] * SZ + fz[n]) * SX + fx[n]]
        if kind[n] == DIG_DOWN:
            ty, blk = y[n] - 1, st.flat[copy + ((y[n] - 1) * SZ + fz[n]) * SX + fx[n]]
        elif tb.diggable[feet]:
            ty, blk = y[n], feet
        else:
            ty, blk = y[n] + 1, st.flat[copy + ((y[n] + 1) * SZ + fz[n]) * SX + fx[n]]
        c = (ty * SZ + fz[n]) * SX + fx[n]
        best, best_rank = 0, tb.tool_rank[blk, 0]
        for k in range(1, T):
            rank = tb.tool_rank[blk, k] if st.inventory[b, n, tb.tool_slot[k]] > 0 else T + 1
            if rank < best_rank:
                best, best_rank = k, rank
        progress = (st.dig_progress[b, n] if c == st.dig_cell[b, n] and blk == st.dig_block[b, n] else 0.0) + tb.step_seconds
        active = tb.diggable[blk]
        done[n] = active and progress >= tb.dig_seconds[blk, best] - EPS
        going = active and not done[n]
        st.dig_cell[b, n] = c if going else -1
        st.dig_block[b, n] = blk
        st.dig_progress[b, n] = progress if going else 0.0
        cell[n], block[n], tool[n] = c, blk, best
        any_done |= done[n]
    if not any_done:
        return
    base = stream_base(st.keys[b], t, DROPS)
    for n in range(N):
        if not done[n]:
            continue
        beaten = False
        for m in range(n):
            beaten |= done[m] and cell[m] == cell[n]
        if beaten:
            continue
        blk, inv = block[n], st.inventory[b, n]
        if tb.harvest[blk, tool[n]]:
            for i in range(inv.shape[0]):
                inv[i] += tb.fixed_drops[blk, i]
            slot = tb.drop_slot[blk]
            if slot >= 0:
                u = unit(word(base, spread(n)))
                k = 0
                while k < tb.drop_cdf.shape[1] and u >= tb.drop_cdf[blk, k]:
                    k += 1
                inv[slot] += tb.drop_counts[blk, k]
        chest = tb.chest_index[cell[n]]
        if chest >= 0:  # a broken chest spills its contents
            for i in range(inv.shape[0]):
                inv[i] += st.chests[b, chest, i]
                st.chests[b, chest, i] = 0
        st.flat[copy + cell[n]] = tb.air


@njit(cache=True, inline="always")
def _place(b: int, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray, st: State, tb: Static, slot: np.ndarray, block: np.ndarray, ok: np.ndarray) -> None:
    """Put a block item in the faced cell at feet height: an empty cell next to something solid, not
    where a player's body is."""
    N, SX, SZ, copy = kind.shape[0], tb.SX, tb.SZ, b * tb.Yp * tb.SZ * tb.SX
    x, y, z = st.x[b], st.y[b], st.z[b]
    I = tb.place_block.shape[0]
    for n in range(N):
        ok[n] = False
        if kind[n] != PLACE:
            continue
        inv = st.inventory[b, n]
        if tb.place_slot >= 0:
            s, has = tb.place_slot, inv[tb.place_slot] > 0
        else:
            s, has = 0, False
            for i in range(I):
                if inv[i] > 0 and tb.place_block[i] >= 0:
                    s, has = i, True
                    break
        blk = tb.place_block[s]
        if not has or blk < 0 or not tb.replaceable[st.flat[copy + (y[n] * SZ + fz[n]) * SX + fx[n]]]:
            continue
        column = copy + fz[n] * SX + fx[n]
        beside = (
            _solid(st, tb, column, y[n] + 1) or _solid(st, tb, column, y[n] - 1)
            or _solid(st, tb, column + 1, y[n]) or _solid(st, tb, column - 1, y[n])
            or _solid(st, tb, column + SX, y[n]) or _solid(st, tb, column - SX, y[n])
        )
        if not beside:
            continue
        if tb.solid[blk]:
            for m in range(N):
                if fx[n] == x[m] and fz[n] == z[m] and (y[n] == y[m] or y[n] == y[m] + 1):
                    beside = False  # a player's body is there
        ok[n], slot[n], block[n] = beside, s, blk
    for n in range(N):
        if not ok[n]:
            continue
        beaten = False
        for m in range(n):
            beaten |= ok[m] and fx[m] == fx[n] and fz[m] == fz[n] and y[m] == y[n]
        if not beaten:
            st.inventory[b, n, slot[n]] -= 1
            st.flat[copy + (y[n] * SZ + fz[n]) * SX + fx[n]] = block[n]


@njit(cache=True, inline="always")
def _use(b: int, kind: np.ndarray, fx: np.ndarray, fz: np.ndarray, st: State, tb: Static, found: np.ndarray) -> None:
    """Open the faced chest (feet height, else head height): take all of its first item (item order),
    or put all of one's own first item in an empty chest."""
    N, SX, SZ, copy = kind.shape[0], tb.SX, tb.SZ, b * tb.Yp * tb.SZ * tb.SX
    y = st.y[b]
    for n in range(N):
        found[n] = -1
        if kind[n] != USE:
            continue
        for dy in (1, 0):  # feet height wins over head height
            c = ((y[n] + dy) * SZ + fz[n]) * SX + fx[n]
            if tb.chest_index[c] >= 0 and st.flat[copy + c] == tb.chest_block:
                found[n] = tb.chest_index[c]
    for n in range(N):
        if found[n] < 0:
            continue
        beaten = False
        for m in range(n):
            beaten |= found[m] == found[n]
        if beaten:
            continue
        box, own = st.chests[b, found[n]], st.inventory[b, n]
        source, target = (box, own) if np.any(box != 0) else (own, box)
        if np.any(source != 0):
            j = 0
            while j < source.shape[0] and source[j] <= 0:
                j += 1
            j = j if j < source.shape[0] else 0
            target[j] += source[j]
            source[j] = 0


@njit(cache=True, inline="always")
def _inventory_value(st: State, tb: Static, b: int, n: int) -> float:
    """What player n holds is worth to it, plus its part of the owned and shared chests (the simulator's reward)."""
    v = 0.0
    for i in range(tb.values.shape[1]):
        v += st.inventory[b, n, i] * tb.values[n, i]
    for c in range(tb.chest_share.shape[0]):
        if tb.chest_share[c, n] != 0.0:
            for i in range(tb.values.shape[1]):
                v += tb.chest_share[c, n] * st.chests[b, c, i] * tb.values[n, i]
    return v


@njit(cache=True, inline="always")
def _restart(b: int, st: State, tb: Static) -> None:
    """Copy b back to the world's initial state (its key follows its seed and episode number)."""
    st.keys[b] = episode_key(st.seeds[b], st.episodes[b])
    size = tb.template.shape[0]
    st.flat[b * size : (b + 1) * size] = tb.template
    plane = tb.SZ * tb.SX
    st.agents[b * plane : (b + 1) * plane] = 0
    st.chests[b] = tb.chest0  # before the values: a player's part of the owned and shared chests counts
    for n in range(st.x.shape[1]):
        st.x[b, n], st.y[b, n], st.z[b, n] = tb.spawn[n, 0], tb.spawn[n, 1], tb.spawn[n, 2]
        st.facing[b, n] = 0
        st.inventory[b, n] = tb.inventory0[n]
        st.dig_cell[b, n] = -1
        st.dig_progress[b, n] = 0.0
        st.value[b, n] = _inventory_value(st, tb, b, n)
        _mark(st, tb, b, st.x[b, n], st.z[b, n], 1)


@njit(cache=True)
def restart_all(st: State, tb: Static) -> None:
    for b in range(st.x.shape[0]):
        _restart(b, st, tb)


@njit(cache=True, inline="always")
def _craft(b: int, kind: np.ndarray, action: np.ndarray, fx: np.ndarray, fz: np.ndarray, st: State, tb: Static) -> None:
    """Do the action's recipe once when the inventory holds its ingredients (rules.craft), facing a
    crafting table (feet or head height) when the recipe needs one (the step API's "nearby")."""
    copy = b * tb.Yp * tb.SZ * tb.SX
    for n in range(kind.shape[0]):
        if kind[n] != CRAFT:
            continue
        r = tb.craft_recipe[action[n]]
        if tb.recipe_table[r]:
            near = False
            for dy in (1, 0):
                near |= st.flat[copy + ((st.y[b, n] + dy) * tb.SZ + fz[n]) * tb.SX + fx[n]] == tb.table_block
            if not near:
                continue
        own = st.inventory[b, n]
        if np.all(own >= tb.recipe_in[r]):
            own -= tb.recipe_in[r]
            own[tb.recipe_out[r]] += tb.recipe_count[r]


@njit(cache=True)
def step_all(actions: np.ndarray, t: int, restart: bool, st: State, tb: Static, ru: Rules, sc: Schedule) -> tuple[Observation, np.ndarray, int]:
    """Step every copy by one step (number `t` of the episode); with `restart`, copies begin their
    next episode after it. Returns observations, rewards (B, N) and -1, or, when an action index is
    out of range, the flat position of the first such action (and nothing was stepped)."""
    B, N = actions.shape
    out = empty_observation(st, tb)
    rewards = np.zeros((B, N))
    for b in range(B):
        for n in range(N):
            if actions[b, n] < 0 or actions[b, n] >= tb.kinds.shape[0]:
                return out, rewards, b * N + n
    kind, fx, fz, tx, ty, tz = np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64)
    cell, block, tool, slot = np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64), np.empty(N, np.int64)
    can, ok, done = np.empty(N, np.bool_), np.empty(N, np.bool_), np.empty(N, np.bool_)
    cells, plane = tb.Yp * tb.SZ * tb.SX, tb.SZ * tb.SX
    occupied = np.zeros(cells, dtype=np.bool_)
    blocks, agents, inventory, rgb = out.blocks.reshape(-1), out.agents.reshape(-1), out.inventory.reshape(-1), out.rgb.reshape(-1)
    for b in range(B):
        for n in range(N):
            kind[n] = tb.kinds[actions[b, n]]
            if kind[n] == TURN_RIGHT:
                st.facing[b, n] = (st.facing[b, n] + 1) % 4
            elif kind[n] == TURN_LEFT:
                st.facing[b, n] = (st.facing[b, n] + 3) % 4
        _move(b, kind, st, tb, tx, ty, tz, can, ok)
        for n in range(N):
            fx[n], fz[n] = st.x[b, n] + DX[st.facing[b, n]], st.z[b, n] + DZ[st.facing[b, n]]
        _dig(b, t, kind, fx, fz, st, tb, cell, block, tool, done)
        _place(b, kind, fx, fz, st, tb, slot, block, ok)
        _use(b, kind, fx, fz, st, tb, cell)
        _craft(b, kind, actions[b], fx, fz, st, tb)
        if sc.start[t + 1] > sc.start[t]:
            for n in range(N):
                feet = (st.y[b, n] * tb.SZ + st.z[b, n]) * tb.SX + st.x[b, n]
                occupied[feet] = True
                occupied[feet + plane] = True
            for k in range(sc.start[t], sc.start[t + 1]):
                apply_rules(st.flat, b * cells, sc.number[k], sc.due[k], st.keys[b], occupied, ru, tb.air)
            for n in range(N):
                feet = (st.y[b, n] * tb.SZ + st.z[b, n]) * tb.SX + st.x[b, n]
                occupied[feet] = False
                occupied[feet + plane] = False
        for n in range(N):
            value = _inventory_value(st, tb, b, n)
            rewards[b, n] = value - st.value[b, n]
            st.value[b, n] = value
        if restart:
            st.episodes[b] += 1
            _restart(b, st, tb)
        observe_copy(b, st, tb, blocks, agents, inventory, rgb)
    return out, rewards, -1
