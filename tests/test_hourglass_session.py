"""SimWorld's session API: independent agent controllers on one simulated clock."""

from __future__ import annotations

import asyncio

import pytest

from blockpact.agents.pool import InProcessPool
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.sim.clock import EpisodeOver
from blockpact.worlds.world_files import load_world

MINE_TWO = "async function two(bot) { await mineBlock(bot, 'oak_log', 2); }"


@pytest.fixture(scope="module")
def forest():
    return load_world("forest")


def test_controllers_run_programs_wait_for_messages_and_share_one_clock(forest) -> None:
    async def main():
        world = SimWorld(forest, seed=0)
        pool = InProcessPool(clock=lambda: world.now)
        pool.listeners.append(lambda m: world.wake(list(m.recipients)))
        async with pool:
            inbox = pool.subscribe("W1")

            async def leader(session):
                result = await session.run(MINE_TWO)  # takes simulated time; W1 waits meanwhile
                await pool.publish("Leader", "W1", "command", "collect 2 oak_log")
                return result.duration, session.now

            async def worker(session):
                first = await session.wait_message(inbox, timeout=600)
                arrived = session.now
                nothing = await session.wait_message(inbox, timeout=5)  # time passes while nobody talks
                return first.body, arrived, nothing, session.now

            try:
                return await world.run_agents({"Leader": leader, "W1": worker}), world
            finally:
                await world.close()

    outcomes, world = asyncio.run(main())
    duration, sent_at = outcomes["Leader"].value
    body, arrived, nothing, end = outcomes["W1"].value
    assert outcomes["Leader"].success and outcomes["W1"].success
    assert duration > 0 and arrived == pytest.approx(sent_at)  # woken by the message, at the sender's time
    assert body == "collect 2 oak_log" and nothing is None and end == pytest.approx(arrived + 5)
    assert world.state.inventories["Leader"]["oak_log"] == 2


def test_stop_cancels_running_programs_and_ends_every_controller(forest) -> None:
    async def main():
        world = SimWorld(forest, seed=0)

        async def miner(session):
            results = []
            try:
                for _ in range(10):
                    results.append(await session.run(MINE_TWO))
            except EpisodeOver:
                return ("ended", len(results))
            return ("finished", len(results))

        async def stopper(session):
            await session.sleep(10)
            world.stop("enough")
            await session.sleep(1)  # raises: the world is stopped

        try:
            return await world.run_agents({"W1": miner, "W2": stopper}), world
        finally:
            await world.close()

    outcomes, world = asyncio.run(main())
    assert outcomes["W1"].value[0] == "ended" and outcomes["W1"].value[1] < 10
    assert not outcomes["W2"].success and world.stopped == "enough"
    assert world.now == 10  # the stop takes effect at once: no primitive runs on in simulated time
