"""One simulated player's body: its programs run in the SES sandbox (a runner in the process's Node
runtime) and their calls come back here, where they run on the simulated clock (see bridge/sim/__init__).
This module is the run's machinery (start, watch, cancel, answer calls); its link to Node is node_host.SimHost,
its calls wait their turn in call_line.CallLine, what each call does is in the capability modules (blocks, chests,
crafting, movement, signals, ...) through `index.call`, and a run's report becomes its result in result.py."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Sequence
from typing import Any

from blockpact.bridge.liveness import await_while_alive
from blockpact.bridge.machine_load import node_held, stretched
from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.runtime import BridgeBroken
from blockpact.bridge.sim.index import call
from blockpact.bridge.sim.bounds import InstantCounter
from blockpact.bridge.sim.call_line import CallLine
from blockpact.bridge.sim.common import ProgramFailed, decode, encode
from blockpact.bridge.sim.node_host import SimHost
from blockpact.bridge.sim.observe import observe
from blockpact.bridge.sim.queries import answer
from blockpact.bridge.sim.result import program_result
from blockpact.bridge.sim.world_view import WorldView
from blockpact.bridge.sim.run_state import Request, Run, timed
from blockpact.skills.reference import host_limit
from blockpact.worlds.sim.clock import EpisodeOver
from blockpact.worlds.sim.feedback import FeedbackCap, FeedbackCapped
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError

QUERY_TIMEOUT_SECONDS = 30.0
NODE_GRACE_SECONDS = 10.0  # beyond the compute budget: Node, owed no answer, must have said something by then
NODE_PING_SECONDS = 3.0  # Node's main thread, asked whether it is there after a silent window
HARD_WINDOW_FACTOR = 4  # silent this many windows, Node is given up on even if its main thread answers
MAX_CHAT_LENGTH = 256  # characters of a chat line (Minecraft's limit; the sandbox cuts lines first)


class SimBody:
    """One player of a SimWorld; programs run through its own sandbox runner."""

    def __init__(self, world: WorldView, player: str) -> None:
        self.world = world
        self.player = player
        self.api = world.sim.api(player)
        self.api.feedback = FeedbackCap(host_limit("maxFeedbackLines"), host_limit("maxEpisodeFeedbackLines"))
        self.host = SimHost(world, self._request, self._done)  # this body's SimHost in Node
        self._loop: asyncio.AbstractEventLoop | None = None
        self._run: Run | None = None
        self.calls = CallLine(self._execute, lambda call_id, reason: self._settle(call_id, False, reason),
                              lambda task: self.world.sim.clock.interrupt(self.player, task))
        self._run_ids = itertools.count(1)
        self.last_result: ProgramResult | None = None

    async def run(self, source: str, *, skills: Sequence[str] = (), budget: float | None = None,
                  trusted: bool = False) -> ProgramResult:
        """Run one program alone (the other players stand still); see SimWorld.run_programs."""
        results = await self.world.run_programs({self.player: source}, skills={self.player: skills}, budget=budget,
                                                trusted=(self.player,) if trusted else ())
        return results[self.player]

    def observe(self) -> dict[str, Any]:
        return observe(self.api)

    async def close(self) -> None:
        self.host.close()

    # -- the program as the simulator sees it ----------------------------------------------------
    async def _program(self, api: AgentAPI, source: str, skills: Sequence[str], budget: float,
                       trusted: bool = False) -> ProgramResult:
        """`trusted` (a scripted player's program): run in a shared worker thread; else in a sandbox process of its own."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self.host.ensure()
        sim = self.world.sim
        run = Run(
            id=f"{self.player}-{next(self._run_ids)}",
            done=loop.create_future(),
            started=sim.now,
            first_event=len(sim.state.log.events),
            compute_budget_ms=int(round(self.world.compute_budget * 1000)),
            last_exchange=loop.time(),
            calls=InstantCounter(self.world.max_calls_per_instant),
            budget_since=sim.now,
        )
        self._run = run
        self.last_result = None
        if self.api.feedback is not None:
            self.api.feedback.start_program()
        run.alarm = sim.clock.alarm(self.player, sim.now + budget)
        run.alarm.add_done_callback(lambda f: self._on_alarm(run, f, budget))
        try:
            options = json.dumps({"skills": list(skills), "budgetMs": run.compute_budget_ms, "trusted": trusted,
                                  "isolation": "thread" if trusted else "process"})
            self.host.call("starting the program", "start", run.id, source, options)
            raw = await self._reported(run)
        except BridgeBroken as exc:
            raw = {"success": False, "error": str(exc), "kind": "bridge", "logs": []}
            self.host.drop()  # a new host (in a new runtime if need be) for the next program
        finally:
            run.finished = True
            run.alarm.cancel()
            if not run.done.done():  # Python gave up on it (cancelled, bridge broken): free the body in Node
                self.host.cancel(run.id, run.cancel_reason or "cancelled by the caller")
            await self.calls.finish(cancelled=run.cancel_reason is not None)
            if self._run is run:
                self._run = None
        result = self.last_result = program_result(sim, self.player, run, raw, self.world.compute_budget, self.observe())
        if not result.success:
            raise ProgramFailed(result.error or "failed")
        return result

    async def _reported(self, run: Run) -> dict[str, Any]:
        """Node's report of the run's end. A program may await a primitive for as long as the simulation needs;
        when Python owes it no answer and it has been silent NODE_PING_SECONDS, Node's main thread must answer a ping
        (the program may compute, in its worker), and report within HARD_WINDOW_FACTOR windows of the compute budget
        plus a grace period; otherwise the runtime is wedged and is replaced. A dead one is noticed within a poll
        (liveness.py)."""
        loop = asyncio.get_running_loop()
        window = self.world.compute_budget + NODE_GRACE_SECONDS
        node = self.host.node

        async def not_wedged() -> None:
            assert node is not None  # await_while_alive found it alive
            if self.host.broken is not None:
                broken, self.host.broken = self.host.broken, None
                node.close()  # its answers no longer arrive: the next program gets a new runtime
                raise BridgeBroken(f"{broken}; the runtime was restarted")
            silent = 0.0 if self.calls.busy else loop.time() - run.last_exchange
            if silent < NODE_PING_SECONDS or node_held():  # BLOCKPACT_NODE_DEBUG: a debugger may hold it
                return
            if silent < HARD_WINDOW_FACTOR * window and await self.host.answers(stretched(NODE_PING_SECONDS)):
                return
            node.kill()  # wedged (it would not end on its stdin's close either): the next program gets a new one
            raise BridgeBroken(f"the Node runtime did not answer during program run {run.id} (silent for "
                               f"{loop.time() - run.last_exchange:.0f} s); it was restarted")

        return await await_while_alive(run.done, node, f"during program run {run.id}", on_poll=not_wedged)

    def _exchanged(self) -> None:
        if self._run is not None and self._loop is not None:
            self._run.last_exchange = self._loop.time()

    def _on_alarm(self, run: Run, alarm: asyncio.Future, budget: float) -> None:
        if alarm.cancelled() or alarm.exception() is not None or run.finished:
            return
        self._cancel(run, f"timed out after {budget:g} s of simulated time", "budget", "sim_budget_seconds")

    def _cancel(self, run: Run, reason: str, kind: str = "cancelled", limit: str | None = None) -> None:
        if run.cancel_reason is None and not run.finished:
            run.cancel_reason, run.cancel_kind, run.cancel_limit = reason, kind, limit
            # Node first: the run ends there before any failed primitive's answer is sent, so the program
            # never sees one (whether it would depended on Node's speed). Then stop acting now, not when
            # Node's stop request arrives: a primitive left waiting would let simulated time run on.
            self.host.cancel(run.id, reason)
            self.calls.stop(reason)

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
            self.calls.stop("stopped: the program ended or was cancelled")
            return
        if self._run is None or self._run.finished:
            self._settle(call_id, False, "the program has already finished")
            return
        try:
            args = decode(json.loads(args_json))
        except (ValueError, RecursionError) as exc:
            self._settle(call_id, False, f"{name}: arguments could not be read: {exc}")
            return
        self.calls.add(Request(call_id, name, args))

    async def _execute(self, request: Request) -> None:
        spent = [0.0]  # this thread's CPU seconds in the call's own steps: the host's work, charged to the program
        try:
            await self.world.sim.clock.sleep(self.player, 0)
            self._count_call(request)
            value = await timed(self._dispatch(request), spent)
        except FeedbackCapped as exc:  # the program may catch the failed call: the run ends all the same
            if self._run is not None:
                self._cancel(self._run, str(exc), "limit", exc.limit)
            self._settle(request.call_id, False, str(exc), spent[0])
        except PrimitiveError as exc:
            self._settle(request.call_id, False, str(exc), spent[0])
        except EpisodeOver:  # the run is cancelled first, so the program never gets this answer (see _cancel)
            if self._run is not None:
                self._cancel(self._run, f"stopped: the episode ended at {self.world.sim.now:g} s of simulated time")
            self._settle(request.call_id, False, "the episode has ended")
        except asyncio.CancelledError:
            self._settle(request.call_id, False, "stopped")
            raise
        except Exception as exc:  # a bug on our side must reach the program, not kill the loop
            self._settle(request.call_id, False, f"internal error in {request.name}: {type(exc).__name__}: {exc}")
        else:
            self._settle(request.call_id, True, json.dumps(encode(value)), spent[0])

    def _count_call(self, request: Request) -> None:
        """A program repeating calls that take no simulated time is stopped (bounds.InstantCounter)."""
        run = self._run
        if run is None or run.calls is None or request.name == "chat":  # chat has its own cap in the sandbox
            return
        reason = run.calls.count(self.world.now)
        if reason is not None:
            self._cancel(run, reason, "stalled", "max_calls_per_instant")
            raise PrimitiveError(reason)

    async def _dispatch(self, request: Request) -> Any:
        if request.name == "chat":
            self.api.say((str(request.args[0]) if request.args else "")[:MAX_CHAT_LENGTH])
            return None
        return await call(self.api, request.name, request.args)

    def _settle(self, call_id: int, ok: bool, payload: str, cost: float = 0.0) -> None:
        """Answers a call without waiting for Node's receipt (NodeRuntime.post): the run's watch finds a wedged one.
        `cost`: CPU seconds this side spent on the call, charged to the program's compute budget in Node. When
        simulated time has passed since the budget last started, Node starts it again: it bounds the computing of
        one instant (a loop that never lets time pass), not of a program's whole life, however long the episode."""
        self._exchanged()
        run, now = self._run, self.world.sim.now
        time_passed = run is not None and now > run.budget_since
        if time_passed:
            run.budget_since = now
        self.host.settle(call_id, ok, payload, round(cost * 1000, 3), time_passed)  # a broken bridge: see _reported

    async def _answer_query(self, name: str, args_json: str) -> str:
        """The answer to a query, with the CPU milliseconds it took here (`costMs`, charged to the program in Node)."""
        self._exchanged()
        started = time.thread_time()
        try:
            value = answer(self.api, name, decode(json.loads(args_json)))
            reply = {"ok": True, "value": encode(value)}
        except (PrimitiveError, TypeError, ValueError, KeyError) as exc:
            reply = {"ok": False, "error": str(exc)}
        reply["costMs"] = round((time.thread_time() - started) * 1000, 3)
        return json.dumps(reply)

