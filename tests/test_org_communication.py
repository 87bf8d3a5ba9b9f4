"""Structures shape who talks to whom and what it costs: every LLM call (modelled for scripted
agents) and every message takes simulated time from the latency model and is recorded; a chain
works link after link and passes reports hop by hop; in a graph everyone reads every message; in a
tree workers report to the leader only. Same seed, same trajectory; seeds differ through the
model's jitter."""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from blockpact.agents.hourglass.latency import LatencyModel, Thinker
from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import load_task
from blockpact.experiments.play.org.episode import run_episode

STEADY = LatencyModel(1.0, 1000.0, 20.0, 0.0, 0.5, 4.0, "test")


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def emit(self, kind, data, coords=None):
        self.events.append((kind, data))

    def of(self, kind: str) -> list[dict]:
        return [d for k, d in self.events if k == kind]


def episode(structure: str, amount: int = 12, mode: str = "async", seed: int = 0, latency: LatencyModel | None = STEADY,
            workers: int = 3, task: str = "collect-logs"):
    recorder = Recorder()
    result = asyncio.run(run_episode(load_task(task, amount if task != "shelter" else None), organization(structure, workers),
                                     mode, seed, writer=recorder, latency=latency))
    return result, recorder


def test_the_latency_model_formula_and_its_seeded_jitter() -> None:
    assert STEADY.prompt_seconds(500) + STEADY.completion_seconds(100) == pytest.approx(1.0 + 0.5 + 5.0)
    jittery = LatencyModel(1.0, 1000.0, 20.0, 0.3, 0.0, 4.0, "test")
    factors = [jittery.factor(random.Random(i)) for i in range(4000)]
    assert sum(factors) / len(factors) == pytest.approx(1.0, abs=0.03) and min(factors) > 0  # mean 1, positive
    assert jittery.factor(random.Random("0:W1")) == jittery.factor(random.Random("0:W1"))
    assert math.isinf(LatencyModel.fixed(2.0).prompt_tokens_per_second) and LatencyModel.fixed(2.0).prompt_seconds(10 ** 6) == 2.0
    with pytest.raises(Exception, match="rates > 0"):
        LatencyModel(1.0, 0.0, 20.0, 0.0, 0.0, 4.0, "bad")


def test_a_thinker_records_what_it_spends() -> None:
    seen = []
    thinker = Thinker(STEADY, "W1", 0, lambda kind, data: seen.append((kind, data)))
    asyncio.run(thinker.call("task_planner", 4000, 400))  # 1000 prompt tokens, 100 completion tokens
    asyncio.run(thinker.message("report", "Leader"))
    assert thinker.spent == pytest.approx(1.0 + 1.0 + 5.0)
    assert seen[0] == ("latency", {"agent": "W1", "stage": "task_planner", "seconds": 7.0, "time": 0.0,
                                   "prompt_tokens": 1000, "completion_tokens": 100, "modelled": True})
    assert seen[1][1]["stage"] == "message" and seen[1][1]["seconds"] == 0.5


def test_every_call_and_message_takes_simulated_time_and_is_recorded() -> None:
    slow, recorder = episode("toa", latency=STEADY)
    fast, _ = episode("toa", latency=LatencyModel.fixed(0.0))
    calls = [d for d in recorder.of("latency") if d["stage"] != "message"]
    sent = [d for d in recorder.of("latency") if d["stage"] == "message"]
    assert len(calls) == sum(slow.prompt_times.values())  # one latency event per LLM call (prompt time)
    assert all(d["prompt_tokens"] > 100 and d["completion_tokens"] > 0 and d["seconds"] > 1.0 for d in calls)
    assert len(sent) == slow.messages and all(d["seconds"] == 0.5 for d in sent)
    assert sum(slow.think_seconds.values()) == pytest.approx(sum(d["seconds"] for d in calls), abs=0.01)
    assert slow.time_cost_min > fast.time_cost_min  # thinking is on the clock, not free


def test_a_tree_leader_delegates_and_workers_report_to_it_only() -> None:
    result, recorder = episode("toa")
    assert result.success
    for m in recorder.of("message"):
        if m["kind"] == "command":
            assert m["sender"] == "Leader"
        elif m["kind"] == "report":
            assert m["recipients"] == ["Leader"]
    heard = {d["agent"]: d for d in recorder.of("hourglass") if d["stage"] == "perception" and d["messages"]}
    assert all(all(line.startswith("Leader:") for line in heard[w]["messages"]) for w in ("W1", "W2", "W3") if w in heard)


