"""The simulator body's side of its SimHost in Node (bridge/js/sim/sim_host.js): the runner configuration it is made
with, and the host's functions. A host is a number naming it in Node, and its functions are fetched once per runtime:
each attribute of a bridge proxy is a round trip, and fetching four methods per body cost 256 players over a second
before the first program ran."""

from __future__ import annotations

import weakref
from typing import Any

from blockpact.bridge.runtime import JS_DIR, NodeRuntime
from blockpact.bridge.sim.index import HOST_CALLS
from blockpact.bridge.sim.world_view import WorldView
from blockpact.skills.reference import primitives, runner_bot_calls, runner_queries, sandbox_limits

SIM_JS_DIR = JS_DIR / "sim"  # the sim body's Node side
SIM_HOST_JS = SIM_JS_DIR / "sim_host.js"
SIM_PRELUDE_JS = SIM_JS_DIR / "sim_prelude.js"
HOST_FUNCTIONS = ("createSimHost", "start", "settle", "cancel", "ping", "close")

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
