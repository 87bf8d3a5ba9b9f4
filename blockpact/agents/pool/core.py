"""What every pool backend shares: history, per-sender ordering, duplicate drop, subscriptions, listeners.

A backend hands every message it gets (its own and others') to `_accept`. Messages are delivered
in each sender's `seq` order: an early arrival waits for the ones before it, a repeated id or an
already delivered `seq` is dropped, and a gap nobody fills is skipped after `gap_hold_seconds`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable

from blockpact.agents.pool.message import Body, Message, MessageKind, check_name, normalize_recipients
from blockpact.agents.pool.settings import pool_settings
from blockpact.errors import UserError

log = logging.getLogger(__name__)

Listener = Callable[[Message], None]
Clock = Callable[[], float]


class PoolError(UserError):
    """The pool cannot go on (broker unreachable, a listener failed, used after close)."""


class Subscription:
    """Messages for one agent (and its teams) from the moment it subscribed; `async for` over it."""

    def __init__(self, agent: str, teams: frozenset[str], include_own: bool, overhear: bool = False) -> None:
        self.agent = agent
        self.teams = teams
        self.include_own = include_own
        self.overhear = overhear  # every message, whoever it is for (a graph of agents reads everything)
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue()
        self._closed = False

    def wants(self, message: Message) -> bool:
        if message.sender == self.agent and not self.include_own:
            return False
        return self.overhear or message.is_for(self.agent, self.teams)

    def _put(self, message: Message | None) -> None:
        if not self._closed:
            self._queue.put_nowait(message)

    async def get(self, timeout: float | None = None) -> Message:
        """The next message; TimeoutError after `timeout` seconds, PoolError once closed."""
        if self._closed and self._queue.empty():
            raise PoolError(f"the subscription of {self.agent} is closed")
        item = await asyncio.wait_for(self._queue.get(), timeout)
        if item is None:
            self._closed = True
            raise PoolError(f"the subscription of {self.agent} is closed")
        return item

    def pending(self) -> int:
        """Messages received and not yet read."""
        return self._queue.qsize()

    def close(self) -> None:
        self._put(None)

    def __aiter__(self) -> AsyncIterator[Message]:
        return self

    async def __anext__(self) -> Message:
        try:
            return await self.get()
        except PoolError:
            raise StopAsyncIteration from None


class MessagePool:
    """The shared message pool. Subclasses move messages between processes; this keeps the rules."""

    def __init__(self, *, clock: Clock = time.time, gap_hold_seconds: float | None = None) -> None:
        self.listeners: list[Listener] = []
        self._clock = clock
        self._gap_hold = pool_settings().pool.gap_hold_seconds if gap_hold_seconds is None else gap_hold_seconds
        self._history: list[Message] = []
        self._ids: set[str] = set()
        self._next_seq: dict[str, int] = {}
        self._held: dict[str, dict[int, Message]] = {}
        self._gap_timers: dict[str, asyncio.TimerHandle] = {}
        self._last_time: dict[str, float] = {}
        self._subscriptions: list[Subscription] = []
        self._members: dict[str, frozenset[str]] = {}
        self._failure: BaseException | None = None
        self._closed = False

    # -- the interface ------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and read the history so far; returns when the pool is ready to use."""

    async def publish(self, sender: str, to: str | Iterable[str], kind: MessageKind | str, body: Body) -> Message:
        """Send a message; returns it with its id, time and seq filled in."""
        self._check_usable()
        message = self._new_message(sender, to, kind, body)
        self._accept(message)
        await self._send(message)
        self._check_usable()
        return message

    def subscribe(self, agent: str, teams: Iterable[str] = (), *, include_own: bool = False, overhear: bool = False) -> Subscription:
        """Messages addressed to `agent` (by name, through one of `teams`, or to all) from now on;
        with `overhear`, every message in the pool."""
        self._check_usable()
        check_name(agent, "agent")
        team_set = frozenset(check_name(t, "team") for t in teams)
        subscription = Subscription(agent, team_set, include_own, overhear)
        self._subscriptions.append(subscription)
        self._set_member(agent, team_set)
        self._announce_member(agent, team_set)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        subscription.close()
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)

    def history(self, since: float | None = None, for_agent: str | None = None, teams: Iterable[str] | None = None) -> list[Message]:
        """Messages so far, oldest first: those at or after `since`, and if `for_agent` is given, those
        it sent or that were addressed to it (through `teams`, by default the teams it subscribed with)."""
        team_set = frozenset(teams) if teams is not None else self._members.get(for_agent or "", frozenset())
        selected = [
            m
            for m in self._history
            if (since is None or m.time >= since)
            and (for_agent is None or m.sender == for_agent or m.is_for(for_agent, team_set))
        ]
        return sorted(selected, key=lambda m: m.time)

    @property
    def members(self) -> dict[str, frozenset[str]]:
        """Every agent known to have subscribed, with its teams."""
        return dict(self._members)

    def team_members(self, team_name: str) -> list[str]:
        return sorted(agent for agent, teams in self._members.items() if team_name in teams)

    async def close(self) -> None:
        """Stop; subscriptions end. Raises the error of a failed listener, if any."""
        if self._closed:
            return
        self._closed = True
        for timer in self._gap_timers.values():
            timer.cancel()
        for subscription in self._subscriptions:
            subscription.close()
        if self._failure is not None:
            raise PoolError(f"a message pool listener failed: {self._failure!r}") from self._failure

    async def __aenter__(self) -> MessagePool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- what backends provide ------------------------------------------------------------------

    async def _send(self, message: Message) -> None:
        """Move a message this pool created to the other members (nothing to do in-process)."""

    def _announce_member(self, agent: str, teams: frozenset[str]) -> None:
        """Tell other members that `agent` belongs to `teams` (nothing to do in-process)."""

    # -- the rules ------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self._failure is not None:
            raise PoolError(f"a message pool listener failed: {self._failure!r}") from self._failure
        if self._closed:
            raise PoolError("the message pool is closed")

    def _new_message(self, sender: str, to: str | Iterable[str], kind: MessageKind | str, body: Body) -> Message:
        check_name(sender, "sender")
        held = self._held.get(sender, {})
        seq = max([self._next_seq.get(sender, 1), *(s + 1 for s in held)])
        # A sender's times never go backwards, so sorting by time keeps its order.
        now = max(float(self._clock()), self._last_time.get(sender, float("-inf")))
        return Message(uuid.uuid4().hex, now, sender, normalize_recipients(to), kind, body, seq)  # type: ignore[arg-type]

    def _set_member(self, agent: str, teams: frozenset[str]) -> None:
        self._members[agent] = self._members.get(agent, frozenset()) | teams

    def _accept(self, message: Message) -> None:
        """Deliver in per-sender order; drop duplicates; hold early arrivals until their turn."""
        if message.id in self._ids:
            return
        sender = message.sender
        expected = self._next_seq.get(sender, 1)
        if message.seq < expected:
            log.warning("dropped message %s from %s: seq %d was already delivered or skipped", message.id, sender, message.seq)
            return
        if message.seq > expected:
            self._held.setdefault(sender, {}).setdefault(message.seq, message)
            if sender not in self._gap_timers and self._gap_hold > 0:
                self._gap_timers[sender] = asyncio.get_running_loop().call_later(self._gap_hold, self._skip_gap, sender)
            return
        self._deliver(message)
        held = self._held.get(sender, {})
        while self._next_seq[sender] in held:
            self._deliver(held.pop(self._next_seq[sender]))
        if not held:
            self._held.pop(sender, None)
            timer = self._gap_timers.pop(sender, None)
            if timer is not None:
                timer.cancel()

    def _skip_gap(self, sender: str) -> None:
        """Release a sender's held messages past a gap nobody filled."""
        self._gap_timers.pop(sender, None)
        held = self._held.pop(sender, {})
        if not held:
            return
        first = min(held)
        log.warning("messages %d..%d from %s never arrived; delivering the later ones", self._next_seq.get(sender, 1), first - 1, sender)
        self._next_seq[sender] = first
        for seq in sorted(held):
            self._accept(held[seq])

    def _skip_all_gaps(self) -> None:
        for sender in list(self._held):
            timer = self._gap_timers.pop(sender, None)
            if timer is not None:
                timer.cancel()
            self._skip_gap(sender)

    def _deliver(self, message: Message) -> None:
        self._ids.add(message.id)
        self._next_seq[message.sender] = message.seq + 1
        self._last_time[message.sender] = max(message.time, self._last_time.get(message.sender, float("-inf")))
        self._history.append(message)
        for listener in list(self.listeners):
            try:
                listener(message)
            except Exception as exc:  # the run must stop, but the pool's own tasks must not die mid-message
                log.exception("message pool listener %r failed on message %s", listener, message.id)
                if self._failure is None:
                    self._failure = exc
        for subscription in self._subscriptions:
            if subscription.wants(message):
                subscription._put(message)