def test_a_chain_works_link_after_link_and_reports_hop_by_hop() -> None:
    result, recorder = episode("coa", amount=15)
    assert result.success
    commands = [m for m in recorder.of("message") if m["kind"] == "command"]
    assert [(m["sender"], m["recipients"][0], m["body"]["job"]["count"]) for m in commands] == \
        [("Leader", "W1", 15), ("W1", "W2", 10), ("W2", "W3", 5)]
    digs = [(d["time"], d["agent"]) for d in recorder.of("world") if d["kind"] == "inventory" and d["data"]["item"] == "oak_log"]
    last_dig = {a: max(t for t, who in digs if who == a) for a in ("W1", "W2")}
    first_dig = {a: min(t for t, who in digs if who == a) for a in ("W2", "W3")}
    assert first_dig["W2"] > last_dig["W1"] and first_dig["W3"] > last_dig["W2"]  # no parallelism
    for m in recorder.of("message"):
        if m["kind"] == "report":  # every report goes one hop up
            assert m["recipients"] == [{"W1": "Leader", "W2": "W1", "W3": "W2"}[m["sender"]]]
    solo, _ = episode("solo", amount=15)
    assert result.time_cost_min > solo.time_cost_min  # one worker at a time, plus every hop's calls


def test_in_a_graph_everyone_reads_everything_and_calls_multiply() -> None:
    graph, recorder = episode("goa")
    tree, _ = episode("toa")
    assert graph.success and tree.success
    overheard = [line for d in recorder.of("hourglass") if d["stage"] == "perception" and d["agent"].startswith("W")
                 for line in d["messages"] if line.split(":")[0] not in ("Leader", d["agent"])]
    assert overheard  # a worker read what another worker said to the leader
    assert sum(graph.prompt_times.values()) > sum(tree.prompt_times.values())
    prompts = {s: max(d["prompt_tokens"] for d in r.of("latency") if d["agent"] == "W3" and d["stage"] == "task_planner")
               for s, r in (("goa", recorder), ("toa", episode("toa")[1]))}
    assert prompts["goa"] > prompts["toa"]  # the context grows with everything read
    assert sum(graph.think_seconds.values()) > sum(tree.think_seconds.values())
    # Whether that makes the graph slower to finish is a measurement over seeds (BENCHMARKS.md), not a unit property.


def test_a_seed_is_one_trajectory_and_seeds_differ_by_the_models_jitter() -> None:
    jittery = LatencyModel(1.0, 1000.0, 20.0, 0.3, 0.5, 4.0, "test")
    a, _ = episode("toa", seed=3, latency=jittery)
    b, _ = episode("toa", seed=3, latency=jittery)
    c, _ = episode("toa", seed=4, latency=jittery)
    assert a.time_cost_min == b.time_cost_min and a.think_seconds == b.think_seconds
    assert c.think_seconds != a.think_seconds


def test_an_overhearing_subscription_reads_messages_for_others() -> None:
    from blockpact.agents.pool import InProcessPool

    async def scenario() -> tuple[int, int]:
        async with InProcessPool() as pool:
            plain = pool.subscribe("W2")
            overhearing = pool.subscribe("W3", overhear=True)
            await pool.publish("Leader", "W1", "command", {"text": "collect 3 oak_log"})
            await pool.publish("W3", "Leader", "report", {"text": "mine"})  # its own message is not read back
            return plain.pending(), overhearing.pending()

    assert asyncio.run(scenario()) == (0, 1)


def test_latency_settings_and_scales() -> None:
    from blockpact.errors import UserError

    slow = STEADY.scaled(5)
    assert slow.prompt_seconds(1000) + slow.completion_seconds(100) == pytest.approx(5 * (1.0 + 1.0 + 5.0))
    assert slow.message_seconds == STEADY.message_seconds and "x5" in slow.source
    assert STEADY.scaled(0).prompt_seconds(10 ** 6) == 0 and STEADY.scaled(0).message_seconds == 0.5
    with pytest.raises(UserError, match="0 or more"):
        STEADY.scaled(-1)
