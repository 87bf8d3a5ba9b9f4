"""The MQTT pool: agents in other processes or on other machines share one pool through a broker.

Topics, under `<topic_root>/<pool>/`:
- `m/<sender>/<seq>`: one retained topic per message (QoS 1). Live members get it as it is
  published; a member that joins later gets every retained message when it subscribes, so the
  broker's retained store *is* the pool's history (a late joiner reads it, no member has to serve it).
- `members/<agent>`: retained JSON list of the agent's teams, so `history(for_agent=...)` and team
  lookups work in every process.
- `sync/<node>`: a marker this member publishes to itself after subscribing. The broker sends the
  retained messages before it, so when the marker comes back the history is complete.

Each process connects as one client with a fixed id (`blockpact-<pool>-<node>`) and a persistent
session (clean_session false), so the broker queues what arrives while it is away. Outgoing
messages go through an outbox, one at a time, each kept until the broker acknowledges it: while the
broker is down they wait, and after reconnecting they go out in order. A message re-sent after a
lost acknowledgement arrives twice and is dropped by id. On a broker restart, subscriptions,
queued messages and retained history survive if the broker persists them (`blockpact broker`
starts mosquitto with persistence on; amqtt keeps them only in memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import aiomqtt
from aiomqtt.exceptions import MqttConnectError

from blockpact.agents.pool.core import Clock, MessagePool, PoolError
from blockpact.agents.pool.message import Body, Message, MessageError, MessageKind, check_name
from blockpact.agents.pool.settings import MqttSettings, pool_settings
from blockpact.agents.pool.url import BrokerURL

log = logging.getLogger(__name__)
CONNECTION_ERRORS = (aiomqtt.MqttError, OSError, TimeoutError)
# CONNACK codes for "bad username or password" and "not authorized", MQTT 3.1.1 and 5.
REFUSED_CONNECT_CODES = frozenset({4, 5, 134, 135})


@dataclass(frozen=True)
class Outgoing:
    topic: str
    payload: bytes
    retain: bool


def refused_credentials(error: BaseException | None) -> bool:
    """Whether the broker turned the username/password (or the client) away: retrying will not help."""
    if isinstance(error, BaseExceptionGroup):
        return any(refused_credentials(e) for e in error.exceptions)
    if not isinstance(error, MqttConnectError):
        return False
    return int(getattr(error.rc, "value", error.rc)) in REFUSED_CONNECT_CODES


def describe(exc: BaseException | None) -> str:
    if exc is None:
        return "no answer"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


class MqttPool(MessagePool):
    """A pool member connected to an MQTT broker; `node` names this process among the members."""

    def __init__(
        self,
        url: str | BrokerURL,
        *,
        node: str,
        clock: Clock = time.time,
        settings: MqttSettings | None = None,
        gap_hold_seconds: float | None = None,
    ) -> None:
        super().__init__(clock=clock, gap_hold_seconds=gap_hold_seconds)
        self.url = url if isinstance(url, BrokerURL) else BrokerURL.parse(url)
        self.node = check_name(node, "node")
        self.settings = settings or pool_settings().mqtt
        self.pool_name = self.url.pool or self.settings.default_pool
        self.client_id = f"blockpact-{self.pool_name}-{self.node}"
        self.connections = 0  # successful connections so far; more than one means it reconnected
        self._root = f"{self.settings.topic_root}/{self.pool_name}"
        self._outbox: deque[Outgoing] = deque()
        self._outbox_ready = asyncio.Event()
        self._drained = asyncio.Event()
        self._drained.set()
        self._joined = asyncio.Event()
        self._sync_waiters: dict[str, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._last_error: BaseException | None = None
        self._connected = False

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def buffered(self) -> int:
        """Outgoing messages the broker has not acknowledged yet."""
        return len(self._outbox)

    async def start(self) -> None:
        """Connect and read the pool's history; PoolError if the broker does not answer in time."""
        self._check_usable()
        if self._task is not None:
            return
        self._task = asyncio.create_task(self._run(), name=f"mqtt pool {self.client_id}")
        joined = asyncio.create_task(self._joined.wait())
        timeout = self.settings.connect_timeout_seconds
        await asyncio.wait({self._task, joined}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if self._joined.is_set():
            return
        joined.cancel()
        self._check_usable()
        await self._stop_task()
        raise PoolError(f"cannot reach the MQTT broker at {self.url} within {timeout:g} s ({describe(self._last_error)})")

    async def flush(self, timeout: float | None = None) -> None:
        """Wait until the broker has acknowledged every message published so far."""
        try:
            await asyncio.wait_for(self._drained.wait(), timeout)
        except TimeoutError:
            raise PoolError(
                f"{self.buffered} message(s) not yet acknowledged by the MQTT broker at {self.url} after {timeout:g} s "
                f"({describe(self._last_error)})"
            ) from None

    async def close(self) -> None:
        if self._closed:
            return
        if self._task is not None and not self._task.done():
            try:
                await self.flush(self.settings.close_flush_seconds)
            except PoolError as exc:
                log.warning("closing anyway: %s", exc)
        await self._stop_task()
        await super().close()

    # -- backend hooks ----------------------------------------------------------------------------

    async def publish(self, sender: str, to: str | Iterable[str], kind: MessageKind | str, body: Body) -> Message:
        """Buffered: returns once the message is delivered locally and queued for the broker (see `flush`)."""
        if self._task is None:
            raise PoolError("start() the MQTT pool before publishing: a sender's numbering continues its history")
        return await super().publish(sender, to, kind, body)

    async def _send(self, message: Message) -> None:
        self._enqueue(Outgoing(f"{self._root}/m/{message.sender}/{message.seq:09d}", message.to_bytes(), retain=True))

    def _announce_member(self, agent: str, teams: frozenset[str]) -> None:
        payload = json.dumps(sorted(self._members.get(agent, teams))).encode()
        self._enqueue(Outgoing(f"{self._root}/members/{agent}", payload, retain=True))

    def _check_usable(self) -> None:
        super()._check_usable()
        task = self._task
        if task is not None and task.done() and not task.cancelled() and task.exception() is not None:
            if isinstance(task.exception(), PoolError):
                raise task.exception()  # type: ignore[misc]
            raise PoolError(f"the MQTT pool stopped: {describe(task.exception())}") from task.exception()

    # -- the connection ---------------------------------------------------------------------------

    def _enqueue(self, item: Outgoing) -> None:
        self._outbox.append(item)
        self._drained.clear()
        self._outbox_ready.set()

    async def _stop_task(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self) -> None:
        """Stay connected: connect, subscribe, sync, then send the outbox; on any break, back off and retry."""
        delay = self.settings.reconnect_min_seconds
        while True:
            try:
                async with aiomqtt.Client(
                    self.url.host,
                    self.url.port,
                    username=self.url.username,
                    password=self.url.password,
                    identifier=self.client_id,
                    clean_session=False,
                    keepalive=self.settings.keepalive_seconds,
                    timeout=self.settings.ack_timeout_seconds,
                    logger=log.getChild("client"),
                    # Small request-response packets: Nagle's algorithm would hold each for a delayed ACK.
                    socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
                ) as client:
                    self._connected = True
                    self.connections += 1
                    delay = self.settings.reconnect_min_seconds
                    log.info("connected to %s as %s", self.url, self.client_id)
                    await self._serve(client)
            except* CONNECTION_ERRORS as group:
                self._last_error = group
                log.warning("MQTT connection to %s lost or refused (%s); retrying in %g s", self.url, describe(group), delay)
            finally:
                self._connected = False
            if not self._joined.is_set() and refused_credentials(self._last_error):
                raise PoolError(f"the MQTT broker at {self.url} refused this client: {describe(self._last_error)}")
            await asyncio.sleep(delay)
            delay = min(2 * delay, self.settings.reconnect_max_seconds)

    async def _serve(self, client: aiomqtt.Client) -> None:
        qos = self.settings.qos
        await client.subscribe(f"{self._root}/m/#", qos)
        await client.subscribe(f"{self._root}/members/#", qos)
        await client.subscribe(f"{self._root}/sync/{self.node}", qos)
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self._read(client))
            await self._sync(client)
            self._skip_all_gaps()  # the history is complete: a gap left now will never be filled
            self._joined.set()
            await self._drain(client)

    async def _sync(self, client: aiomqtt.Client) -> None:
        nonce = uuid.uuid4().hex
        arrived: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sync_waiters[nonce] = arrived
        try:
            await client.publish(f"{self._root}/sync/{self.node}", nonce.encode(), self.settings.qos)
            await asyncio.wait_for(arrived, self.settings.connect_timeout_seconds)
        finally:
            self._sync_waiters.pop(nonce, None)

    async def _drain(self, client: aiomqtt.Client) -> None:
        while True:
            while not self._outbox:
                self._drained.set()
                self._outbox_ready.clear()
                await self._outbox_ready.wait()
            item = self._outbox[0]
            await client.publish(item.topic, item.payload, self.settings.qos, item.retain)
            self._outbox.popleft()

    async def _read(self, client: aiomqtt.Client) -> None:
        async for received in client.messages:
            payload = received.payload if isinstance(received.payload, bytes) else str(received.payload or "").encode()
            self._handle(received.topic.value, payload)

    def _handle(self, topic: str, payload: bytes) -> None:
        prefix = self._root + "/"
        if not topic.startswith(prefix):
            # amqtt 0.12 sends a connecting client the retained messages of every client's subscriptions.
            log.debug("ignored a message on %s: not in this pool", topic)
            return
        kind, _, rest = topic[len(prefix) :].partition("/")
        if not payload:
            return  # a cleared retained topic
        if kind == "m":
            try:
                message = Message.from_bytes(payload)
            except MessageError as exc:
                log.warning("ignored a malformed message on %s: %s", topic, exc)
                return
            self._accept(message)
        elif kind == "members":
            try:
                teams = json.loads(payload)
                self._set_member(check_name(rest, "agent"), frozenset(check_name(t, "team") for t in teams))
            except (ValueError, TypeError) as exc:
                log.warning("ignored a malformed member record on %s: %s", topic, exc)
        elif kind == "sync":
            waiter = self._sync_waiters.get(payload.decode(errors="replace"))
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
