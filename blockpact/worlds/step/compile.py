"""Compile the step API's numba kernel and the simulator's dynamics rules ahead of time (`make setup` runs
this), so no user or test waits for them, silently, on the first `env.step` or the first simulated tick of a
world with dynamics (about 5 s of CPU, in every process that got there before the cache was written).

numba caches the machine code next to the kernel's source (`__pycache__/*.nbi, *.nbc` beside
`kernel.py`), or in NUMBA_CACHE_DIR when that is set; later processes load it in well under a
second. Run it again after editing the kernel: `python -m blockpact.worlds.step.compile`.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

WORLD = "double_vein"  # any world: the kernel's argument types are the same for every world
DYNAMICS_WORLD = "cleanup"  # any world with dynamics: the rules' interpreter takes the same types for every world


def cache_dir() -> Path:
    from blockpact.worlds.step import kernel as step_kernel

    custom = os.environ.get("NUMBA_CACHE_DIR")
    return Path(custom) if custom else Path(step_kernel.__file__).parent / "__pycache__"


def compile_kernel() -> float:
    """Step a small batch once with every action (reset, step, automatic restart); returns the seconds it took."""
    from blockpact.worlds import batched_env

    start = time.perf_counter()
    env = batched_env(WORLD, num_envs=2)
    env.reset(seed=0)
    players, actions = env.state.x.shape[1], len(env.action_names)
    for step in range(env.episode_steps + 1):  # through the episode's end: the restart path compiles too
        env.step(np.full((2, players), step % actions, dtype=np.int64))
    env.observe()
    return time.perf_counter() - start


def compile_dynamics() -> float:
    """Tick the dynamics of a world that has some (numba compiles the rules' interpreter, as the simulator runs
    it) and draw a random drop count; returns the seconds it took."""
    from blockpact.worlds.rules.dynamics import Dynamics
    from blockpact.worlds.rules.rng import DROPS, stream_unit
    from blockpact.worlds.state import WorldState
    from blockpact.worlds.world_files import load_world

    start = time.perf_counter()
    dynamics = Dynamics(WorldState(load_world(DYNAMICS_WORLD), 0))
    for second in (1.0, 2.0, 3.0):
        dynamics.tick(second)
    stream_unit(0, DROPS, 0)
    return time.perf_counter() - start


def main() -> int:
    print(f"Compiling the step API's numba kernel (about 25 s of CPU the first time: a minute or two on a busy 2-core machine) into {cache_dir()} ...",
          file=sys.stderr, flush=True)
    seconds = compile_kernel()
    print(f"step kernel ready ({seconds:.1f} s); compiling the simulator's dynamics rules ...", file=sys.stderr, flush=True)
    seconds = compile_dynamics()
    print(f"dynamics rules ready ({seconds:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
