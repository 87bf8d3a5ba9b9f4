"""Bounds on what a simulated program may ask (live: `bridge/js/mineflayer/primitives/bounds.js`): tick waits
in ticks, text arguments of a bounded length, and no endless calls at one instant of simulated time."""

from __future__ import annotations

import math
from typing import Any

from blockpact.bridge.sim.common import Handler, number
from blockpact.worlds.rules.game import TICKS_PER_SECOND
from blockpact.worlds.sim.primitives import AgentAPI, PrimitiveError

MAX_ARG_STRING = 1000  # characters of a text argument of a primitive: it may reappear in feedback and the event log


async def _wait_for_ticks(api: AgentAPI, args: list[Any]) -> None:
    ticks = number(args[0] if args else None, "ticks for bot.waitForTicks must be a number")
    await api.wait(math.ceil(max(ticks, 0.0)) / TICKS_PER_SECOND)


# Awaited bot methods (primitives.toml [bot.*] kind "call"), as the runner forwards them.
BOT_CALLS: dict[str, Handler] = {"bot.waitForTicks": _wait_for_ticks}


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((max(len(str(k)), _longest_string(v)) for k, v in value.items()), default=0)
    if isinstance(value, list | tuple):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def check_text_arguments(name: str, args: list[Any]) -> None:
    if _longest_string(args) > MAX_ARG_STRING:
        raise PrimitiveError(f"{name}: a text argument is longer than {MAX_ARG_STRING} characters (names, tasks and "
                             f"messages are short; limit MAX_ARG_STRING)")


class InstantCounter:
    """Simulated time that never moves is no progress: a program repeating primitives that take no time
    (e.g. mining a block that is not there) is stopped after `limit` of them (max_calls_per_instant)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.instant = -1.0
        self.calls = 0

    def count(self, now: float) -> str | None:
        """Count one call at `now`; the reason to stop the program when that is one too many."""
        if now != self.instant:
            self.instant, self.calls = now, 0
        self.calls += 1
        if self.calls > self.limit:
            return (f"stalled: {self.limit} primitive calls without simulated time passing "
                    f"(limit max_calls_per_instant; is the program retrying something that cannot succeed?)")
        return None
