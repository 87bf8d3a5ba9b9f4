"""Wall time of asynchronous vs round-based vs relay collaboration, with LLM latency dominating.

    .venv/bin/python bench/collaboration.py --latency 0.2 --amount 30 --weights 1 2 3 --slow-attempts 3

A tree of 1 leader + 3 LLM workers collects oak logs on the simulator. Every LLM call goes over
HTTP to the local OpenAI stub, which answers as `blockpact.agents.testing.hourglass_responder` does and
sleeps `--latency` seconds first. Tasks are uneven twice over: the leader's planner hands out the
logs in proportion to `--weights`, and worker i's k-th action needs `--slow-attempts` tries when
i + k is odd, else one (the stub's early tries mine a block that is not there, so the Voyager
loop retries): who is slow changes from action to action, as it does with real models. The critical-path
lower bound is the longest chain of LLM calls one after another (the leader's two planning calls,
then the busiest worker's calls), times the latency; simulated time costs no wall time here.
Each (think, mode) is a one-seed run through the OrgRunner (experiments/play/org/run.py), as `blockpact org run
--agents llm` plays it, into a temporary run directory; the wall time is the episode's own (its `org_end`).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from blockpact.agents.hourglass.latency import LatencyModel
from blockpact.agents.testing.hourglass_responder import hourglass_reply
from blockpact.llm.settings import load_llm_settings
from blockpact.agents.org.jobs import Job, split
from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import load_task
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.experiments import OrgOptions, OrgPlan, OrgRunner, conditions_of

CHUNK = 5  # blocks per todo item, as the stub's action planner writes them
_PLAYER = re.compile(r"^You play as ([A-Za-z0-9_]+)\.$", re.MULTILINE)
_TASK = re.compile(r"^Task: (.+)$", re.MULTILINE)


class UnevenStub:
    """The stub's replies with the bench's unevenness and a fixed latency per call."""

    def __init__(self, latency: float, weights: list[int], slow_attempts: int) -> None:
        self.latency = latency
        self.weights = weights
        self.slow_attempts = slow_attempts
        self.actions: Counter[str] = Counter()  # actions begun, per player
        self.tries: Counter[str] = Counter()  # tries of the current action, per player
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> StubReply:
        messages = request["messages"]
        system = messages[0]["content"]
        reply = hourglass_reply(request, chunk=CHUNK)
        if system.startswith("You are the task planner"):
            plan = json.loads(reply)
            members = [a["agent"] for a in plan["assignments"]]
            jobs = [Job.parse(a["task"], "x") for a in plan["assignments"]]
            if jobs and all(j is not None and j.verb == "collect" for j in jobs):
                whole = Job("logs", "collect", jobs[0].item, sum(j.count for j in jobs))  # type: ignore[union-attr]
                parts = split(whole, self.weights[: len(members)], ["x"] * len(members))
                plan["assignments"] = [{"agent": m, "task": p.text()} for m, p in zip(members, parts) if p]
            reply = json.dumps(plan)
        elif (player := _PLAYER.search(system)) is not None:
            name = player.group(1)
            with self.lock:
                if "No code in the first round." in messages[-1]["content"]:
                    self.actions[name] += 1
                    self.tries[name] = 0
                self.tries[name] += 1
                needed = attempts_needed(int(name[1:]) if name[1:].isdigit() else 0, self.actions[name], self.slow_attempts)
                tried = self.tries[name]
            if tried < needed:
                reply = ("Explain: try here.\nPlan:\n1) Mine.\nCode:\n```javascript\n"
                         "async function tryMine(bot) {\n  await mineBlock(bot, 'no_such_block', 1);\n}\n```")
        return StubReply(content=reply, delay_s=self.latency)


def attempts_needed(worker: int, action: int, slow_attempts: int) -> int:
    return slow_attempts if (worker + action) % 2 else 1


def critical_path(amount: int, weights: list[int], slow_attempts: int) -> tuple[int, list[int]]:
    """LLM calls one after another: leader (task + action planner), then per worker: action planner,
    and per todo item its attempts (the failed ones need no critic), a critic call and a monitor call."""
    job = Job("logs", "collect", "oak_log", amount)
    shares = [p.count if p else 0 for p in split(job, weights, ["x"] * len(weights))]
    chains = [1 + sum(attempts_needed(i + 1, k, slow_attempts) + 2 for k in range(1, math.ceil(n / CHUNK) + 1)) if n else 0
              for i, n in enumerate(shares)]
    return 2 + max(chains), chains


def one_run(mode: str, stub: OpenAIStub, amount: int, think: float, out: Path) -> dict[str, Any]:
    settings = load_llm_settings(None, base_url=stub.base_url, model="stub-model", no_cache=True)
    plan = OrgPlan(load_task("collect-logs", amount), conditions_of([("tree", organization("tree", 3))], [mode]),
                   llm=settings, latency=LatencyModel.fixed(think))
    outcome = OrgRunner.create(plan, out, OrgOptions(plots=False)).run()
    run, = outcome.metrics["conditions"][f"tree-{mode}"]["runs"]
    if run["status"] != "completed":
        raise SystemExit(f"{mode}, think {think:g}: the seed did not complete: {run.get('error')}")
    return {"mode": mode, "think_s": think, "wall_s": round(run["wall_seconds"], 2), "success": run["success"],
            "llm_calls": run["llm"]["calls"], "time_cost_min": run["time_cost_min"],
            "mean_prompt_times": run["mean_prompt_times"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the stub sleeps per call")
    parser.add_argument("--amount", type=int, default=30, help="logs to collect")
    parser.add_argument("--weights", type=int, nargs=3, default=[1, 2, 3], help="how the leader shares the logs")
    parser.add_argument("--slow-attempts", type=int, default=3, help="tries a slow action needs")
    parser.add_argument("--modes", nargs="+", default=["async", "rounds", "relay"])
    parser.add_argument("--think", type=float, nargs="+", default=[0.0, 2.0, 30.0],
                        help="simulated seconds every LLM call takes (a fixed latency model instead of hourglass.toml [latency])")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bound_calls, chains = critical_path(args.amount, args.weights, args.slow_attempts)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-collaboration-") as tmp:
        for think in args.think:
            for mode in args.modes:
                responder = UnevenStub(args.latency, args.weights, args.slow_attempts)
                with OpenAIStub(responder=responder) as stub:
                    rows.append(one_run(mode, stub, args.amount, think, Path(tmp) / f"{mode}-{think:g}"))
    bound = bound_calls * args.latency
    if args.json:
        print(json.dumps({"latency_s": args.latency, "critical_path_calls": bound_calls, "worker_chains": chains,
                          "lower_bound_s": round(bound, 2), "runs": rows}, indent=2))
        return
    print(f"latency {args.latency:g} s/call; worker call chains {chains}; critical path {bound_calls} calls = {bound:.2f} s")
    print("| think (sim s/call) | mode | wall time | / lower bound | LLM calls | success | time cost (sim min) |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        cost = "NaN" if row["time_cost_min"] is None else f"{row['time_cost_min']:.2f}"
        print(f"| {row['think_s']:g} | {row['mode']} | {row['wall_s']:.2f} s | {row['wall_s'] / bound:.2f} | {row['llm_calls']} | {row['success']} | {cost} |")


if __name__ == "__main__":
    main()
