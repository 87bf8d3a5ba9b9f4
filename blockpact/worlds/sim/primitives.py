"""Voyager's control primitives as macro-actions on the simulator, with Voyager's feedback.

As in Voyager, a soft failure ("No iron_ore nearby, please explore first") is said in chat and the
primitive returns; a misuse (unknown block name, no furnace nearby) raises `PrimitiveError`, which
ends the program with that message. Each primitive takes simulated time: walking by path length,
digging by Minecraft's dig-time rule, the rest by the durations in `defaults.toml`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from blockpact.plain_text import plain_line
from blockpact.worlds.rules import game as rules
from blockpact.worlds.grid import within_reach
from blockpact.worlds.rules.game import fmt
from blockpact.worlds.sim.chest_primitives import ChestPrimitives
from blockpact.worlds.sim.clock import Clock
from blockpact.worlds.sim.craft_primitives import CraftPrimitives
from blockpact.worlds.sim.facing import look_at, turn_seconds, walking_facing
from blockpact.worlds.sim.primitive_error import PrimitiveError
from blockpact.worlds.spec.schema import Vec
from blockpact.worlds.state import WorldState


class SimulationView(Protocol):
    """What the primitives use of the running simulation (simulator.Simulation is one): stated here so that
    this module does not import the simulator, which imports it."""

    state: WorldState
    timing: dict[str, float]
    clock: Clock
    last_changed_by: dict[Vec, str]
    facing: dict[str, tuple[float, float]]
    schedule: list[dict[str, Any]] | None

    def observe_chest(self, agent: str, pos: Vec) -> dict[str, int]: ...

    def send_signal(self, sender: str, task: str) -> None: ...

    def take_signal(self, agent: str, sender: str = "") -> str | None: ...

    def change_group(self, agent: str, action: str, group: str, share: float = 1.0) -> list[str]: ...


class FeedbackCounter(Protocol):
    """Counts the feedback lines a player's primitives say (worlds/sim/feedback.FeedbackCap)."""

    def count(self) -> None: ...


