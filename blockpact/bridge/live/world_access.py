"""How the world master reaches a live server: `EmbeddedAccess` through the embedded server's control channel
and its blockpact plugin (journal, chests, drops), `WitnessedAccess` as players only (vanilla, Paper, Fabric):
an operator bot's commands build the world and apply the dynamics, and the bots' observations are the record.

Both give the world master the same few operations, so it plays a live episode the same way on either.
What a server without the plugin cannot give is named in `PluginMissing` errors.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
from blockpact.bridge.live.operator_target import OperatorBotTarget
from blockpact.worlds.spec.drop_tables import default_drops
from blockpact.bridge.live.world_compiler import (
    AIR_BLOCKS,
    NOT_PERMITTED_ANSWERS,
    Command,
    CompiledWorld,
    ControlChannelTarget,
    SetDrops,
    WorldTarget,
    apply,
    map_box,
    plain,
    read_back,
    run_command,
    tally,
    world_differences,
)
from blockpact.errors import UserError
from blockpact.worlds.spec.schema import Vec, WorldSpec

BUILD_POLL_SECONDS = 0.25
TICKS_PER_SECOND = 20  # a server's ticks in a second of its clock (a busy server takes longer than a second for them)
# Answers to an operator-only command by which servers say the bot is not an operator (vanilla hides the command).
NOT_OPERATOR_ANSWERS = (*NOT_PERMITTED_ANSWERS, "unknown or incomplete command")


class PluginMissing(UserError):
    """A part of a world or episode needs blockpact's server plugin, which an external server lacks."""


class WorldAccess(Protocol):
    address: ServerAddress
    target: WorldTarget  # where world and player operations go
    plugin: bool  # the server runs blockpact's plugin (it applies a world's harvest rules)

    async def prepare(self, bots: MineflayerWorld) -> None: ...
    async def build(self, spec: WorldSpec, compiled: CompiledWorld) -> list[str]: ...
    def drain(self) -> tuple[list[dict[str, Any]], int]: ...
    def read_blocks(self, lo: Vec, hi: Vec) -> list[str]: ...
    def positions(self) -> dict[str, list[float]]: ...
    def change_blocks(self, command: str, positions: Sequence[Vec], cause: str) -> None: ...
    def inventory(self, player: str) -> dict[str, int] | None: ...
    def chest(self, pos: Vec) -> dict[str, int] | None: ...
    def server_seconds(self, reset: bool = False) -> float | None: ...


class EmbeddedAccess:
    """The embedded server: control requests, and the plugin's journal of everything that happens."""

    plugin = True

    def __init__(self, server: EmbeddedServer) -> None:
        self.server = server
        self.target: WorldTarget = ControlChannelTarget(server)

    @property
    def address(self) -> ServerAddress:
        return ServerAddress(port=int(self.server.port or 0), version=self.server.version)

    async def prepare(self, bots: MineflayerWorld) -> None:
        return None

    async def build(self, spec: WorldSpec, compiled: CompiledWorld) -> list[str]:
        self.server.fit_view(*map_box(spec))  # before the bots join
        await apply(compiled.world, self.target)
        return read_back(self.server, spec)

    def drain(self) -> tuple[list[dict[str, Any]], int]:
        drained = self.server.request("drainEvents")
        return list(drained["entries"]), int(drained.get("dropped") or 0)

    def read_blocks(self, lo: Vec, hi: Vec) -> list[str]:
        answer = self.server.request("readBlocks", **{"from": list(lo), "to": list(hi)})
        return [answer["palette"][i] for i in answer["cells"]]

    def positions(self) -> dict[str, list[float]]:
        return {p["username"]: p["position"] for p in self.server.request("players")}

    def change_blocks(self, command: str, positions: Sequence[Vec], cause: str) -> None:
        self.server.request("command", command=command, cause=cause)

    def inventory(self, player: str) -> dict[str, int] | None:
        return tally([s for s in self.server.request("inventory", player=player) if s["slot"] >= 5])

    def chest(self, pos: Vec) -> dict[str, int] | None:
        return tally(self.server.request("getChest", pos=list(pos)))

    def server_seconds(self, reset: bool = False) -> float | None:
        """The server's clock: its ticks since the last reset (the world's age its players see, bot.time.age) / 20."""
        return int(self.server.request("worldAge", reset=reset)["ticks"]) / TICKS_PER_SECOND


