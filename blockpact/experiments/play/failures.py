"""Why a (condition, seed) unit failed: one cause class per failure, so a report can say "3 seeds failed:
the LLM endpoint" instead of scoring an outage as an outcome.

A failed unit is not a result: it has no welfare and no Gini. What the agents themselves do wrong (no
usable program, a program that throws, a negotiation turn out of format) is an outcome, counted per
player and kind (`agent_errors`), never a failed unit.

Causes:
- `endpoint`: an agent could not get an answer from its LLM (after the client's retries and the
  agent's own re-asks): rate limits, server errors, time-outs, malformed bodies, nothing listening;
- `server`: the Minecraft server died or could not be played on;
- `bridge`: the Node runtime or a bot's connection to it failed;
- `world`: the world could not be built or its rules could not be applied;
- `budget`: a spending limit (tokens, money, time) stopped the unit;
- `human`: the person in a `human` slot did not join (or left) within the bound;
- `internal`: anything else (a bug on blockpact's side; the traceback is in the log).
"""

from __future__ import annotations

from dataclasses import dataclass

CAUSES = ("endpoint", "server", "bridge", "world", "budget", "human", "internal")


class UnitFailure(Exception):
    """Raised by any layer that knows why the unit cannot go on; `cause` is one of CAUSES."""

    def __init__(self, cause: str, message: str) -> None:
        if cause not in CAUSES:
            raise ValueError(f"unknown failure cause {cause!r} (one of {', '.join(CAUSES)})")
        super().__init__(message)
        self.cause = cause


# Exception class names per cause, for layers this module must not import (bridge, live server).
_BY_NAME = {
    "EpisodeFailed": "server",
    "LLMBudgetSpent": "budget",
    "HumanAbsent": "human",
    "ServerError": "server",
    "BotError": "bridge",
    "BridgeBroken": "bridge",
    "WorldBuildError": "world",
    "PluginMissing": "world",
    "UnsupportedCommand": "world",
    "WorldSpecError": "world",
    "RuleError": "world",
}


@dataclass(frozen=True)
class Failure:
    cause: str
    message: str  # `Type: message`, the first line a reader sees


def classify(exc: BaseException) -> Failure:
    """The cause class of an exception that ended a unit."""
    from blockpact.llm.errors import LLMConfigError, LLMError

    message = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, UnitFailure):
        return Failure(exc.cause, str(exc))
    if isinstance(exc, (LLMError, LLMConfigError)):
        return Failure("endpoint", message)
    for cls in type(exc).__mro__:
        if cls.__name__ in _BY_NAME:
            return Failure(_BY_NAME[cls.__name__], message)
    if type(exc).__module__.split(".")[0] == "javascript" or _raised_in(exc, "javascript"):
        return Failure("bridge", message)  # JSPyBridge (its errors are often plain Exceptions): Node failed or hung
    return Failure("internal", message)


def _raised_in(exc: BaseException, package: str) -> bool:
    """Whether the innermost frame of `exc`'s traceback belongs to `package`."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", "")).split(".")[0] == package
