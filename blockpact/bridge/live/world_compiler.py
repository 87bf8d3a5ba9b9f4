"""Compile a `WorldSpec` into ordered server operations, apply them to a live server, and read the world back.

The same operations serve the embedded server (through its control channel, no bot needed) and any
vanilla/Paper/Fabric server (as chat commands of an operator bot). Operations are plain data; game
rules are commands too. A server that lacks a command the world needs is named in the error.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from blockpact.bridge.live.settings import live_settings
from blockpact.errors import UserError
from blockpact.worlds.rules.obtainable import smelting_uses
from blockpact.worlds.spec.schema import Vec, WorldSpec

if TYPE_CHECKING:
    from blockpact.bridge.live.embedded_server import EmbeddedServer

MAX_FILL_VOLUME = 32768  # vanilla /fill limit, also enforced by the embedded server
AIR_BLOCKS = frozenset({"air", "cave_air", "void_air"})  # left out of block counts
# Answers by which servers say they do not know a command (flying-squid, vanilla, Paper).
UNKNOWN_COMMAND_ANSWERS = ("command not found", "unknown command", "unknown or incomplete command")
# Answers by which servers refuse a command to a player who is not an operator (flying-squid, Bukkit/Paper).
NOT_PERMITTED_ANSWERS = ("you do not have permission", "i'm sorry, but you do not have permission")
FORMATTING_CODE = re.compile(r"[&\u00a7][0-9a-fk-or]", re.IGNORECASE)  # colour codes some servers leave in chat text


class UnsupportedCommand(UserError):
    """The server lacks (or refuses) a command the world needs."""


@dataclass(frozen=True)
class Command:
    """An operator command without the leading slash, e.g. `fill 0 63 0 15 63 11 stone`."""

    text: str
    purpose: str = "build the world"  # what the world needs it for, for the error when the server lacks it


@dataclass(frozen=True)
class SetChest:
    """Replace a chest's contents (the chest block must already stand there)."""

    position: Vec
    items: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SetDrops:
    """What breaking `block` yields: `item`, a count uniform in low..high (negative counts give none), or, when
    `counts` is given, one of `counts` drawn with `weights`."""

    block: str
    item: str
    low: int
    high: int
    counts: tuple[int, ...] = ()
    weights: tuple[float, ...] = ()


@dataclass(frozen=True)
class ResetDrops:
    """Forget earlier worlds' drop tables and harvest rules and restart the server's drop stream for the
    episode's `seed`, so a drop table draws what it draws on the simulator for the same seed (rules/rng.py,
    `stream_word`)."""

    seed: int


@dataclass(frozen=True)
class SetHarvest:
    """Only `tools` harvest `block` (none listed: anything, a bare hand too), the world's `[harvest]` rule,
    which replaces minecraft-data's (rules.can_harvest); a block dug without one yields nothing."""

    block: str
    tools: tuple[str, ...]


Operation = Command | SetChest | SetDrops | ResetDrops | SetHarvest


@dataclass
class CompiledWorld:
    """`world` runs once, before anyone plays; `players[name]` once that player has joined."""

    world: list[Operation]
    players: dict[str, list[Operation]]
    unsupported: list[str] = field(default_factory=list)  # spec parts a live server does not reproduce yet
    # (dynamics rules are not operations: the world master applies them during the episode)


def compile_world(spec: WorldSpec, seed: int = 0, plugin: bool = True) -> CompiledWorld:
    """The operations that build `spec` for an episode of seed `seed`; without blockpact's server `plugin`
    (an external server) the world's harvest rules are listed as unsupported instead, with it smelting is."""
    world: list[Operation] = [*_clear(spec), *_blocks(spec), *game_rules()]
    world += [SetChest(pos, tuple(sorted(chest.items.items()))) for pos, chest in sorted(spec.chests.items())]
    unsupported: list[str] = []
    # Every table with its counts and weights: the plugin then picks a count as the simulator does.
    world.append(ResetDrops(seed))
    world += [SetDrops(block, drop.item, min(drop.counts), max(drop.counts), drop.counts, drop.weights)
              for block, drop in sorted(spec.drops.items())]
    if plugin:
        world += [SetHarvest(block, tuple(sorted(tools))) for block, tools in sorted(spec.harvest.items())]
        if uses := smelting_uses(spec):  # the simulator smelts; a program's smelt here fails mid-episode
            unsupported.append(f"smelting: blockpact's server opens no furnace window ({'; '.join(uses)})")
    else:
        unsupported += [f"harvest.{block}: tool overrides" for block in sorted(spec.harvest)]
    players = {name: _player(name, p.spawn, p.inventory) for name, p in spec.players.items()}
    return CompiledWorld(world, players, unsupported)


def harvest_rules(compiled: CompiledWorld) -> dict[str, list[str]]:
    """Block -> the tools that harvest it, for the world's blocks whose rule the server was given (what the
    bots' pre-check of a dig follows)."""
    return {op.block: list(op.tools) for op in compiled.world if isinstance(op, SetHarvest)}


