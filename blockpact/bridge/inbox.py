"""An agent's inbox (a message pool subscription) as the worlds' agent sessions read it: the `Inbox` protocol
and the wait for the next message in wall-clock seconds, which the simulated and the live sessions share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Inbox(Protocol):
    """What `AgentSession.wait_message` reads: a pool subscription."""

    def pending(self) -> int: ...

    async def get(self, timeout: float | None = None) -> Any: ...


async def next_message(inbox: Inbox, timeout: float, check: Callable[[], None]) -> Any | None:
    """The next message of `inbox`, or None after `timeout` wall seconds. `check` raises when the agent's episode
    is over: it runs before the wait and after it, whether a message came or not."""
    check()
    try:
        return await inbox.get(timeout)
    except TimeoutError:
        return None
    finally:
        check()
