"""Logging bots in: a few at a time, each join within a bound that follows the machine's load, tried again when
it fails.

A server logs players in one after another, and each join costs it more the more players it already holds (it
sends every other player's entity both ways). 128 bots started at once on one embedded server left the last
of them waiting past any fixed bound (101 of 128 joined, `bench/live_scale.py --bots 128`); queued, they join one
after another.
A join waiting for its turn is not timed; a join under way is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.machine_load import load_per_core

JOIN_SECONDS_PER_BOT = 0.5  # the server logs bots in one after another: 64 at once took 22-26 s on an idle machine


def join_timeout(joining: int = 1) -> float:
    """live.toml's spawn_timeout scaled by the machine's load per core (a busy machine joins slower), and
    JOIN_SECONDS_PER_BOT more for each other bot of the world joining meanwhile: the load average lags a minute
    behind, so on a machine idle until then the last of 64 bots logging in at once neared the 30 s bound."""
    return live_settings().bots.spawn_timeout * load_per_core() + JOIN_SECONDS_PER_BOT * max(0, joining - 1)


class JoinQueue:
    """At most live.toml's join_concurrency joins of one Node runtime's bots under way at once."""

    def __init__(self) -> None:
        self._slots = asyncio.Semaphore(live_settings().bots.join_concurrency)
        self.joining = 0  # joins under way (holding a slot)

    async def join(self, attempt: Callable[[float], Awaitable[str | None]]) -> str | None:
        """Wait for a slot, then call `attempt(spawn timeout)` (None: joined, else why not) until it joins, at
        most join_attempts times, a short pause between; None, or the last reason with the count of attempts."""
        attempts = live_settings().bots.join_attempts
        async with self._slots:
            self.joining += 1
            try:
                for tried in range(1, attempts + 1):
                    error = await attempt(join_timeout(self.joining))
                    if error is None:
                        return None
                    if tried < attempts:
                        await asyncio.sleep(min(5.0, float(tried)))
            finally:
                self.joining -= 1
        return f"{error} ({attempts} attempts)" if attempts > 1 else error