class AgentAPI(CraftPrimitives, ChestPrimitives):
    """What one agent's program may call. Read-only queries are instant; actions take simulated time. The crafting
    and chest primitives are in craft_primitives.py and chest_primitives.py; the rest, and the walking they share, here."""

    def __init__(self, sim: SimulationView, name: str, feedback: FeedbackCounter | None = None) -> None:
        self.sim = sim
        self.name = name
        self.state = sim.state
        self.timing = sim.timing
        self.feedback = feedback  # None: uncapped (scripted callers of the API)

    # -- observation (instant) -------------------------------------------------------------------
    @property
    def position(self) -> Vec:
        return self.state.positions[self.name]

    @property
    def inventory(self) -> dict[str, int]:
        return dict(self.state.inventories[self.name])

    @property
    def held_item(self) -> str | None:
        return self.state.held[self.name]

    @property
    def time(self) -> float:
        return self.sim.clock.now

    def block_at(self, pos: Vec) -> str:
        return self.state.block_at(tuple(pos))  # type: ignore[arg-type]

    def find_blocks(self, name: str, max_distance: float | None = None, count: int = 1) -> list[Vec]:
        radius = self.timing["search_radius"] if max_distance is None else max_distance
        return self.state.find_blocks(name, self.position, radius, count)

    def chest_contents(self, pos: Vec) -> dict[str, int] | None:
        chest = self.state.chests.get(tuple(pos))  # type: ignore[arg-type]
        return None if chest is None else dict(chest)

    # -- helpers -----------------------------------------------------------------------------------
    def _scheduled(self, kind: str, resource: str, target: Vec | None, stand: Vec | None = None, draws: bool = False) -> None:
        """Note a read or change of shared state (a block search, a dig, a chest, a placed block) in the order the
        clock serves it, when a live lockstep episode asked for the schedule (bridge/live/lockstep.py); `stand`: the
        cell this player walks to for it (a live bot walks there too: where it stands decides what it finds next);
        `draws`: a dig whose drop count is the next draw of the episode's one drop stream (its order matters)."""
        if self.sim.schedule is not None:
            self.sim.schedule.append({"player": self.name, "kind": kind, "resource": resource,
                                      "target": None if target is None else list(target), "time": round(self.time, 6),
                                      "stand": None if stand is None else list(stand), "draws": draws})

    async def _say(self, message: str, source: str = "primitive") -> None:
        if source == "primitive" and self.feedback is not None:
            self.feedback.count()
        self.state.emit(self.name, "chat", message=plain_line(message), source=source)  # a name may hold a line break

    def _route(self, goal: Callable[[Vec], bool]) -> list[Vec] | None:
        return self.state.grid.path(self.position, goal, up_cost=self.timing["step_up_seconds"] * self.timing["walk_speed"])

    async def _walk(self, goal: Callable[[Vec], bool]) -> bool:
        route = self._route(goal)
        if route is None:
            return False
        await self._follow(route)
        return True

    async def _follow(self, route: list[Vec]) -> None:
        """Walk a route found by `_route`, taking its simulated time."""
        if len(route) > 1:
            ups = sum(1 for a, b in zip(route, route[1:]) if b[1] > a[1])
            await self.sim.clock.sleep(self.name, (len(route) - 1) / self.timing["walk_speed"] + ups * self.timing["step_up_seconds"])
            self.state.positions[self.name] = route[-1]
            self.sim.facing[self.name] = walking_facing(route[-2], route[-1], self.sim.facing[self.name])
            self.state.emit(self.name, "move", to=list(route[-1]), steps=len(route) - 1)

    async def _turn_to(self, block: Vec) -> None:
        """Face the centre of `block`, taking a live bot's turning time (facing.py): it decides who of two
        bots at one chest or block acts first, on the server as here."""
        target = look_at(self.position, block)
        await self.sim.clock.sleep(self.name, turn_seconds(self.sim.facing[self.name], target, self.timing["turn_speed"]))
        self.sim.facing[self.name] = target

    async def _walk_to_reach(self, target: Vec) -> bool:
        reach = self.timing["reach"]
        return await self._walk(lambda c: within_reach(c, target, reach))

    def _nearest(self, block: str) -> Vec | None:
        found = self.find_blocks(block, count=1)
        return found[0] if found else None

    # -- movement ----------------------------------------------------------------------------------
    async def move_to(self, position: Vec, radius: float = 1.0) -> Vec:
        """Walk to a cell within `radius` of `position` (mineflayer-pathfinder's GoalNear)."""
        target = tuple(int(v) for v in position)
        if not await self._walk(lambda c: sum((a - b) ** 2 for a, b in zip(c, target)) <= radius * radius):
            raise PrimitiveError("No path to the goal!")
        return self.position

    async def explore_until(self, direction: Vec, max_time: float = 60, until: Callable[[AgentAPI], Any] | None = None) -> Any:
        """Walk in `direction` until `until(api)` returns something truthy or `max_time` passes; None then."""
        dx, _, dz = (int(math.copysign(1, v)) if v else 0 for v in direction)
        if dx == 0 and dz == 0:
            raise PrimitiveError("Direction for exploreUntil must have a nonzero x or z component")
        start = self.time
        step = 1 / self.timing["walk_speed"]
        while self.time - start < max_time:
            if until is not None and (found := until(self)):
                return found
            x, y, z = self.position
            options = [c for c, _ in self.state.grid.steps_from(self.position) if (c[0] - x, c[2] - z) in ((dx, dz), (dx, 0), (0, dz))]
            if not options:
                await self._say(f"I cannot explore further towards {fmt((dx, 0, dz))}")
                return None
            await self.sim.clock.sleep(self.name, step)
            self.sim.facing[self.name] = walking_facing(self.position, options[0], self.sim.facing[self.name])
            self.state.positions[self.name] = options[0]
        return until(self) if until is not None else None

    # -- blocks ------------------------------------------------------------------------------------
    async def mine_block(self, name: str, count: int = 1) -> int:
        """Mine up to `count` blocks of `name`, nearest first; drops go to the inventory. Returns how many."""
        if not isinstance(name, str) or not self.state.data.is_block(name):
            raise PrimitiveError(f"No block named {name}")
        if not isinstance(count, int) or count < 1:
            raise PrimitiveError("count for mineBlock must be a positive number")
        present = self.find_blocks(name, count=1)
        self._scheduled("look", f"block:{name}", present[0] if present else None)
        if not present:
            await self._say(f"No {name} nearby, please explore first")
            return 0
        tool = rules.best_tool(self.state, self.name, name)
        if not rules.can_harvest(self.state, name, tool):
            await self._say(f"I cannot mine {name} with {tool or 'my bare hands'}")
            return 0
        mined, lost_to = 0, None
        while mined < count:
            reach = self.timing["reach"]
            routes = ((t, self._route(lambda c, t=t: within_reach(c, t, reach))) for t in self.find_blocks(name, count=1024))
            target, route = next(((t, r) for t, r in routes if r is not None), (None, None))
            self._scheduled("find", f"block:{name}", target, route[-1] if route else None)
            if target is None or route is None:
                break
            await self._follow(route)
            if self.state.block_at(target) != name:
                lost_to = target
                continue
            await self._turn_to(target)
            tool = rules.best_tool(self.state, self.name, name)
            await self.sim.clock.sleep(self.name, rules.dig_seconds(self.state, name, tool))
            if self.state.block_at(target) != name:
                lost_to = target
                continue
            self._scheduled("dig", f"block:{name}", target, draws=name in self.state.spec.drops)
            rules.dig(self.state, self.name, target, tool)
            mined += 1
        if mined < count and lost_to is not None:
            who = self.sim.last_changed_by.get(lost_to)
            by = f" by {who}" if who and who != self.name else ""
            rest = f"no other {name} nearby" if mined == 0 else f"I mined {mined} of {count}"
            await self._say(f"{name} at {fmt(lost_to)} was mined{by} before I got to it; {rest}")
        return mined

    async def place_item(self, name: str, position: Vec) -> bool:
        if not self.state.data.is_item(name):
            raise PrimitiveError(f"No item named {name}")
        pos = tuple(int(v) for v in position)
        if self.state.inventories[self.name].get(name, 0) < 1:
            await self._say(f"No {name} in inventory")
            return False
        reach = self.timing["reach"]
        if not await self._walk(lambda c: within_reach(c, pos, reach) and pos not in (c, (c[0], c[1] + 1, c[2]))):
            await self._say(f"Error placing {name}: no path to {fmt(pos)}, please find another position to place")
            return False
        await self.sim.clock.sleep(self.name, self.timing["place_seconds"])
        try:
            rules.place(self.state, self.name, name, pos)  # type: ignore[arg-type]
        except rules.RuleError as exc:
            await self._say(f"Error placing {name}: {exc}, please find another position to place")
            return False
        self._scheduled("place", f"block:{name}", pos)  # type: ignore[arg-type]
        await self._say(f"Placed {name}")
        return True

    # -- mobs (none in the simulator) --------------------------------------------------------------
    async def kill_mob(self, name: str, timeout: float = 300) -> bool:
        await self._say(f"No {name} nearby, please explore first")
        return False

    # -- communication -----------------------------------------------------------------------------
    async def chat(self, message: str) -> None:
        await self._say(str(message), source="program")
        await self.sim.clock.sleep(self.name, self.timing["chat_seconds"])

    def say(self, message: str) -> None:
        """A program's bot.chat: said at once, without waiting (mineflayer does not wait either)."""
        self.state.emit(self.name, "chat", message=str(message), source="program")

    async def send_signal(self, task: str = "") -> None:
        """Signal every other player (the contracting paper's sendSignal)."""
        self.sim.send_signal(self.name, task)
        await self.sim.clock.sleep(self.name, self.timing["chat_seconds"])

    async def wait(self, seconds: float) -> None:
        """Stand idle for `seconds` of simulated time (mineflayer's bot.waitForTicks), saying nothing."""
        await self.sim.clock.sleep(self.name, seconds)

    async def wait_signal(self, task: str = "", timeout: float = 60, sender: str = "") -> str | None:
        """Wait for a signal from another player (from `sender` only, when given); returns the sender, or None
        after `timeout` seconds. A signal sent before the wait began is delivered (signals are kept until read)."""
        if sender and (sender == self.name or sender not in self.sim.spec.players):
            raise PrimitiveError(f"waitSignal: {sender!r} is not another player of this world "
                                 f"(players: {', '.join(sorted(p for p in self.sim.spec.players if p != self.name))})")
        got = await self.sim.clock.wait_until(self.name, lambda: self.sim.take_signal(self.name, sender), timeout)
        if not got:
            what = task or (f"{sender}'s signal" if sender else "a signal")
            await self._say(f"No signal received within {timeout:g} seconds while waiting for: {what}")
            return None
        self.state.emit(self.name, "signal_received", sender=got, task=task)
        return str(got)


    async def change_group(self, action: str, group: str, share: float = 1.0) -> list[str]:
        """joinGroup, leaveGroup, formGroup: what this player earns from now on is shared with the group's members
        of the time (worlds/membership.py); returns the members after the change. Takes a chat's time."""
        members = self.sim.change_group(self.name, action, group, share)
        await self.sim.clock.sleep(self.name, self.timing["chat_seconds"])
        return members


ProgramFn = Callable[[AgentAPI], Awaitable[Any]]