def game_rules() -> list[Operation]:
    """The game rules and time of day every scenario needs (live.toml [world]): a world that changes only by
    the players and the spec's dynamics."""
    settings = live_settings().world
    ops: list[Operation] = [Command(f"gamerule {name} {str(value).lower()}", f"set the game rule {name}")
                            for name, value in sorted(settings.gamerules.items())]
    ops.append(Command(f"time set {settings.time}", "fix the time of day"))
    return ops


def _player(name: str, spawn: Vec, inventory: dict[str, int]) -> list[Operation]:
    ops: list[Operation] = [Command(f"clear {name}", f"empty {name}'s inventory")]
    ops += [Command(f"give {name} {item} {count}", f"give {name} their items") for item, count in sorted(inventory.items())]
    ops.append(teleport(name, spawn))
    return ops


def teleport(name: str, spawn: Vec) -> Command:
    return Command(f"tp {name} {spawn[0]} {spawn[1]} {spawn[2]}", f"place {name} at their spawn point")


def _boxes(lo: Vec, hi: Vec) -> Iterator[tuple[Vec, Vec]]:
    """Split a box into slabs of at most MAX_FILL_VOLUME blocks."""
    layer = (hi[0] - lo[0] + 1) * (hi[2] - lo[2] + 1)
    if layer > MAX_FILL_VOLUME:
        rows = MAX_FILL_VOLUME // (hi[2] - lo[2] + 1)
        for x in range(lo[0], hi[0] + 1, rows):
            yield from _boxes((x, lo[1], lo[2]), (min(x + rows - 1, hi[0]), hi[1], hi[2]))
        return
    per_slab = MAX_FILL_VOLUME // layer
    for y in range(lo[1], hi[1] + 1, per_slab):
        yield (lo[0], y, lo[2]), (hi[0], min(y + per_slab - 1, hi[1]), hi[2])


def _fill(lo: Vec, hi: Vec, block: str) -> Command:
    return Command(f"fill {lo[0]} {lo[1]} {lo[2]} {hi[0]} {hi[1]} {hi[2]} {block}")


def _clear(spec: WorldSpec) -> list[Operation]:
    hi = tuple(o + s - 1 for o, s in zip(spec.origin, spec.size))
    return [_fill(a, b, "air") for a, b in _boxes(spec.origin, hi)]  # type: ignore[arg-type]


def _blocks(spec: WorldSpec) -> list[Operation]:
    """Whole uniform layers as one fill each, the rest as runs along x."""
    ox, _, oz = spec.origin
    sx, _, sz = spec.size
    ops: list[Operation] = []
    for y in sorted({cell[1] for cell in spec.blocks}):
        layer = {(x, z): b for (x, cy, z), b in spec.blocks.items() if cy == y}
        kinds = set(layer.values())
        if len(layer) == sx * sz and len(kinds) == 1:
            ops += [_fill(a, b, kinds.pop()) for a, b in _boxes((ox, y, oz), (ox + sx - 1, y, oz + sz - 1))]
            continue
        for z in range(oz, oz + sz):
            x = ox
            while x < ox + sx:
                block = layer.get((x, z))
                end = x
                while block is not None and layer.get((end + 1, z)) == block:
                    end += 1
                if block is not None:
                    ops.append(_fill((x, y, z), (end, y, z), block))
                x = end + 1
    return ops


class WorldTarget(Protocol):
    """Where operations go: the embedded server's control channel, or an operator bot's chat."""

    async def command(self, text: str) -> object: ...
    async def set_chest(self, position: Vec, items: tuple[tuple[str, int], ...]) -> object: ...
    async def set_drops(self, block: str, item: str, low: int, high: int, counts: tuple[int, ...] = (),
                        weights: tuple[float, ...] = ()) -> object: ...
    async def reset_drops(self, seed: int) -> object: ...
    async def set_harvest(self, block: str, tools: tuple[str, ...]) -> object: ...


async def apply(ops: list[Operation], target: WorldTarget) -> None:
    for op in ops:
        if isinstance(op, Command):
            await run_command(target, op)
        elif isinstance(op, SetChest):
            await target.set_chest(op.position, op.items)
        elif isinstance(op, ResetDrops):
            await target.reset_drops(op.seed)
        elif isinstance(op, SetHarvest):
            await target.set_harvest(op.block, op.tools)
        else:
            await target.set_drops(op.block, op.item, op.low, op.high, op.counts, op.weights)


