"""How a simulated program run's report from Node becomes its `ProgramResult`: the error said in the simulator's
terms (a cut-off run's reason, a compute budget in seconds, the program line), and the chat it said while it ran."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.sim.run_state import Run
from blockpact.worlds.sim.simulator import Simulation

MAX_RESULT_CHAT = 1000  # chat lines (the program's and the primitives' feedback) kept in a ProgramResult


def program_result(sim: Simulation, player: str, run: Run, raw: dict[str, Any], compute_budget: float,
                   observation: dict[str, Any]) -> ProgramResult:
    """`player`'s result of `run`, which Node reported as `raw` (or Python gave up on: see Run.cancel_reason)."""
    error, timed_out = raw.get("error"), False
    line = raw.get("errorLine")
    failure, limit = (None, None) if raw.get("success") else (raw.get("kind") or "program", raw.get("limit"))
    if run.cancel_reason is not None:  # no stack: the program's own last error is not the reported one
        error, timed_out, line, raw["stack"] = run.cancel_reason, True, None, None
        failure, limit = run.cancel_kind, run.cancel_limit
    elif error == f"timed out after {run.compute_budget_ms} ms of computing time":
        error, timed_out = (f"timed out after {compute_budget:g} s of computing time without simulated time "
                            "passing (does the program loop without awaiting a primitive that takes time?)"), True
        limit = "compute_budget_seconds"
    elif error and line is not None and not error.startswith("SyntaxError"):
        error = f"{error} (program line {line})"
    said = [e.data for e in sim.state.log.events[run.first_event :] if e.kind == "chat" and e.agent == player]
    chat = [d["message"] for d in said]
    sources = [str(d.get("source", "program")) for d in said]
    if len(chat) > MAX_RESULT_CHAT:  # the event log keeps every line
        chat = [*chat[:MAX_RESULT_CHAT], f"[{len(chat) - MAX_RESULT_CHAT} more chat lines in the event log]"]
        sources = [*sources[:MAX_RESULT_CHAT], "primitive"]
    return ProgramResult(
        player=player,
        success=bool(raw.get("success")) and run.cancel_reason is None,
        error=error,
        error_line=line,
        stack=raw.get("stack"),
        chat=chat,
        chat_sources=sources,
        logs=list(raw.get("logs") or []),
        observation=observation,
        duration=round(sim.now - run.started, 6),
        timed_out=timed_out,
        failure=failure,
        limit=limit,
    )
