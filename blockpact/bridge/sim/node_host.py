"""The simulator body's side of its SimHost in Node (bridge/js/sim/sim_host.js): the runner configuration it is made
with, the host's functions, and `SimHost`, one body's link to its host (every call the body makes into Node). A host
is a number naming it in Node, and its functions are fetched once per runtime: each attribute of a bridge proxy is a
round trip, and fetching four methods per body cost 256 players over a second before the first program ran."""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable
from typing import Any

from blockpact.bridge.machine_load import stretched
from blockpact.bridge.runtime import JS_DIR, BridgeBroken, NodeRuntime, runtime
from blockpact.bridge.sim.bounds import MAX_ARG_STRING
from blockpact.bridge.sim.index import HOST_CALLS
from blockpact.bridge.sim.world_view import WorldView
from blockpact.skills.reference import primitives, runner_bot_calls, runner_queries, sandbox_limits

SIM_JS_DIR = JS_DIR / "sim"  # the sim body's Node side
SIM_HOST_JS = SIM_JS_DIR / "sim_host.js"
SIM_PRELUDE_JS = SIM_JS_DIR / "sim_prelude.js"
HOST_FUNCTIONS = ("createSimHost", "start", "settle", "cancel", "ping", "close")
NODE_CALL_SECONDS = 9.0  # one Python->Node call (answers take about a millisecond); beyond it the bridge is broken
# (not JSPyBridge's 10 s default, which jspybridge.py stretches for patience)

_functions: weakref.WeakKeyDictionary[NodeRuntime, dict[str, Any]] = weakref.WeakKeyDictionary()


def host_functions(node: NodeRuntime) -> dict[str, Any]:
    """sim_host.js's functions in `node`, as bridge proxies (each takes the host's number first, but createSimHost)."""
    if node not in _functions:
        module = node.require(SIM_HOST_JS)
        _functions[node] = {name: getattr(module, name) for name in HOST_FUNCTIONS}
    return _functions[node]


def runner_config(world: WorldView) -> dict[str, Any]:
    """The sandbox runner's configuration for a simulated body of `world`."""
    return {
        "mcVersion": world.spec.mc_version,
        "primitives": list(primitives()),
        "hostCalls": list(HOST_CALLS),
        "queries": runner_queries(),
        "botCalls": runner_bot_calls(),
        "budgetClock": "compute",  # see bridge/sim/__init__: budgets independent of load
        "prelude": SIM_PRELUDE_JS.read_text(encoding="utf-8"),
        **sandbox_limits(),
        "startTimeoutMs": 40_000,  # a worker start took over 15 s (config.js) at load 14; Python waits 44+ s
        "defaultBudgetMs": int(round(world.compute_budget * 1000)),
        "stallCheck": True,  # nothing but a primitive can wake a program here: none pending = stalled
    }


class SimHost:
    """One body's SimHost in Node, made on first use and again in a new runtime once its runtime is gone. `broken`
    is why the bridge failed while answering a call (answers are posted, not awaited): the run's watch reports it."""

    def __init__(self, world: WorldView, request: Callable[..., str | None], done: Callable[[str, str], None]) -> None:
        self.world = world
        self._request = request  # sim_host.js calls these back on JSPyBridge's thread: a call, a run's end
        self._done = done
        self.number: int | None = None  # the host's number in Node
        self.node: NodeRuntime | None = None  # the runtime it lives in
        self._methods: dict[str, Any] = {}  # sim_host.js's functions in that runtime, as bridge proxies
        self.broken: str | None = None

    def ensure(self) -> None:
        """A host in a live runtime (a new one if the last died)."""
        if self.node is not None and not self.node.alive:
            self.number = None  # it lived in a runtime that is gone
        if self.number is None:
            node = runtime()
            self._methods = host_functions(node)
            config = json.dumps(runner_config(self.world))
            self.number = int(self._methods["createSimHost"](config, self._request, self._done, MAX_ARG_STRING))
            self.node = node

    def drop(self) -> None:
        """Forget the host: the next program gets a new one (in a new runtime if need be)."""
        self.number = None

    def call(self, what: str, method: str, *args: Any) -> Any:
        """One call of the host, bounded by NODE_CALL_SECONDS stretched by the load: the loop thread never waits
        longer on a wedged runtime (the method proxies are fetched once: no attribute lookup crosses the bridge)."""
        node, host = self.node, self.number
        if node is None or host is None:
            raise BridgeBroken(f"no Node runtime ({what})")
        fn = self._methods[method]
        timeout = stretched(NODE_CALL_SECONDS)
        return node.call(what, lambda: fn(host, *args, timeout=timeout))

    async def answers(self, within: float) -> bool:
        """Whether Node's main thread answers a ping within `within` seconds (asked from a worker thread: the loop
        thread never blocks on a wedged runtime)."""
        host = self.number
        if host is None:
            return False
        try:
            return bool(await asyncio.to_thread(self._methods["ping"], host, timeout=within))
        except Exception:  # timed out, or the bridge is gone
            return False

    def cancel(self, run_id: str, reason: str) -> None:
        """End the run in Node (freeing the body there); a broken bridge drops the host."""
        if self.number is None:
            return
        try:
            self.call("cancelling the program", "cancel", run_id, reason)
        except BridgeBroken:
            self.number = None

    def settle(self, call_id: int, ok: bool, payload: str, cost_ms: float, time_passed: bool) -> None:
        """Answer a call without waiting for Node's receipt (NodeRuntime.post); a broken bridge drops the host and
        is kept in `broken` for the run's watch."""
        if self.number is not None and self.node is not None:
            try:
                self.node.post("answering a primitive", self._methods["settle"], self.number, call_id, ok, payload,
                               cost_ms, time_passed)
            except BridgeBroken as exc:
                self.number = None
                self.broken = str(exc)

    def close(self) -> None:
        """Close the host in Node, if its runtime still runs."""
        if self.number is not None:
            host, self.number = self.number, None
            node = self.node
            if node is not None and node.alive:
                try:
                    close = self._methods["close"]
                    node.call("closing the body", lambda: close(host, timeout=30))
                except BridgeBroken:
                    pass  # nothing left to close
