"""Agents' JavaScript programs on the grid simulator.

Each program runs in the SES sandbox (one runner per player, all in the process's Node runtime);
its primitive calls come back to Python, where `AgentAPI` (the one implementation of the rules)
runs them on the simulated clock. Determinism rests on three rules:

- JSPyBridge delivers requests on its callback thread; they are handed to the asyncio loop and
  nothing else happens there.
- Every primitive (and bot.chat) first blocks on the clock for zero seconds, so it starts only when
  every program is blocked, in (time, player) order: nothing changes the world while any program
  computes, and synchronous bot queries (answered on the loop thread) always see a settled state.
- A player's calls run one at a time, in the order the program made them.

Organizations run each agent as its own controller (`SimWorld.run_agents`): a coroutine that plans
(possibly awaiting an LLM: the clock then stands still), runs programs on its body, sleeps or waits
for messages in simulated time, and runs the next program, all on the one clock.

Budgets: a simulated-time budget (an alarm on the clock cancels the run) and a compute budget on the
runner's "compute" clock: only the time the program itself computes counts, not the time it awaits a
primitive (which includes waiting for its turn while other programs compute, or for an agent's LLM),
so whether a program is cut off does not depend on the machine's load or the other programs. It stops
programs that never yield, e.g. `while (true) {}`. A program that awaits something that can never
happen (no primitive pending) is ended at once as stalled (the runner's stall check).

The Node side is watched: a runtime that dies, or says nothing for longer than the compute budget
plus a grace period while Python owes it no answer, ends the run as a `bridge` failure, and the
runtime is replaced for the next program. A run Python gives up on (cancelled, bridge broken) is
cancelled in Node too, so the body is free for the next program.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from blockpact.bridge.body import ProgramResult
from blockpact.bridge.runtime import BridgeBroken, NodeRuntime, runtime
from blockpact.config import defaults
from blockpact.errors import UserError
from blockpact.skills.reference import SKILLS_DIR, primitives, runner_bot_calls, runner_queries, sandbox_limits
from blockpact.worlds.clock import EpisodeOver
from blockpact.worlds.events import Event
from blockpact.worlds.primitives import AgentAPI, PrimitiveError
from blockpact.worlds.simulator import ProgramOutcome, Simulation
from blockpact.worlds.spec import Vec, WorldSpec

SIM_HOST_JS = SKILLS_DIR / "js" / "sim_host.js"
SIM_PRELUDE_JS = SKILLS_DIR / "js" / "sim_prelude.js"
VEC3_TAG = "$vec3"
HEALTH = 20.0
FOOD = 20
TICKS_PER_SECOND = 20
TICKS_PER_DAY = 24000
QUERY_TIMEOUT_SECONDS = 30.0
NODE_GRACE_SECONDS = 10.0  # beyond the compute budget: Node, owed no answer, must have said something by then
LIVENESS_POLL_SECONDS = 1.0  # how often a run checks that the Node runtime is still there
NODE_CALL_SECONDS = 9.0  # one Python->Node call (answers take about a millisecond); beyond it the bridge is broken
# (not JSPyBridge's 10 s default, which jspybridge.py stretches for patience)
NODE_PING_SECONDS = 3.0  # Node's main thread, asked whether it is there after a silent window
HARD_WINDOW_FACTOR = 4  # silent this many windows, Node is given up on even if its main thread answers
MAX_RESULT_CHAT = 1000  # chat lines (the program's and the primitives' feedback) kept in a ProgramResult
MAX_CHAT_LENGTH = 256
MAX_ARG_STRING = 1000  # characters of a text argument of a primitive: it may reappear in feedback and the event log  # characters of a chat line (Minecraft's limit; the sandbox cuts lines first)


class ProgramFailed(PrimitiveError):
    """Ends the simulator's record of a program with the program's own error message."""


# -- values crossing to JavaScript ------------------------------------------------------------------


def decode(value: Any) -> Any:
    """JSON from the sandbox: Vec3 arrive tagged and become (x, y, z) tuples."""
    if isinstance(value, dict):
        tagged = value.get(VEC3_TAG)
        if len(value) == 1 and isinstance(tagged, list) and len(tagged) == 3:
            return tuple(tagged)
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def encode(value: Any) -> Any:
    """Positions (3-tuples) become Vec3 in the program; everything else is plain JSON."""
    if isinstance(value, tuple) and len(value) == 3 and all(isinstance(v, int | float) for v in value):
        return {VEC3_TAG: list(value)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((max(len(str(k)), _longest_string(v)) for k, v in value.items()), default=0)
    if isinstance(value, list | tuple):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def _vec(value: Any, message: str) -> Vec:
    if not (isinstance(value, tuple) and len(value) == 3):
        raise PrimitiveError(message)
    return tuple(math.floor(v) for v in value)  # type: ignore[return-value]


def _number(value: Any, message: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrimitiveError(message)
    return float(value)


def _item_counts(value: Any, what: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in value.values()):
        raise PrimitiveError(f"{what} must be an object of item names to positive counts, e.g. {{ raw_iron: 3 }}")
    return value


# -- primitives: JS name -> AgentAPI coroutine --------------------------------------------------------

Handler = Callable[[AgentAPI, list[Any]], Awaitable[Any]]


async def _explore_step(api: AgentAPI, args: list[Any]) -> dict[str, Any]:
    """One stretch of exploreUntil (whose loop and callback run in the sandbox prelude)."""
    direction = _vec(args[0], "direction for exploreUntil must be a Vec3 only with values of -1, 0 or 1")
    remaining = _number(args[1], "maxTime must be a number")
    seconds = min(remaining, float(defaults()["programs"]["explore_check_seconds"]))
    start = api.time
    await api.explore_until(direction, seconds)
    elapsed = api.time - start
    return {"elapsed": elapsed, "blocked": elapsed < seconds - 1e-9}


PRIMITIVE_HANDLERS: dict[str, Handler] = {
    "mineBlock": lambda api, a: api.mine_block(a[0], a[1]),
    "craftItem": lambda api, a: api.craft_item(a[0], a[1]),
    "smeltItem": lambda api, a: api.smelt_item(a[0], a[1], a[2]),
    "placeItem": lambda api, a: api.place_item(a[0], _vec(a[1], "position for placeItem must be a Vec3")),
    "killMob": lambda api, a: api.kill_mob(a[0], _number(a[1], "timeout for killMob must be a number")),
    "getItemFromChest": lambda api, a: api.get_item_from_chest(
        _vec(a[0], "chestPosition for getItemFromChest must be a Vec3"), _item_counts(a[1], "itemsToGet")),
    "depositItemIntoChest": lambda api, a: api.deposit_item_into_chest(
        _vec(a[0], "chestPosition for depositItemIntoChest must be a Vec3"), _item_counts(a[1], "itemsToDeposit")),
    "checkItemInsideChest": lambda api, a: api.check_item_inside_chest(_vec(a[0], "chestPosition for checkItemInsideChest must be a Vec3")),
    "moveTo": lambda api, a: api.move_to(_vec(a[0], "position for moveTo must be a Vec3"), _number(a[1], "radius for moveTo must be a number")),
    "sendSignal": lambda api, a: api.send_signal(str(a[0])),
    "waitSignal": lambda api, a: api.wait_signal(str(a[0]), _number(a[1], "timeout for waitSignal must be a number")),
}
# Primitives written in the sandbox prelude (they take callbacks, which cannot cross to Python),
# with the host calls they use.
PRELUDE_PRIMITIVES = ("exploreUntil",)
HOST_CALLS: dict[str, Handler] = {"exploreStep": _explore_step}


async def _wait_for_ticks(api: AgentAPI, args: list[Any]) -> None:
    ticks = _number(args[0] if args else None, "ticks for bot.waitForTicks must be a number")
    await api.wait(math.ceil(max(ticks, 0.0)) / TICKS_PER_SECOND)


# Awaited bot methods (primitives.toml [bot.*] kind "call"), as the runner forwards them.
BOT_CALLS: dict[str, Handler] = {"bot.waitForTicks": _wait_for_ticks}


def implemented_primitives() -> set[str]:
    return set(PRIMITIVE_HANDLERS) | set(PRELUDE_PRIMITIVES)


def _with_defaults(name: str, args: list[Any]) -> list[Any]:
    """Voyager-style arguments: missing or undefined ones take the documented defaults."""
    spec = primitives()[name]
    filled = []
    for i, param in enumerate(spec.params):
        value = args[i] if i < len(args) else None
        if value is None:
            value = spec.defaults.get(param)
        filled.append(value)
    return filled


# -- one program run --------------------------------------------------------------------------------


@dataclass
class _Run:
    id: str
    done: asyncio.Future
    started: float
    first_event: int
    cancel_reason: str | None = None
    alarm: asyncio.Future | None = None
    compute_budget_ms: int = 0
    cancel_kind: str = "cancelled"  # ProgramResult.failure of a run Python cancelled
    cancel_limit: str | None = None
    finished: bool = False
    last_exchange: float = 0.0  # loop time of the last request from Node or answer to it
    instant: float = -1.0  # simulated time of the last primitive call, and how many calls were made at it
    calls_at_instant: int = 0


@dataclass
class _Request:
    call_id: int
    name: str
    args: list[Any] = field(default_factory=list)


class SimBody:
    """One player of a SimWorld; programs run through its own sandbox runner."""

    def __init__(self, world: SimWorld, player: str) -> None:
        self.world = world
        self.player = player
        self.api = world.sim.api(player)
        self._host: Any = None
        self._node: NodeRuntime | None = None  # the runtime self._host lives in
        self._methods: dict[str, Any] = {}  # self._host's methods, as bridge proxies
        self._broken: str | None = None  # why the bridge failed while answering, for the run's watch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._run: _Run | None = None
        self._queue: deque[_Request] = deque()
        self._server: asyncio.Task | None = None
        self._current: tuple[_Request, asyncio.Future] | None = None
        self._run_ids = itertools.count(1)
        self.last_result: ProgramResult | None = None

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult:
        """Run one program alone (the other players stand still); see SimWorld.run_programs."""
        results = await self.world.run_programs({self.player: source}, skills={self.player: skills}, budget=budget)
        return results[self.player]

    def observe(self) -> dict[str, Any]:
        api, state = self.api, self.world.sim.state
        radius = float(self.world.sim.timing["search_radius"])
        here = np.asarray(api.position)
        others = [
            {"name": p, "position": list(pos), "distance": round(float(np.linalg.norm(np.asarray(pos) - here)), 2)}
            for p, pos in sorted(state.positions.items())
            if p != self.player and float(np.linalg.norm(np.asarray(pos) - here)) <= radius
        ]
        return {
            "position": list(api.position),
            "inventory": dict(sorted(api.inventory.items())),
            "held": api.held_item,
            "health": HEALTH,
            "time": round(api.time, 6),
            "nearby_blocks": self._nearby_blocks(radius),
            "nearby_entities": others,
            "chests": {",".join(map(str, pos)): dict(c) for pos, c in sorted(self.world.sim.known_chests[self.player].items())},
        }

    def _nearby_blocks(self, radius: float) -> dict[str, int]:
        grid, state = self.world.sim.state.grid, self.world.sim.state
        X, Y, Z = grid.shape
        lx, ly, lz = grid.local(self.api.position)
        xs, ys, zs = np.ogrid[:X, :Y, :Z]
        inside = (xs - lx) ** 2 + (ys - ly) ** 2 + (zs - lz) ** 2 <= radius * radius
        ids, counts = np.unique(grid.ids[inside], return_counts=True)
        names = state.data.block_names_by_id
        return {names[int(i)]: int(n) for i, n in sorted(zip(ids, counts), key=lambda t: names[int(t[0])]) if names[int(i)] not in ("air", "cave_air", "void_air")}

    async def close(self) -> None:
        if self._host is not None:
            host, self._host = self._host, None
            node = self._node
            if node is not None and node.alive:
                try:
                    node.call("closing the body", lambda: host.close(timeout=30))
                except BridgeBroken:
                    pass  # nothing left to close

    # -- the program as the simulator sees it ----------------------------------------------------
    async def _program(self, api: AgentAPI, source: str, skills: Sequence[str], budget: float) -> ProgramResult:
        loop = asyncio.get_running_loop()
        self._loop = loop
        host = self._ensure_host()
        sim = self.world.sim
        run = _Run(
            id=f"{self.player}-{next(self._run_ids)}",
            done=loop.create_future(),
            started=sim.now,
            first_event=len(sim.state.log.events),
            compute_budget_ms=int(round(self.world.compute_budget * 1000)),
            last_exchange=loop.time(),
        )
        self._run = run
        self.last_result = None
        run.alarm = sim.clock.alarm(self.player, sim.now + budget)
        run.alarm.add_done_callback(lambda f: self._on_alarm(run, f, budget))
        try:
            options = json.dumps({"skills": list(skills), "budgetMs": run.compute_budget_ms})
            self._node_call("starting the program", "start", run.id, source, options)
            raw = await self._reported(run)
        except BridgeBroken as exc:
            raw = {"success": False, "error": str(exc), "kind": "bridge", "logs": []}
            self._host = None  # a new host (in a new runtime if need be) for the next program
        finally:
            run.finished = True
            run.alarm.cancel()
            if not run.done.done():  # Python gave up on it (cancelled, bridge broken): free the body in Node
                self._cancel_in_node(run, run.cancel_reason or "cancelled by the caller")
            await self._finish_calls(run)
            if self._run is run:
                self._run = None
        result = self.last_result = self._result(run, raw)
        if not result.success:
            raise ProgramFailed(result.error or "failed")
        return result

    async def _reported(self, run: _Run) -> dict[str, Any]:
        """Node's report of the run's end. A program may await a primitive for as long as the simulation
        needs, but when Python owes it no answer, Node must say something within the compute budget (plus
        a grace period); otherwise the runtime is taken to be wedged and is replaced. A dead runtime is
        noticed within LIVENESS_POLL_SECONDS."""
        loop = asyncio.get_running_loop()
        window = self.world.compute_budget + NODE_GRACE_SECONDS
        node = self._node
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(run.done), LIVENESS_POLL_SECONDS)
            except TimeoutError:
                if node is None or not node.alive:
                    raise BridgeBroken(f"the Node runtime died during program run {run.id}") from None
                if self._broken is not None:
                    broken, self._broken = self._broken, None
                    node.close()  # its answers no longer arrive: the next program gets a new runtime
                    raise BridgeBroken(f"{broken}; the runtime was restarted") from None
                owes_answer = bool(self._queue) or self._current is not None
                if owes_answer or loop.time() - run.last_exchange < window:
                    continue
                if loop.time() - run.last_exchange < HARD_WINDOW_FACTOR * window and await self._node_answers():
                    continue  # a loaded machine: the program still computes inside its compute budget
                node.close()  # wedged: the next program gets a new runtime
                raise BridgeBroken(f"the Node runtime did not report the end of program run {run.id} within "
                                   f"{loop.time() - run.last_exchange:.0f} s; it was restarted") from None

    async def _node_answers(self) -> bool:
        """Whether Node's main thread answers a ping within NODE_PING_SECONDS (asked from a worker thread:
        the loop thread never blocks on a wedged runtime)."""
        host = self._host
        if host is None:
            return False
        try:
            return bool(await asyncio.to_thread(self._methods["ping"], timeout=NODE_PING_SECONDS))
        except Exception:  # timed out, or the bridge is gone
            return False

    def _node_call(self, what: str, method: str, *args: Any) -> Any:
        """One call of the SimHost in Node, bounded by NODE_CALL_SECONDS: the loop thread never waits longer
        on a wedged runtime (the method proxies are fetched once, so no attribute lookup crosses the bridge)."""
        node = self._node
        if node is None or self._host is None:
            raise BridgeBroken(f"no Node runtime ({what})")
        fn = self._methods[method]
        return node.call(what, lambda: fn(*args, timeout=NODE_CALL_SECONDS))

    def _cancel_in_node(self, run: _Run, reason: str) -> None:
        if self._host is None:
            return
        try:
            self._node_call("cancelling the program", "cancel", run.id, reason)
        except BridgeBroken:
            self._host = None

    def _exchanged(self) -> None:
        if self._run is not None and self._loop is not None:
            self._run.last_exchange = self._loop.time()

    def _result(self, run: _Run, raw: dict[str, Any]) -> ProgramResult:
        sim = self.world.sim
        error, timed_out = raw.get("error"), False
        line = raw.get("errorLine")
        failure, limit = (None, None) if raw.get("success") else (raw.get("kind") or "program", raw.get("limit"))
        if run.cancel_reason is not None:
            error, timed_out, line = run.cancel_reason, True, None
            failure, limit = run.cancel_kind, run.cancel_limit
        elif error == f"timed out after {run.compute_budget_ms} ms of computing time":
            error, timed_out = f"timed out after {self.world.compute_budget:g} s of computing time (does the program loop without awaiting a primitive?)", True
            limit = "compute_budget_seconds"
        elif error and line is not None and not error.startswith("SyntaxError"):
            error = f"{error} (program line {line})"
        chat = [e.data["message"] for e in sim.state.log.events[run.first_event :] if e.kind == "chat" and e.agent == self.player]
        if len(chat) > MAX_RESULT_CHAT:  # the event log keeps every line
            chat = [*chat[:MAX_RESULT_CHAT], f"[{len(chat) - MAX_RESULT_CHAT} more chat lines in the event log]"]
        return ProgramResult(
            player=self.player,
            success=bool(raw.get("success")) and run.cancel_reason is None,
            error=error,
            error_line=line,
            stack=raw.get("stack"),
            chat=chat,
            logs=list(raw.get("logs") or []),
            observation=self.observe(),
            duration=round(sim.now - run.started, 6),
            timed_out=timed_out,
            failure=failure,
            limit=limit,
        )

    def _on_alarm(self, run: _Run, alarm: asyncio.Future, budget: float) -> None:
        if alarm.cancelled() or alarm.exception() is not None or run.finished:
            return
        self._cancel(run, f"timed out after {budget:g} s of simulated time", "budget", "sim_budget_seconds")

    def _cancel(self, run: _Run, reason: str, kind: str = "cancelled", limit: str | None = None) -> None:
        if run.cancel_reason is None and not run.finished:
            run.cancel_reason, run.cancel_kind, run.cancel_limit = reason, kind, limit
            # Stop acting now, not when Node's stop request arrives: until then a primitive left
            # waiting on the clock would let simulated time run on (how far depends on Node's speed).
            self._stop_actions(reason)
            self._cancel_in_node(run, reason)

    # -- requests from the sandbox (JSPyBridge callback thread) -------------------------------------
    def _request(self, call_id: int, kind: str, name: str, args_json: str) -> str | None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return json.dumps({"ok": False, "error": "the simulator is not running"}) if kind == "query" else None
        if kind == "query":
            answer = asyncio.run_coroutine_threadsafe(self._answer_query(name, args_json), loop)
            return answer.result(timeout=QUERY_TIMEOUT_SECONDS)
        loop.call_soon_threadsafe(self._on_request, int(call_id), kind, name, args_json)
        return None

    def _done(self, run_id: str, result_json: str) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_done, str(run_id), str(result_json))

    # -- on the loop thread ----------------------------------------------------------------------------
    def _on_done(self, run_id: str, result_json: str) -> None:
        run = self._run
        if run is not None and run.id == run_id and not run.done.done():
            try:
                raw = json.loads(result_json)
            except (ValueError, RecursionError) as exc:  # the sandbox bounds results; never hang on one anyway
                raw = {"success": False, "error": f"the program's result could not be read: {exc}", "kind": "sandbox", "logs": []}
            run.done.set_result(raw)

    def _on_request(self, call_id: int, kind: str, name: str, args_json: str) -> None:
        self._exchanged()
        if kind == "stop":
            self._stop_actions("stopped: the program ended or was cancelled")
            return
        if self._run is None or self._run.finished:
            self._settle(call_id, False, "the program has already finished")
            return
        try:
            args = decode(json.loads(args_json))
        except (ValueError, RecursionError) as exc:
            self._settle(call_id, False, f"{name}: arguments could not be read: {exc}")
            return
        self._queue.append(_Request(call_id, name, args))
        if self._server is None or self._server.done():
            self._server = asyncio.ensure_future(self._serve())

    async def _serve(self) -> None:
        """Run this player's calls one at a time, each starting in its turn on the clock."""
        while self._queue:
            request = self._queue.popleft()
            self._current = request, asyncio.ensure_future(self._execute(request))
            await asyncio.wait([self._current[1]])
            self._current = None

    async def _execute(self, request: _Request) -> None:
        try:
            await self.world.sim.clock.sleep(self.player, 0)
            self._count_call(request)
            value = await self._dispatch(request)
        except PrimitiveError as exc:
            self._settle(request.call_id, False, str(exc))
        except EpisodeOver:
            self._settle(request.call_id, False, "the episode has ended")
            if self._run is not None:
                self._cancel(self._run, f"stopped: the episode ended at {self.world.sim.now:g} s of simulated time")
        except asyncio.CancelledError:
            self._settle(request.call_id, False, "stopped")
            raise
        except Exception as exc:  # a bug on our side must reach the program, not kill the loop
            self._settle(request.call_id, False, f"internal error in {request.name}: {type(exc).__name__}: {exc}")
        else:
            self._settle(request.call_id, True, json.dumps(encode(value)))

    def _count_call(self, request: _Request) -> None:
        """Simulated time that never moves is no progress: a program repeating primitives that take no time
        (e.g. mining a block that is not there) is stopped after max_calls_per_instant of them."""
        run, now = self._run, self.world.sim.now
        if run is None or request.name == "chat":  # chat has its own cap in the sandbox
            return
        if now != run.instant:
            run.instant, run.calls_at_instant = now, 0
        run.calls_at_instant += 1
        if run.calls_at_instant > self.world.max_calls_per_instant:
            reason = (f"stalled: {self.world.max_calls_per_instant} primitive calls without simulated time passing "
                      f"(limit max_calls_per_instant; is the program retrying something that cannot succeed?)")
            self._cancel(run, reason, "stalled", "max_calls_per_instant")
            raise PrimitiveError(reason)

    async def _dispatch(self, request: _Request) -> Any:
        name = request.name
        if name == "chat":
            self.api.say((str(request.args[0]) if request.args else "")[:MAX_CHAT_LENGTH])
            return None
        if _longest_string(request.args) > MAX_ARG_STRING:
            raise PrimitiveError(f"{name}: a text argument is longer than {MAX_ARG_STRING} characters (names, tasks and "
                                 f"messages are short; limit MAX_ARG_STRING)")
        if name in HOST_CALLS:
            return await HOST_CALLS[name](self.api, request.args)
        if name in BOT_CALLS:
            return await BOT_CALLS[name](self.api, request.args)
        if name not in PRIMITIVE_HANDLERS:
            raise PrimitiveError(f"{name} is not available on the simulator")
        return await PRIMITIVE_HANDLERS[name](self.api, _with_defaults(name, request.args))

    def _stop_actions(self, reason: str) -> None:
        """Stop acting, like a stopped bot: drop queued primitives, cancel the running one. What the
        program already said (un-awaited bot.chat) is still said."""
        kept = deque(r for r in self._queue if r.name == "chat")
        for request in self._queue:
            if request.name != "chat":
                self._settle(request.call_id, False, reason)
        self._queue = kept
        if self._current is not None and self._current[0].name != "chat":
            self._current[1].cancel()

    async def _finish_calls(self, run: _Run) -> None:
        """After a run: let its last chat lines through, unless it was cancelled (then drop everything)."""
        self._stop_actions("the program has finished")
        if run.cancel_reason is not None:
            while self._queue:
                self._settle(self._queue.popleft().call_id, False, "the program has finished")
            if self._current is not None:
                self._current[1].cancel()
        server = self._server
        if server is not None and not server.done():
            await asyncio.gather(server, return_exceptions=True)

    def _settle(self, call_id: int, ok: bool, payload: str) -> None:
        self._exchanged()
        if self._host is not None:
            try:
                self._node_call("answering a primitive", "settle", call_id, ok, payload)
            except BridgeBroken as exc:
                self._host = None
                self._broken = str(exc)  # the run's watch (_reported) reports it

    async def _answer_query(self, name: str, args_json: str) -> str:
        self._exchanged()
        try:
            value = self._query(name, decode(json.loads(args_json)))
        except (PrimitiveError, TypeError, ValueError, KeyError) as exc:
            return json.dumps({"ok": False, "error": str(exc)})
        return json.dumps({"ok": True, "value": encode(value)})

    def _query(self, name: str, args: list[Any]) -> Any:
        api, state = self.api, self.world.sim.state
        if name == "username":
            return self.player
        if name == "entity.position":
            return api.position
        if name == "health":
            return HEALTH
        if name == "food":
            return FOOD
        if name == "heldItem":
            held = api.held_item
            return None if held is None else self._item(held, 1)
        if name == "time":
            age = int(round(api.time * TICKS_PER_SECOND))
            return {"age": age, "timeOfDay": age % TICKS_PER_DAY, "day": age // TICKS_PER_DAY}
        if name == "players":
            return {p: {"username": p, "entity": {"position": pos}} for p, pos in sorted(state.positions.items())}
        if name == "inventory.items":
            return [self._item(item, n) for item, total in sorted(api.inventory.items()) for n in self._stacks(item, total)]
        if name == "blockAt":
            pos = _vec(args[0] if args else None, "bot.blockAt needs a Vec3 position")
            return self._block(pos) if state.grid.in_bounds(pos) else None
        if name in ("findBlock", "findBlocks"):
            found = self._find(args[0] if args else None, count_default=1)
            if name == "findBlocks":
                return found
            return self._block(found[0]) if found else None
        raise PrimitiveError(f"unknown query: {name}")

    def _find(self, options: Any, count_default: int) -> list[Vec]:
        if not isinstance(options, dict) or "matching" not in options:
            raise PrimitiveError("findBlock needs { matching: name, id or a list of them, maxDistance }")
        state = self.world.sim.state
        matching = options["matching"]
        wanted = matching if isinstance(matching, list) else [matching]
        names = set()
        for m in wanted:
            if isinstance(m, int) and not isinstance(m, bool):
                name = state.data.block_names_by_id.get(m)
            elif isinstance(m, str):
                name = m
            else:
                raise PrimitiveError("matching must be a block name, a block id or a list of them (functions cannot be sent to the game)")
            if name is not None:
                names.add(name)
        distance = float(options.get("maxDistance") or 16)
        count = int(options.get("count") or count_default)
        here = np.asarray(self.api.position)
        found = [p for n in sorted(names) for p in state.find_blocks(n, self.api.position, distance, count)]
        found.sort(key=lambda p: (float(((np.asarray(p) - here) ** 2).sum()), p))
        return found[:count]

    def _block(self, pos: Vec) -> dict[str, Any]:
        name = self.world.sim.state.block_at(pos)
        return {"name": name, "type": self.world.sim.state.block_id(name), "position": pos}

    def _item(self, name: str, count: int) -> dict[str, Any]:
        data = self.world.sim.state.data
        return {"name": name, "count": count, "type": data.items.get(name), "stackSize": data.stack_sizes.get(name, 64)}

    def _stacks(self, item: str, total: int) -> list[int]:
        size = self.world.sim.state.data.stack_sizes.get(item, 64)
        return [min(size, total - i) for i in range(0, total, size)]

    def _ensure_host(self) -> Any:
        if self._node is not None and not self._node.alive:
            self._host = None  # it lived in a runtime that is gone
        if self._host is None:
            config = {
                "mcVersion": self.world.spec.mc_version,
                "primitives": list(primitives()),
                "hostCalls": list(HOST_CALLS),
                "queries": runner_queries(),
                "botCalls": runner_bot_calls(),
                "budgetClock": "compute",  # see the module docstring: budgets independent of load
                "prelude": SIM_PRELUDE_JS.read_text(),
                **sandbox_limits(),
                "defaultBudgetMs": int(round(self.world.compute_budget * 1000)),
                "stallCheck": True,  # nothing but a primitive can wake a program here: none pending = stalled
            }
            node = runtime()
            module = node.require(SIM_HOST_JS)
            self._host = module.createSimHost(json.dumps(config), self._request, self._done)
            self._methods = {name: getattr(self._host, name) for name in ("start", "settle", "cancel", "ping")}
            self._node = node
        return self._host


class SimWorld:
    """One simulated world with a body per player; all their programs share one Node runtime."""

    def __init__(self, spec: WorldSpec, seed: int = 0, *, compute_budget: float | None = None) -> None:
        self.spec = spec
        self.sim = Simulation(spec, seed=seed)
        programs = defaults()["programs"]
        self.sim_budget = float(programs["sim_budget_seconds"])
        self.compute_budget = float(programs["compute_budget_seconds"] if compute_budget is None else compute_budget)
        self.max_calls_per_instant = int(programs["max_calls_per_instant"])
        if not self.compute_budget > 0:
            raise UserError(f"the compute budget must be a positive number of seconds, got {compute_budget}")
        self._bodies: dict[str, SimBody] = {}
        self._busy = False
        self.stopped: str | None = None  # why run_agents was stopped early, if it was

    def body(self, player: str) -> SimBody:
        if player not in self._bodies:
            self._bodies[player] = SimBody(self, player)  # sim.api raises a KeyError naming the players
        return self._bodies[player]

    async def observe(self, player: str) -> dict[str, Any]:
        """What `player` sees now (the action prompt's observation); LiveWorld.observe gives the same keys."""
        return self.body(player).observe()

    async def run_programs(
        self,
        programs: Mapping[str, str],
        *,
        skills: Mapping[str, Sequence[str]] | None = None,
        until: float | None = None,
        budget: float | None = None,
    ) -> dict[str, ProgramResult]:
        """All players' programs start together at the current simulated time; returns when all finish
        or the episode end / `until` is reached (then unfinished ones are cancelled, timed_out=True).
        `budget`: simulated seconds each program may take (default from defaults.toml)."""
        if self._busy:
            raise RuntimeError("programs are already running in this world: run players together with one run_programs call")
        self._busy = True
        try:
            limit = self.sim_budget if budget is None else float(budget)
            bodies = {p: self.body(p) for p in programs}
            fns = {
                p: (lambda api, p=p: bodies[p]._program(api, programs[p], tuple((skills or {}).get(p, ())), limit))
                for p in programs
            }
            outcomes = await self.sim.run(fns, until=until)
        finally:
            self._busy = False
        results = {}
        for player, outcome in sorted(outcomes.items()):
            result = bodies[player].last_result
            if result is None:  # the body itself failed (e.g. the Node runtime died): say so
                result = ProgramResult(player, False, outcome.error, None, None, observation=bodies[player].observe(),
                                       duration=outcome.ended - outcome.started, failure="bridge")
            results[player] = result
        return results

    async def run_agents(self, controllers: Mapping[str, Controller], *, until: float | None = None) -> dict[str, ProgramOutcome]:
        """Each player's controller runs as its own asynchronous agent on the one simulated clock:
        `await controller(session)` may run many programs, sleep and wait for messages. Returns when
        every controller has returned, `stop` was called, or the episode end / `until` is reached
        (then session calls raise EpisodeOver). Outcomes carry each controller's return value."""
        if self._busy:
            raise RuntimeError("agents or programs are already running in this world")
        self._busy = True
        self.stopped = None
        try:
            sessions = {p: AgentSession(self, p) for p in controllers}
            fns = {p: (lambda _api, p=p: controllers[p](sessions[p])) for p in controllers}
            return await self.sim.run(fns, until=until)
        finally:
            self._busy = False

    def wake(self, agents: Sequence[str]) -> None:
        """Let the given agents re-check what they wait for (e.g. a message just arrived for them)."""
        self.sim.clock.notify([a for a in agents if a in self.sim.clock.rank])

    def stop(self, reason: str) -> None:
        """End `run_agents` early: running programs are cancelled with `reason`, waiting agents wake,
        and every later session call raises EpisodeOver."""
        if self.stopped is not None:
            return
        self.stopped = reason
        for body in self._bodies.values():
            if body._run is not None:
                body._cancel(body._run, reason)
        self.wake(sorted(self.sim.clock.rank))

    def finish(self) -> Event:
        return self.sim.finish()

    async def close(self) -> None:
        for body in self._bodies.values():
            await body.close()


class Inbox(Protocol):
    """What `AgentSession.wait_message` reads: a pool subscription."""

    def pending(self) -> int: ...

    async def get(self, timeout: float | None = None) -> Any: ...


class AgentSession:
    """One agent's handle on its body inside `SimWorld.run_agents`."""

    def __init__(self, world: SimWorld, player: str) -> None:
        self.world = world
        self.player = player
        self.body = world.body(player)

    @property
    def now(self) -> float:
        return self.world.sim.now

    def observe(self) -> dict[str, Any]:
        return self.body.observe()

    def _check(self) -> None:
        if self.world.stopped is not None:
            raise EpisodeOver()

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None) -> ProgramResult:
        """Run one program on this agent's body; the other agents go on meanwhile."""
        self._check()
        limit = self.world.sim_budget if budget is None else float(budget)
        try:
            return await self.body._program(self.body.api, source, tuple(skills), limit)
        except ProgramFailed:
            assert self.body.last_result is not None
            return self.body.last_result

    async def sleep(self, seconds: float) -> None:
        self._check()
        await self.world.sim.clock.sleep(self.player, seconds)
        self._check()

    async def wait_until(self, ready: Callable[[], object], timeout: float) -> object:
        """Block in simulated time until `ready()` holds (re-checked when `SimWorld.wake` names this
        agent) or `timeout` simulated seconds pass; returns the last value of `ready()`."""
        self._check()
        value = await self.world.sim.clock.wait_until(self.player, lambda: ready() or self.world.stopped is not None, timeout)
        self._check()
        return value

    async def wait_message(self, inbox: Inbox, timeout: float, *, simulated: bool = True) -> Any | None:
        """The next message of `inbox`, or None after `timeout` seconds. `simulated`: the seconds are
        simulated and time may advance meanwhile (whoever delivers messages must call `SimWorld.wake`);
        otherwise they are wall seconds and simulated time stands still (messages from other processes)."""
        self._check()
        if simulated:
            await self.wait_until(lambda: inbox.pending() > 0, timeout)
            return await inbox.get() if inbox.pending() > 0 else None
        try:
            return await inbox.get(timeout)
        except TimeoutError:
            return None
        finally:
            self._check()


Controller = Callable[[AgentSession], Awaitable[Any]]