class WitnessedAccess:
    """A server reached as players only: the operator bot (an operator there) runs commands and watches the
    world's blocks and chat from above it; every player bot reports its inventory and the chests it opens."""

    plugin = False

    def __init__(self, address: ServerAddress, operator: str | None = None) -> None:
        settings = live_settings().external
        self.address = address
        self.operator = operator or settings.operator
        self.build_timeout = settings.build_timeout
        self.watch_height = settings.watch_height
        self._bots: MineflayerWorld | None = None
        self._target: OperatorBotTarget | None = None

    @property
    def target(self) -> WorldTarget:
        if self._target is None:
            raise UserError("the operator bot has not joined yet")
        return self._target

    @property
    def bots(self) -> MineflayerWorld:
        if self._bots is None:
            raise UserError("the operator bot has not joined yet")
        return self._bots

    async def prepare(self, bots: MineflayerWorld) -> None:
        """Log the operator in and check that it may run commands."""
        self._bots = bots
        await bots.connect(self.operator, operator=True)
        self._target = OperatorBotTarget(bots, self.operator, self.address.version)
        answer = plain(await bots.command(self.operator, "gamerule keepInventory")).lower()
        if answer.startswith(NOT_OPERATOR_ANSWERS):
            raise PluginMissing(f"the operator bot {self.operator} is not an operator on {self.address.host}:{self.address.port} "
                                f"(it answered {answer!r}): run /op {self.operator} on the server's console")
        bots.witness(self.operator)

    async def build(self, spec: WorldSpec, compiled: CompiledWorld) -> list[str]:
        """Commands for blocks, chests and game rules; then the operator watches from above the world until it
        sees the blocks the spec says (chests are not read back: a player sees a chest's contents only by
        opening it)."""
        # drops.json holds what vanilla does where minecraft-data has no table (a mushroom block's 0-2
        # mushrooms): a vanilla server already does that; only a world's own tables need the plugin.
        defaults = default_drops()
        vanilla = [op for op in compiled.world if isinstance(op, SetDrops) and spec.drops.get(op.block) == defaults.get(op.block)]
        drops = sorted({op.block for op in compiled.world if isinstance(op, SetDrops) and op not in vanilla})
        if drops:
            raise PluginMissing(f"world {spec.name} changes what {', '.join(drops)} drop(s): that needs the embedded "
                                "server's plugin (a vanilla server would need a data pack with loot tables); "
                                "leave out --server to use the embedded server")
        await apply([op for op in compiled.world if op not in vanilla], self.target)
        lo, hi = map_box(spec)
        centre = [(lo[0] + hi[0]) // 2, hi[1] + self.watch_height, (lo[2] + hi[2]) // 2]
        for text, purpose in ((f"gamemode spectator {self.operator}", "keep the operator bot out of the players' way"),
                              (f"tp {self.operator} {centre[0]} {centre[1]} {centre[2]}", "let the operator bot watch the world")):
            await run_command(self.target, Command(text, purpose))
        self.bots.freeze(self.operator)
        deadline = asyncio.get_running_loop().time() + self.build_timeout
        while True:
            problems = self._differences(spec)
            if not problems or asyncio.get_running_loop().time() > deadline:
                return problems
            await asyncio.sleep(BUILD_POLL_SECONDS)

    def _differences(self, spec: WorldSpec) -> list[str]:
        lo, hi = map_box(spec)
        seen = self.bots.read_blocks(self.operator, lo, hi)
        if isinstance(seen, tuple):
            return [f"the operator bot cannot see {list(seen)} (chunk not loaded)"]
        counts = Counter(name for name in seen if name not in AIR_BLOCKS)
        return world_differences(spec, dict(counts), None)

    def drain(self) -> tuple[list[dict[str, Any]], int]:
        return [], 0  # everything the bots saw comes through their journal

    def read_blocks(self, lo: Vec, hi: Vec) -> list[str]:
        seen = self.bots.read_blocks(self.operator, lo, hi)
        if isinstance(seen, tuple):
            raise UserError(f"the operator bot {self.operator} cannot see {list(seen)}: its chunk is not loaded")
        return seen

    def positions(self) -> dict[str, list[float]]:
        return {p: xyz for p, xyz in self.bots.positions().items() if p != self.operator}

    def change_blocks(self, command: str, positions: Sequence[Vec], cause: str) -> None:
        self.bots.expect_blocks(positions, cause)
        self.bots.command_no_wait(self.operator, command)

    def inventory(self, player: str) -> dict[str, int] | None:
        return dict(self.bots.body(player).observe()["inventory"])

    def chest(self, pos: Vec) -> dict[str, int] | None:
        return None  # unknown until a player opens it: the record is what the bots saw in it

    def server_seconds(self, reset: bool = False) -> float | None:
        return None  # another server's clock is its own: not read (nor reset)
