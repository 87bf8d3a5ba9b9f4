"""Lockstep live episodes (live.toml [episode] lockstep, `blockpact run --lockstep`): the simulator plays each batch of
programs first, on a twin of the episode's world (same spec and seed), and the bots then take their shared actions in
the order the simulator served them (js/mineflayer/lockstep.js).

Why: two bots racing for the last blocks of a vein, or for one pickaxe in a chest, are decided live by a few hundred
milliseconds of walking, which vary from run to run, and on the simulator by its time model; no time model pins down
a live race. With the simulator's order imposed, a race ends the same way on both backends and from run to run, and
the live episode still happens on the server: its blocks, drops, tools and inventories are the server's. Where the
live bots cannot follow (a bot finds another block first, a dig fails, a program ends early), the order is given up
for the rest of the episode, a `lockstep_diverged` event says where, and the episode goes on unordered.

Limits: bot queries in a program (bot.findBlock, bot.blockAt) are not ordered, only the primitives are; worlds whose
dynamics run on the clock (regrowth, pollution) run on wall time live and simulated time on the twin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from blockpact.bridge.machine_load import stretched
from blockpact.bridge.runtime import BridgeBroken
from blockpact.bridge.sim.world import SimWorld
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.bridge.live.mineflayer_body import MineflayerWorld


class SimulatedTwin:
    """The episode's world on the simulator, fed the same batches of programs as the live one."""

    def __init__(self, spec: WorldSpec, seed: int) -> None:
        self.spec, self.seed = spec, seed
        self.world = SimWorld(spec, seed)

    async def schedule(self, programs: Mapping[str, str], skills: Mapping[str, Sequence[str]], until: float | None,
                       budget: float | None) -> list[dict[str, Any]]:
        """Play the batch on the twin; the shared actions in the order its clock served them."""
        sim = self.world.sim
        sim.schedule = []
        try:
            await self.world.run_programs(programs, skills=skills, until=until, budget=budget)
            return sim.schedule
        finally:
            sim.schedule = None

    async def restart(self) -> None:
        """The live episode starts over (on_disconnect = "retry"): so does the twin."""
        await self.world.close()
        self.world = SimWorld(self.spec, self.seed)

    async def close(self) -> None:
        await self.world.close()


class EpisodeLockstep:
    """One live episode's lockstep: its twin, and whether the order was given up (then later batches play unordered:
    the twin's world is no longer the live one)."""

    MARK = {"lockstep": "simulator"}  # in the episode's episode_start

    def __init__(self, spec: WorldSpec, seed: int, stall_seconds: float) -> None:
        self.twin = SimulatedTwin(spec, seed)
        self.stall_seconds = stall_seconds
        self.unordered = False

    async def plan(self, programs: Mapping[str, str], skills: Mapping[str, Sequence[str]], until: float | None,
                   budget: float | None) -> list[dict[str, Any]] | None:
        """The batch's order, or None once the order was given up."""
        return None if self.unordered else await self.twin.schedule(programs, skills, until, budget)

    def start(self, bots: MineflayerWorld, schedule: list[dict[str, Any]]) -> None:
        bots.start_lockstep(schedule, stretched(self.stall_seconds))  # a busy machine: longer waits

    def end(self, bots: MineflayerWorld) -> dict[str, Any] | None:
        """The batch's account ({diverged, done, scheduled, cut}); None if the runtime cannot say (the episode fails)."""
        try:
            status = bots.end_lockstep() if bots.watchdog.answering else None
        except BridgeBroken:
            return None
        if status is not None and status["diverged"]:
            self.unordered = True
        return status

    async def restart(self) -> None:
        await self.twin.restart()
        self.unordered = False

    async def close(self) -> None:
        await self.twin.close()
