"""Throughput of the step-level API: env-steps and agent-steps per second, single env and batched.

    taskset -c 0 .venv/bin/python bench/sim_throughput.py --world cleanup_mp --agents 7 --envs 1 64 1024 --json

Actions are uniform random from a seeded RNG, drawn before timing. Configurations are measured in
turn within each repeat (so load from other processes hits them alike) and the median is reported,
per second of wall-clock time and per second of this process's CPU time (the figure for "one core"
when other processes share it). The step kernel is compiled (or loaded from numba's cache) during
the warm-up, before timing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from blockpact.worlds import batched_env, parallel_env

ACTION_CHUNK = 256  # pre-drawn steps of actions, cycled


Runner = Callable[[float], tuple[int, float, float]]  # seconds -> steps, wall seconds, CPU seconds


def single_runner(world: str, seed: int) -> Runner:
    env = parallel_env(world)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = env.action_space(env.possible_agents[0]).n
    plans = [dict(zip(env.possible_agents, rng.integers(n, size=len(env.possible_agents)).tolist())) for _ in range(ACTION_CHUNK)]

    def run(seconds: float) -> tuple[int, float, float]:
        steps, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            for actions in plans:
                if not env.agents:
                    env.reset()
                env.step(actions)
            steps += len(plans)
        return steps, time.perf_counter() - start, time.process_time() - cpu

    return run


def batched_runner(world: str, num_envs: int, seed: int) -> Runner:
    env = batched_env(world, num_envs=num_envs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    plans = rng.integers(len(env.action_names), size=(ACTION_CHUNK, num_envs, len(env.players)))

    def run(seconds: float) -> tuple[int, float, float]:
        steps, start, cpu = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            for k in range(min(ACTION_CHUNK, max(1, 4096 // num_envs))):
                env.step(plans[k])
                steps += num_envs
        return steps, time.perf_counter() - start, time.process_time() - cpu

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", default="cleanup_mp")
    parser.add_argument("--agents", type=int, required=True, help="must equal the world's player count")
    parser.add_argument("--envs", type=int, nargs="+", default=[1], help="batch sizes of the batched form")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per configuration and repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    probe = parallel_env(args.world)
    if len(probe.possible_agents) != args.agents:
        print(f"world {args.world} has {len(probe.possible_agents)} players, not {args.agents}", file=sys.stderr)
        return 2
    runners = {"single": single_runner(args.world, args.seed)}
    runners.update({f"batched_{b}": batched_runner(args.world, b, args.seed) for b in args.envs})
    for run in runners.values():
        run(min(0.2, args.seconds))  # warm caches and allocations
    rates: dict[str, list[float]] = {name: [] for name in runners}
    cpu_rates: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.repeats):
        for name, run in runners.items():
            steps, elapsed, cpu = run(args.seconds)
            rates[name].append(steps / elapsed)
            cpu_rates[name].append(steps / max(cpu, 1e-9))
    result: dict[str, object] = {"world": args.world, "agents": args.agents, "seconds": args.seconds, "repeats": args.repeats}
    for name, runs in rates.items():
        env_rate, cpu_rate = statistics.median(runs), statistics.median(cpu_rates[name])
        result[name] = {
            "env_steps_per_s": round(env_rate, 1), "agent_steps_per_s": round(env_rate * args.agents, 1),
            "env_steps_per_cpu_s": round(cpu_rate, 1), "agent_steps_per_cpu_s": round(cpu_rate * args.agents, 1),
            "runs_env_steps_per_s": [round(r, 1) for r in runs],
        }
    single = statistics.median(rates["single"])
    result["ratio_to_single"] = {name: round(statistics.median(r) / single, 2) for name, r in rates.items() if name != "single"}
    if args.json:
        print(json.dumps(result))
    else:
        for name in runners:
            entry = result[name]
            print(f"{name:>14}: {entry['env_steps_per_s']:>12,.0f} env-steps/s {entry['agent_steps_per_s']:>14,.0f} agent-steps/s")  # type: ignore[index]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
