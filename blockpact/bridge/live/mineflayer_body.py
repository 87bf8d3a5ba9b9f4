"""Agents' JavaScript programs on real mineflayer bots, against the embedded server or any Minecraft server.

All bots of a `MineflayerWorld` live in the process's one Node runtime (`runtime()`), next to their
sandbox runners (`js/mineflayer/index.js`); primitives run on Node's main thread beside the bot, so
Python only starts runs and receives results. Every long operation is a JS method that returns at
once and later calls a Python callback with JSON: a single blocking JSPyBridge call is limited to
10 s and a timed-out call can wedge the bridge. Callbacks arrive on JSPyBridge's thread and are
handed to the asyncio loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.machine_load import stretched
from blockpact.bridge.liveness import LIVENESS_POLL_SECONDS, await_while_alive
from blockpact.bridge.live.joins import JoinQueue
from blockpact.bridge.runtime import JS_DIR, BridgeBroken, NodeRuntime, runtime
from blockpact.bridge.live.watchdog import RuntimeWatchdog
from blockpact.errors import UserError
from blockpact.settings import default_mc_version, settings
from blockpact.bridge.live.world_compiler import (CompiledWorld, WorldTarget, apply, compile_world,
                                                   harvest_rules, run_command, teleport)
from blockpact.skills.reference import HOST_LIMITS, host_limit, primitives, runner_queries, sandbox_limits
from blockpact.worlds.spec.schema import PlayerSpec, Vec, WorldSpec

LIVE_WORLD_JS = JS_DIR / "mineflayer" / "index.js"
CALLBACK_MARGIN_SECONDS = 30.0  # beyond a run's budget (stretched by load): the JS side answers before this
AUTH_MODES = ("offline", "microsoft")
SETTLE_POLL_SECONDS = 0.1
NODE_CALL_SECONDS = 8.0  # a quick synchronous call into Node (a ping, a journal drain) on an idle machine
NODE_CALL_SECONDS_PER_BOT = 0.25  # more per bot: 64 starting together block Node's main thread > 8 s at once
WORLD_METHODS = ("connect", "run", "command", "startViewer", "disconnect", "close", "drainJournal", "witnessWorld",
                 "expectBlocks", "readBlocks", "positions", "freeze", "commandNoWait", "observe", "cancel",
                 "connectionLost", "players", "setHarvest", "setGroups", "loopDelay", "ping", "startLockstep", "endLockstep")


def node_call_seconds() -> float:
    """How long a quick call into Node may take before Node counts as wedged: NODE_CALL_SECONDS on an idle
    machine, stretched by the load (machine_load.py), so a busy runtime is not killed."""
    return stretched(NODE_CALL_SECONDS)


class BotError(UserError):
    """A bot could not join, or the Node side refused an operation."""


@dataclass(frozen=True)
class ServerAddress:
    host: str = "127.0.0.1"
    port: int = 25565
    version: str | None = None  # None: the project default
    auth: str = "offline"  # "offline" or "microsoft"

    def __post_init__(self) -> None:
        if self.auth not in AUTH_MODES:
            raise UserError(f"auth must be one of {', '.join(AUTH_MODES)}, got {self.auth!r}")


@dataclass(frozen=True)
class StartBatch:
    """Programs that start together: none starts before all `size` are ready to (MineflayerWorld.start_batch)."""

    id: str
    size: int


def _live_world_settings() -> dict[str, Any]:
    bots = live_settings().bots
    return {
        "primitives": {name: {"feedback": list(p.feedback), "errors": list(p.errors)} for name, p in primitives().items()},
        "queries": runner_queries(),
        "searchRadius": bots.search_radius,
        "observeRadius": bots.observe_radius,
        "exploreStep": bots.explore_step,
        "exploreStride": bots.explore_stride,
        "chatPerSecond": bots.chat_per_second,
        "chatBurst": bots.chat_burst,
        "bound": {"baseSeconds": bots.bound_base, "slack": bots.bound_slack},
        "limits": sandbox_limits(), "hostLimits": {name: host_limit(name) for name in HOST_LIMITS},  # feedback caps
    }


class MineflayerWorld:
    """The bots of one experiment on one server, all in one Node runtime."""

    def __init__(self, address: ServerAddress | None = None) -> None:
        self.address = address or ServerAddress(port=settings().server.port)
        self._node: NodeRuntime = runtime()
        self._js = self._node.require(LIVE_WORLD_JS)
        self._world = self._js.createLiveWorld(json.dumps(_live_world_settings()))
        # Fetched once: an attribute lookup on a dead or wedged runtime blocks for JSPyBridge's 10 s.
        self._methods = {name: getattr(self._world, name) for name in WORLD_METHODS}
        self._bodies: dict[str, MineflayerBody] = {}
        self._callbacks: set[Any] = set()  # JSPyBridge holds Python callbacks weakly
        self._closed = False
        self._batches = 0
        self._joins = JoinQueue()
        # Its watch() raises BridgeBroken once the runtime is gone, stopped or wedged; while a ping goes unanswered,
        # `answering` is False and the event loop's thread must not call into Node (watchdog.py).
        self.watchdog = RuntimeWatchdog(self._node, self._ping, self._call_seconds)

    async def _call(self, method: str, *args: Any, timeout: float) -> dict[str, Any]:
        """Call `world.method(*args, done)` and await `done(json)`."""
        if self._closed:
            raise BotError("this MineflayerWorld is closed")
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def done(payload: str) -> None:  # on JSPyBridge's callback thread
            loop.call_soon_threadsafe(lambda: answer.done() or answer.set_result(str(payload)))

        self._callbacks.add(done)
        try:
            self._node.call(method, self._methods[method], *args, done)
            try:  # a dead runtime is noticed within a liveness poll, not after `timeout`
                return json.loads(await await_while_alive(answer, self._node, f"while waiting for {method}", timeout=timeout))
            except TimeoutError:
                raise BotError(f"the Node side did not answer {method} within {timeout:g} s") from None
        finally:
            self._callbacks.discard(done)

    def _sync(self, method: str, *args: Any, timeout: float | None = None) -> Any:
        """`world.method(*args)`, a quick call answered at once; BridgeBroken at once on a dead runtime, and on a
        wedged one after the watchdog's bound (node_call_seconds(), longer while the runtime runs late)."""
        fn = self._methods[method]
        seconds = self.watchdog.bound() if timeout is None else timeout
        return self._node.call(method, lambda: fn(*args, timeout=seconds))

    def _call_seconds(self) -> float:
        """node_call_seconds() and NODE_CALL_SECONDS_PER_BOT for each bot of this world: the watchdog's least bound."""
        return node_call_seconds() + NODE_CALL_SECONDS_PER_BOT * len(self._bodies)

    def _ping(self, bound: float) -> float:
        """The watchdog's ping: how late Node's main thread ran since the last one, in seconds."""
        return float(self._sync("ping", timeout=bound))

    def connection_lost(self, player: str) -> str | None:
        """None while `player`'s bot is connected, else why it is not."""
        reason = self._sync("connectionLost", player)
        return None if reason is None else str(reason)

    async def connect(self, player: str, *, operator: bool = False) -> MineflayerBody:
        """Log a bot called `player` in and wait until it has spawned. An operator bot runs commands and watches;
        it takes no part in signals."""
        if player in self._bodies:
            return self._bodies[player]
        async def attempt(spawn_timeout: float) -> str | None:
            options = {
                "host": self.address.host, "port": self.address.port, "version": self.address.version or default_mc_version(),
                "auth": self.address.auth, "spawnTimeoutMs": int(spawn_timeout * 1000), "operator": operator,
                "keepAliveTimeoutMs": int(live_settings().bots.keep_alive_timeout * 1000)}
            answer = await self._call("connect", player, json.dumps(options), timeout=spawn_timeout + CALLBACK_MARGIN_SECONDS)
            return None if answer["ok"] else str(answer["error"])

        error = await self._joins.join(attempt)
        if error is not None:
            raise BotError(error)
        body = MineflayerBody(self, player)
        self._bodies[player] = body
        return body

    def body(self, player: str) -> MineflayerBody:
        if player not in self._bodies:
            raise BotError(f"no bot named {player} has joined (connected: {', '.join(self._bodies) or 'none'})")
        return self._bodies[player]

    @property
    def players(self) -> list[str]:
        return list(self._bodies)

    async def join(self, spec: WorldSpec, target: WorldTarget, compiled: CompiledWorld | None = None,
                   players: Sequence[str] | None = None) -> dict[str, MineflayerBody]:
        """Log every player of the spec in (or only `players`), give them their inventories at their spawns, and
        wait until each bot sees that."""
        compiled = compiled or compile_world(spec)
        self._sync("setHarvest", json.dumps(harvest_rules(compiled)))  # the bots refuse a dig as the simulator does
        self._sync("setGroups", json.dumps([{"name": g.name, "members": g.members, "share": g.share} for g in spec.groups]))
        names = list(spec.players) if players is None else list(players)
        bodies = {name: await self.connect(name) for name in names}
        for name in names:
            await apply(compiled.players[name], target)
        await asyncio.gather(*(self._settle(bodies[name], spec.players[name], target) for name in names))
        return bodies

    async def _settle(self, body: MineflayerBody, player: PlayerSpec, target: WorldTarget) -> None:
        """Wait until the bot stands at its spawn with its items. A server that was still logging the bot in may
        put it back where it logged in after the teleport: halfway through the wait the teleport is repeated."""
        timeout = live_settings().bots.settle_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        repeat_at = loop.time() + timeout / 2
        while True:
            seen = body.observe()
            cell = tuple(int(v // 1) for v in seen["position"])
            if cell == player.spawn and seen["inventory"] == player.inventory:
                return
            if loop.time() > deadline:
                raise BotError(f"{body.player} did not arrive at {list(player.spawn)} with {player.inventory} within {timeout:g} s "
                               f"(at {seen['position']} with {seen['inventory']})")
            if cell != player.spawn and loop.time() > repeat_at:
                repeat_at = deadline
                await run_command(target, teleport(player.name, player.spawn))
            await asyncio.sleep(SETTLE_POLL_SECONDS)

    async def run_programs(self, programs: Mapping[str, str], *, skills: Mapping[str, Sequence[str]] | None = None,
                           budget: float | None = None, trusted: Collection[str] = ()) -> dict[str, ProgramResult]:
        """Start every player's program together; returns when all have finished or run out of time. A Node runtime
        that dies or stops answering meanwhile (one filling its heap, issue 18) fails every program with cause
        `bridge` within node_call_seconds(), as an episode's watchdog does, not after the budget."""
        names = list(programs)
        batch = self.start_batch(len(names))
        watchdog = asyncio.ensure_future(self.watchdog.watch())
        try:
            results = await asyncio.gather(*(self.body(p).run(programs[p], skills=(skills or {}).get(p, ()), budget=budget,
                                                              batch=batch, trusted=p in trusted) for p in names))
            if any(r.failure == "bridge" for r in results):  # the watchdog may be the one that killed it: its reason
                await asyncio.wait([watchdog], timeout=LIVENESS_POLL_SECONDS)
        finally:
            watchdog.cancel()
        broken = None if watchdog.cancelled() or not watchdog.done() else watchdog.exception()
        if broken is not None:  # why the runtime went, for the programs that only saw it gone
            results = [replace(r, error=f"{r.error}: {broken}") if r.failure == "bridge" else r for r in results]
        return dict(zip(names, results))

    def start_batch(self, size: int) -> StartBatch:
        """A new start line for `size` programs that play together. How late the runtime runs is counted from here
        (lateness_note): joins and world building run it late too, and are not its programs' doing."""
        self._sync("ping")  # Node's record of its lateness starts again
        self.watchdog.worst_late = 0.0
        self._batches += 1
        return StartBatch(f"batch-{self._batches}", size)

    def start_lockstep(self, entries: list[dict[str, Any]], stall_seconds: float) -> None:
        """The next batch's shared actions take turns in the simulator's order (lockstep.py, js/mineflayer/lockstep.js)."""
        self._sync("startLockstep", json.dumps(entries), int(stall_seconds * 1000))

    def end_lockstep(self) -> dict[str, Any] | None:
        """The batch's lockstep is over: {diverged: why the order was given up | None, done, scheduled}."""
        return json.loads(self._sync("endLockstep"))

    async def command(self, player: str, text: str, timeout: float = 5.0) -> str:
        """An operator command said in chat by `player` (servers without a control channel); returns the answer line."""
        answer = await self._call("command", player, text, int(timeout * 1000), timeout=timeout + CALLBACK_MARGIN_SECONDS)
        if not answer["ok"]:
            raise BotError(answer["error"])
        return str(answer["reply"])

    def drain_journal(self) -> list[dict[str, Any]]:
        """World events only the bots saw (signals; everything, once `witness` is on), oldest first. Nothing while
        Node does not answer the watchdog: the entries wait there (the event loop's thread must not block on it)."""
        if not self.watchdog.answering:
            return []
        return list(json.loads(str(self._sync("drainJournal"))))

    def witness(self, operator: str) -> None:
        """From now on the bots record what they see of the world (servers without blockpact's plugin)."""
        settings = live_settings().external
        self._sync("witnessWorld", operator, json.dumps({"digMemoryMs": int(settings.dig_memory_seconds * 1000),
                                                       "expectMs": int(settings.expect_seconds * 1000)}))

    def expect_blocks(self, positions: Sequence[Vec], cause: str) -> None:
        self._sync("expectBlocks", json.dumps([list(p) for p in positions]), cause)

    def read_blocks(self, player: str, lo: Vec, hi: Vec) -> list[str] | Vec:
        """The block names of a box as `player` sees them (x outermost, then y, z), or the first cell it cannot see."""
        answer = json.loads(str(self._sync("readBlocks", player, json.dumps(list(lo)), json.dumps(list(hi)))))
        if "unloaded" in answer:
            return tuple(answer["unloaded"])  # type: ignore[return-value]
        palette = answer["palette"]
        return [palette[i] for i in answer["cells"]]

    def loop_delay(self) -> dict[str, int]:
        """How late Node's main thread ran since the last call, in ms ({mean, p99, max}): the bots answer the
        server's keep-alives there, so a long delay is how a busy runtime gets its bots kicked."""
        return dict(json.loads(str(self._sync("loopDelay"))))

    def positions(self) -> dict[str, list[float]]:
        """Where the bots are; none while Node does not answer the watchdog (see drain_journal)."""
        if not self.watchdog.answering:
            return {}
        return dict(json.loads(str(self._sync("positions"))))

    def freeze(self, player: str) -> None:
        self._sync("freeze", player)

    def command_no_wait(self, player: str, text: str) -> None:
        self._sync("commandNoWait", player, text)

    async def start_viewer(self, player: str, index: int = 0) -> str:
        """A prismarine-viewer page of `player`'s view on 127.0.0.1 (live.toml's [viewer] port + `index`, or any
        free port); returns its URL. The page server closes when the bot leaves."""
        settings = live_settings().viewer
        port = settings.port
        options = json.dumps({"port": port + index if port else 0, "viewDistance": settings.view_distance,
                              "firstPerson": settings.first_person})
        answer = await self._call("startViewer", player, options, timeout=CALLBACK_MARGIN_SECONDS)
        if not answer["ok"]:
            raise BotError(answer["error"])
        return str(answer["url"])

    async def leave(self, player: str) -> None:
        self._bodies.pop(player, None)
        await self._call("disconnect", player, timeout=CALLBACK_MARGIN_SECONDS)

    async def close(self) -> None:
        """Stop every program and disconnect every bot (idempotent); the Node runtime stays for others."""
        if self._closed:
            return
        try:
            if self._node.alive:  # else the bots died with the runtime
                await self._call("close", timeout=CALLBACK_MARGIN_SECONDS)
        finally:
            self._closed = True
            self._bodies.clear()

    async def __aenter__(self) -> MineflayerWorld:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class MineflayerBody:
    """One connected bot (the `Body` protocol)."""

    def __init__(self, world: MineflayerWorld, player: str) -> None:
        self.world = world
        self.player = player

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None,
                  batch: StartBatch | None = None, trusted: bool = False) -> ProgramResult:
        """Run a program with a wall-clock budget in seconds; a program past it is stopped with the bot. With
        `batch`, it starts when every program of the batch is ready to. Unless `trusted`, in a sandbox process."""
        seconds = live_settings().bots.program_budget if budget is None else float(budget)
        if seconds <= 0:
            raise UserError(f"budget must be a positive number of seconds, got {budget}")
        together = {"isolation": "thread" if trusted else "process"} | ({} if batch is None else {"batch": {"id": batch.id, "size": batch.size}})
        options = json.dumps({"budgetMs": int(seconds * 1000), "skills": list(skills), **together})
        try:
            margin = stretched(CALLBACK_MARGIN_SECONDS) + self.world.watchdog.bound()  # 64 workers starting, a late loop
            result = await self.world._call("run", self.player, source, options, timeout=seconds + margin)
        except BridgeBroken as exc:  # the bots lived in that runtime: this world is over, say so as the program's failure
            return ProgramResult(self.player, False, str(exc), None, None, failure="bridge")
        except BaseException:  # cancelled, or Node never answered: stop the program in Node so the bot is free
            self._cancel_quietly("cancelled by the caller")
            raise
        return ProgramResult(**result)

    def _cancel_quietly(self, reason: str) -> None:
        try:
            if self.world._node.alive:
                self.cancel(reason)
        except Exception:  # the bridge is what failed: nothing to cancel through it
            pass

    def observe(self) -> dict[str, Any]:
        return json.loads(str(self.world._sync("observe", self.player)))

    def cancel(self, reason: str = "cancelled") -> bool:
        return bool(self.world._sync("cancel", self.player, reason))

    async def close(self) -> None:
        await self.world.leave(self.player)


async def run_program_on_server(source: str, *, host: str = "127.0.0.1", port: int = 25565, player: str = "Bot",
                                version: str | None = None, auth: str = "offline", budget: float | None = None,
                                skills: Sequence[str] = ()) -> ProgramResult:
    """Join a server as `player`, run one program, leave (`blockpact program run --server`)."""
    async with MineflayerWorld(ServerAddress(host, port, version, auth)) as world:
        body = await world.connect(player)
        return await body.run(source, skills=skills, budget=budget)