async def run_command(target: WorldTarget, op: Command) -> object:
    """Run one command; a server that does not know it (or refuses it) raises `UnsupportedCommand` naming it."""
    name = op.text.split()[0]
    try:
        answer = await target.command(op.text)
    except UserError as exc:
        raise UnsupportedCommand(f"the server refused /{op.text} (needed to {op.purpose}): {exc}") from None
    lines = [plain(line) for line in (answer if isinstance(answer, list) else [answer])]
    if any(line.lower().startswith(NOT_PERMITTED_ANSWERS) for line in lines):
        raise UnsupportedCommand(f"the server refused /{op.text} (needed to {op.purpose}): the bot running it is not an "
                                 f"operator ({lines})")
    if any(line.lower().startswith(UNKNOWN_COMMAND_ANSWERS) for line in lines):
        raise UnsupportedCommand(f"the server has no /{name} command (needed to {op.purpose}): it answered {lines}")
    return answer


def plain(line: object) -> str:
    """A chat line without colour codes or surrounding space."""
    return FORMATTING_CODE.sub("", str(line)).strip()


class ControlChannelTarget:
    """The embedded server (`EmbeddedServer`): operations become control requests, no bot needed."""

    def __init__(self, server: EmbeddedServer) -> None:
        self.server = server

    async def command(self, text: str) -> object:
        return await asyncio.to_thread(self.server.command, text)

    async def set_chest(self, position: Vec, items: tuple[tuple[str, int], ...]) -> object:
        return await asyncio.to_thread(self.server.request, "setChest", pos=list(position), items=[{"name": n, "count": c} for n, c in items])

    async def set_drops(self, block: str, item: str, low: int, high: int, counts: tuple[int, ...] = (),
                        weights: tuple[float, ...] = ()) -> object:
        drop = {"item": item, "counts": list(counts), "weights": list(weights)} if counts else {"item": item, "min": low, "max": high}
        return await asyncio.to_thread(self.server.request, "setDrops", block=block, drops=[drop])

    async def reset_drops(self, seed: int) -> object:
        # As a decimal string: JSON numbers past 2**53 would reach Node rounded.
        return await asyncio.to_thread(self.server.request, "resetDrops", seed=str(seed))

    async def set_harvest(self, block: str, tools: tuple[str, ...]) -> object:
        return await asyncio.to_thread(self.server.request, "setHarvest", block=block, tools=list(tools))


def chest_commands(position: Vec, items: tuple[tuple[str, int], ...], stack_size: Callable[[str], int]) -> list[str]:
    """Vanilla commands (1.17+) that fill a chest slot by slot, for servers without a control channel."""
    x, y, z = position
    commands = [f"data merge block {x} {y} {z} {{Items:[]}}"]
    slot = 0
    for name, count in items:
        while count > 0:
            n = min(count, stack_size(name))
            commands.append(f"item replace block {x} {y} {z} container.{slot} with {name} {n}")
            count -= n
            slot += 1
    return commands


async def build_world_on_server(server: EmbeddedServer, spec: WorldSpec, seed: int = 0) -> CompiledWorld:
    """Build the spec's blocks, chests and drops on the embedded server (players are set up when they join)."""
    compiled = compile_world(spec, seed)
    server.fit_view(*map_box(spec))
    await apply(compiled.world, ControlChannelTarget(server))
    return compiled


def expected_blocks(spec: WorldSpec) -> dict[str, int]:
    return dict(Counter(spec.blocks.values()))


def map_box(spec: WorldSpec) -> tuple[Vec, Vec]:
    """The lowest and highest corner of the world's map."""
    hi = tuple(o + s - 1 for o, s in zip(spec.origin, spec.size))
    return spec.origin, hi  # type: ignore[return-value]


def world_differences(spec: WorldSpec, blocks: dict[str, int], chests: dict[Vec, dict[str, int]] | None) -> list[str]:
    """What a server's world (block counts over the map box, chest contents unless None: unknown) gets wrong;
    [] when it matches."""
    problems = []
    want = expected_blocks(spec)
    for block in sorted(set(want) | set(blocks)):
        if want.get(block, 0) != blocks.get(block, 0):
            problems.append(f"{block}: {blocks.get(block, 0)} in the map box, expected {want.get(block, 0)}")
    for pos, chest in sorted(spec.chests.items()) if chests is not None else ():
        got = chests.get(pos)
        if got != chest.items:
            problems.append(f"chest {chest.name} at {list(pos)}: holds {got}, expected {chest.items}")
    return problems


def read_back(server: EmbeddedServer, spec: WorldSpec) -> list[str]:
    """Read the embedded server's world back and compare it with the spec."""
    hi = [o + s - 1 for o, s in zip(spec.origin, spec.size)]
    blocks: dict[str, int] = Counter()
    for lo_box, hi_box in _boxes(spec.origin, tuple(hi)):  # type: ignore[arg-type]
        blocks.update(server.request("countBlocks", **{"from": list(lo_box), "to": list(hi_box)}))
    chests = {pos: tally(server.request("getChest", pos=list(pos))) for pos in spec.chests}
    return world_differences(spec, dict(blocks), chests)


def tally(items: list[dict]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for item in items:
        counts[item["name"]] += int(item["count"])
    return dict(counts)
