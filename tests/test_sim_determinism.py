"""A simulated episode's record does not depend on how fast Node and Python answer each other (issue 19):
the same seed run plainly and with the bridge slowed on purpose (the hooks below stand in for a loaded
machine) gives the same world events and program results."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.bridge.sim import SimWorld
from blockpact.bridge.sim.body import SimBody
from blockpact.worlds.world_files import load_world

PARITY_WORLD = Path(__file__).parent / "worlds" / "bridge_parity.toml"

# Loops until the episode's end cancels it; a failed answer reaching it would be logged and rethrown.
WAIT_LOOP = """async function main(bot) {
  for (;;) {
    try {
      await bot.waitForTicks(20);
    } catch (err) {
      log(`caught: ${err.message}`);
      throw err;
    }
  }
}
"""
# Reads the bot synchronously (each read a query Python answers) between short waits.
QUERY_LOOP = """async function main(bot) {
  let reads = 0;
  for (let i = 0; i < 40; i++) {
    if (bot.entity.position.y === 64) reads += 1;
    if (i % 10 === 9) await bot.waitForTicks(10);
  }
  return reads;
}
"""


@pytest.fixture(scope="module")
def parity_spec():
    return load_world(PARITY_WORLD)


def _record(spec, programs: dict[str, str], *, until: float | None = None, compute_budget: float | None = None):
    """(world events, program results) of one run of `programs` from seed 0."""
    world = SimWorld(spec, seed=0, compute_budget=compute_budget)

    async def play():
        try:
            return await world.run_programs(programs, until=until)
        finally:
            await world.close()

    results = asyncio.run(play())
    events = [(e.time, e.agent, e.kind, e.data) for e in world.events]
    return events, {p: r.to_json() for p, r in results.items()}


@pytest.fixture
def slow_bridge(monkeypatch) -> Iterator[None]:
    """Every primitive's answer is followed by a pause in which Node could deliver it before anything
    Python sends next, and Gizmo's end reaches Python 0.3 s after it happened in Node."""
    settle, on_done = SimBody._settle, SimBody._on_done

    def slow_settle(self, call_id, ok, payload, cost=0.0):
        settle(self, call_id, ok, payload, cost)
        time.sleep(0.05)

    def late_done(self, run_id, result_json):
        if self.player == "Gizmo":
            asyncio.get_running_loop().call_later(0.3, on_done, self, run_id, result_json)
        else:
            on_done(self, run_id, result_json)

    monkeypatch.setattr(SimBody, "_settle", slow_settle)
    monkeypatch.setattr(SimBody, "_on_done", late_done)
    yield


@pytest.fixture
def slow_queries(monkeypatch) -> Iterator[None]:
    """Python answers each bot query 20 ms late (its loop thread sleeps, as on a loaded machine)."""
    answer_query = SimBody._answer_query

    async def slow_query(self, name, args_json):
        time.sleep(0.02)
        return await answer_query(self, name, args_json)

    monkeypatch.setattr(SimBody, "_answer_query", slow_query)
    yield


@pytest.fixture(scope="module")
def plain_end(parity_spec):
    return _record(parity_spec, {"Gizmo": WAIT_LOOP, "Glitch": WAIT_LOOP}, until=3)


def test_the_episode_end_stops_programs_before_they_see_a_failed_answer(plain_end) -> None:
    events, results = plain_end
    ends = [(agent, data["error"]) for _, agent, kind, data in events if kind == "program_end"]
    assert ends == [(p, "stopped: the episode ended at 3 s of simulated time") for p in ("Gizmo", "Glitch")]
    for result in results.values():
        assert result["failure"] == "cancelled" and result["timed_out"]
        assert result["stack"] is None and result["logs"] == []  # the cancel won: nothing was caught


def test_the_episode_end_is_recorded_alike_when_the_bridge_is_slow(parity_spec, plain_end, slow_bridge) -> None:
    assert _record(parity_spec, {"Gizmo": WAIT_LOOP, "Glitch": WAIT_LOOP}, until=3) == plain_end


@pytest.fixture(scope="module")
def plain_queries(parity_spec):
    return _record(parity_spec, {"Gizmo": QUERY_LOOP, "Glitch": QUERY_LOOP}, compute_budget=0.5)


def test_slow_query_answers_do_not_use_up_the_compute_budget(parity_spec, plain_queries, slow_queries) -> None:
    """40 queries answered 20 ms late are 0.8 s of waiting, over the 0.5 s compute budget: the program's own
    computing is far less, so it ends as it does on an idle machine."""
    assert all(r["success"] and r["failure"] is None for r in plain_queries[1].values()), plain_queries[1]
    started = time.monotonic()
    slowed = _record(parity_spec, {"Gizmo": QUERY_LOOP, "Glitch": QUERY_LOOP}, compute_budget=0.5)
    assert slowed == plain_queries
    assert time.monotonic() - started > 0.8, "the queries must outlast the budget in real time to test anything"
