"""`blockpact agent`: one hourglass agent in its own process.

What is shared: the message pool, through the broker (commands, reports, stop). What is not: the
world. Each process simulates its own copy of the task world (same task, same seed) and only its
own body acts in it; a worker's simulated clock is its own, and the leader learns what workers
hold only from their reports. Waiting for messages is in wall time (simulated time stands still),
since the messages come from other processes.

With `--server HOST:PORT` the world is shared instead: the agent's body is its own mineflayer bot
on that server (whose world is built already), and time is wall time.
"""

from __future__ import annotations

import asyncio
import time

from blockpact.agents.hourglass.factory import make_agent
from blockpact.agents.hourglass.latency import LatencyModel
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.org.roles import roles
from blockpact.agents.org.structures import tree_of_agents
from blockpact.agents.org.tasks import Task
from blockpact.agents.pool import open_pool
from blockpact.bridge.sim import SimWorld
from blockpact.worlds.sim.clock import EpisodeOver


async def _run(task: Task, role_name: str, name: str, url: str, leader: str, workers: list[str], mode: str,
               seed: int, idle_timeout: float, latency: LatencyModel) -> str:
    org = tree_of_agents(name, workers) if role_name == "leader" else tree_of_agents(leader, [name])
    role = roles(org)[name]
    working = [a for a in org.agents if roles(org)[a].works]
    world = SimWorld(task.world_for(org.agents, working), seed=seed)
    pool = open_pool(url, node=name, clock=lambda: world.now)
    last_message = time.monotonic()

    def heard(_message: object) -> None:
        nonlocal last_message
        last_message = time.monotonic()

    pool.listeners.append(heard)

    async def watchdog() -> None:
        while world.stopped is None:
            await asyncio.sleep(min(1.0, idle_timeout))
            if time.monotonic() - last_message > idle_timeout:
                world.stop(f"no message for {idle_timeout:g} s")

    try:
        async with pool:
            agent = make_agent(role, org, mode, pool, world.spec, task.start_inventories(working), remote=True,
                               latency=latency, seed=seed)
            if role.commander is None:
                agent.mind.set_objective(task.description, task.stages(), None, None)
            agent.catch_up(pool.history(for_agent=name))
            guard = asyncio.create_task(watchdog())
            try:
                outcomes = await world.run_agents({name: agent.run})
            finally:
                guard.cancel()
            await pool.flush(10)
    finally:
        await world.close()
    outcome = outcomes[name]
    ended = "objective met" if agent.mind.finished else ("stopped by " + ("a stop message" if agent.mind.stopped else str(world.stopped)))
    inventory = world.body(name).observe()["inventory"]
    return (f"{name} ({role_name}, scripted): {ended}; simulated {world.now / 60:.2f} min; "
            f"prompts {agent.prompts}; inventory {inventory}; controller {'ok' if outcome.success else outcome.error}")


async def _run_on_server(task: Task, role_name: str, name: str, url: str, leader: str, workers: list[str], mode: str,
                         seed: int, idle_timeout: float, server: str, latency: LatencyModel) -> str:
    """The agent's own bot on a shared live server (its world built there already, e.g. by
    `blockpact server --world forest`); only the pool goes through the broker."""
    from blockpact.bridge.live.agents import BotSession
    from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
    from blockpact.experiments.plan.live_options import server_address

    org = tree_of_agents(name, workers) if role_name == "leader" else tree_of_agents(leader, [name])
    role = roles(org)[name]
    working = [a for a in org.agents if roles(org)[a].works]
    spec = task.world_for(org.agents, working)
    host, port = server_address(server)
    async with MineflayerWorld(ServerAddress(host, port)) as bots:
        session = BotSession(await bots.connect(name), name)
        pool = open_pool(url, node=name, clock=lambda: session.now)
        last_message = time.monotonic()

        def heard(_message: object) -> None:
            nonlocal last_message
            last_message = time.monotonic()

        pool.listeners.append(heard)

        async def watchdog() -> None:
            while session.stopped is None:
                await asyncio.sleep(min(1.0, idle_timeout))
                if time.monotonic() - last_message > idle_timeout:
                    session.stop(f"no message for {idle_timeout:g} s")

        async with pool:
            agent = make_agent(role, org, mode, pool, spec, task.start_inventories(working), remote=True,
                               latency=latency, seed=seed)
            if role.commander is None:
                agent.mind.set_objective(task.description, task.stages(), None, None)
            agent.catch_up(pool.history(for_agent=name))
            guard = asyncio.create_task(watchdog())
            error = None
            try:
                await agent.run(session)
            except EpisodeOver:
                error = session.stopped
            finally:
                guard.cancel()
            await pool.flush(10)
        inventory = session.observe()["inventory"]
    ended = "objective met" if agent.mind.finished else ("stopped by " + ("a stop message" if agent.mind.stopped else str(error)))
    return (f"{name} ({role_name}, scripted, bot on {server}): {ended}; {session.now / 60:.2f} wall min; "
            f"prompts {agent.prompts}; inventory {inventory}")


def run_remote_agent(task: Task, role: str, name: str, url: str, *, leader: str, workers: list[str], mode: str,
                     seed: int, idle_timeout: float, server: str | None = None, latency_scale: float = 1.0) -> str:
    latency = hourglass_settings().latency.scaled(latency_scale)
    if server is not None:
        return asyncio.run(_run_on_server(task, role, name, url, leader, workers, mode, seed, idle_timeout, server, latency))
    return asyncio.run(_run(task, role, name, url, leader, workers, mode, seed, idle_timeout, latency))
