"""The message pool's rules, run alike on the in-process pool and on MQTT pools through real brokers."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from blockpact.agents.broker import LocalBroker, amqtt_available, mosquitto_binary
from blockpact.agents.pool import InProcessPool, Message, MessageError, MessagePool, PoolError, open_pool, team
from blockpact.agents.pool.mqtt import MqttPool

BACKENDS = ["memory", "mosquitto", "amqtt"]


@pytest.fixture(scope="module")
def brokers() -> dict[str, LocalBroker]:
    started: dict[str, LocalBroker] = {}
    yield started
    for broker in started.values():
        broker.close()


class Members:
    """Pool members as separate processes would have them: one MqttPool per node, or one shared in-process pool."""

    def __init__(self, kind: str, url: str | None) -> None:
        self.kind = kind
        self.url = url
        self.pools: list[MessagePool] = []

    async def join(self, node: str) -> MessagePool:
        if self.kind == "memory":
            if not self.pools:
                self.pools.append(InProcessPool())
            return self.pools[0]
        pool = open_pool(self.url, node=node)
        await pool.start()
        self.pools.append(pool)
        return pool

    async def flush(self) -> None:
        for pool in self.pools:
            if isinstance(pool, MqttPool):
                await pool.flush(5)


@pytest_asyncio.fixture(params=BACKENDS)
async def members(request: pytest.FixtureRequest, brokers: dict[str, LocalBroker]) -> AsyncIterator[Members]:
    kind = request.param
    url = None
    if kind == "mosquitto" and mosquitto_binary() is None:
        pytest.skip("mosquitto is not installed (make test installs it with apt-get)")
    if kind == "amqtt" and not amqtt_available():
        pytest.skip("amqtt is not installed")
    if kind != "memory":
        if kind not in brokers:
            brokers[kind] = LocalBroker(kind=kind).start()
        url = f"{brokers[kind].url}/t{uuid.uuid4().hex[:12]}"
    group = Members(kind, url)
    yield group
    for pool in group.pools:
        await pool.close()


async def drain(subscription, count: int, timeout: float = 5) -> list[Message]:
    return [await subscription.get(timeout) for _ in range(count)]


async def assert_nothing_more(subscription, wait: float = 0.3) -> None:
    with pytest.raises(TimeoutError):
        await subscription.get(wait)


@pytest.mark.asyncio
async def test_recipients_agent_team_and_all(members: Members) -> None:
    leader = await members.join("leader")
    worker = await members.join("worker")
    bob = worker.subscribe("Bob", teams=["miners"])
    carl = worker.subscribe("Carl")
    await leader.publish("Ada", "Bob", "command", "mine 3 iron_ore")
    await leader.publish("Ada", team("miners"), "command", {"task": "collect-logs", "amount": 5})
    await leader.publish("Ada", "Carl", "chat", "hello Carl")
    await leader.publish("Ada", "all", "signal", "start")
    await leader.publish("Bob", "all", "report", "Bob does not hear himself")

    got_bob = await drain(bob, 3)
    assert [(m.sender, m.kind, m.body) for m in got_bob] == [
        ("Ada", "command", "mine 3 iron_ore"),
        ("Ada", "command", {"task": "collect-logs", "amount": 5}),
        ("Ada", "signal", "start"),
    ]
    got_carl = await drain(carl, 3)
    assert [m.body for m in got_carl] == ["hello Carl", "start", "Bob does not hear himself"]
    await assert_nothing_more(bob)
    await assert_nothing_more(carl)


@pytest.mark.asyncio
async def test_per_sender_order_under_concurrency(members: Members) -> None:
    senders = ["Ada", "Ben", "Cy"]
    pools = {name: await members.join(f"node-{name}") for name in senders}
    reader_pool = await members.join("reader")
    reader = reader_pool.subscribe("Zed")
    per_sender = 60

    async def talk(name: str) -> None:
        for i in range(per_sender):
            await pools[name].publish(name, "all", "chat", f"{name} {i}")
            if i % 7 == 0:
                await asyncio.sleep(0)

    await asyncio.gather(*(talk(name) for name in senders))
    got = await drain(reader, per_sender * len(senders), timeout=10)
    for name in senders:
        bodies = [m.body for m in got if m.sender == name]
        assert bodies == [f"{name} {i}" for i in range(per_sender)]
        assert [m.seq for m in got if m.sender == name] == list(range(1, per_sender + 1))
    assert len({m.id for m in got}) == len(got)
    await assert_nothing_more(reader)


@pytest.mark.asyncio
async def test_late_joiner_reads_the_history_it_needs(members: Members) -> None:
    leader = await members.join("leader")
    leader.subscribe("Ada")
    worker_pool = await members.join("worker")
    worker_pool.subscribe("Bob", teams=["builders"])
    await leader.publish("Ada", "Bob", "command", "build the walls")
    await leader.publish("Ada", team("builders"), "command", "roof next")
    await leader.publish("Ada", "Carl", "command", "for Carl only")
    await worker_pool.publish("Bob", "Ada", "report", {"status": "started"})
    await members.flush()
    await asyncio.sleep(0.1)  # in-flight deliveries to the other members

    late = await members.join("late")
    everything = late.history()
    assert [(m.sender, m.seq) for m in everything if m.sender == "Ada"] == [("Ada", 1), ("Ada", 2), ("Ada", 3)]
    assert len(everything) == 4
    assert late.members["Bob"] == frozenset({"builders"})
    for_bob = late.history(for_agent="Bob")
    assert [m.body for m in for_bob] == ["build the walls", "roof next", {"status": "started"}]
    cutoff = everything[1].time
    assert [m.id for m in late.history(since=cutoff)] == [m.id for m in everything if m.time >= cutoff]
    # The late joiner continues a sender's numbering rather than restarting it.
    if members.kind != "memory":
        mine = await late.publish("Ada", "Bob", "chat", "Ada again, from another process")
        assert mine.seq == 4


@pytest.mark.asyncio
async def test_listeners_see_every_message_once(members: Members) -> None:
    leader = await members.join("leader")
    worker = await members.join("worker")
    lines: list[str] = []
    worker.listeners.append(lambda m: lines.append(json.dumps(m.to_json())))
    await leader.publish("Ada", "Bob", "command", "go")
    await worker.publish("Bob", "Ada", "report", "going")
    await leader.publish("Ada", "team:x", "chat", "not for Bob, still in the log")
    await members.flush()
    for _ in range(50):
        if len(lines) >= 3:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.1)
    assert sorted(json.loads(line)["body"] for line in lines) == ["go", "going", "not for Bob, still in the log"]


@pytest.mark.asyncio
async def test_failing_listener_stops_the_pool_cleanly() -> None:
    pool = InProcessPool()

    def broken(message: Message) -> None:
        raise OSError("disk full")

    pool.listeners.append(broken)
    with pytest.raises(PoolError, match="disk full"):
        await pool.publish("Ada", "Bob", "chat", "hi")
    with pytest.raises(PoolError, match="disk full"):
        await pool.close()


@pytest.mark.asyncio
async def test_duplicates_dropped_and_early_arrivals_wait_for_their_turn() -> None:
    pool = InProcessPool(gap_hold_seconds=5)
    bob = pool.subscribe("Bob")
    first = Message("id-1", 1.0, "Ada", ("Bob",), "chat", "one", 1)
    second = Message("id-2", 2.0, "Ada", ("Bob",), "chat", "two", 2)
    third = Message("id-3", 3.0, "Ada", ("Bob",), "chat", "three", 3)
    for message in (third, first, first, second, third, second):
        pool._accept(message)
    assert [m.body for m in await drain(bob, 3)] == ["one", "two", "three"]
    await assert_nothing_more(bob, 0.05)
    assert [m.id for m in pool.history()] == ["id-1", "id-2", "id-3"]


@pytest.mark.asyncio
async def test_a_gap_nobody_fills_is_skipped_after_the_hold() -> None:
    pool = InProcessPool(gap_hold_seconds=0.1)
    bob = pool.subscribe("Bob")
    pool._accept(Message("id-3", 3.0, "Ada", ("Bob",), "chat", "three", 3))
    pool._accept(Message("id-4", 4.0, "Ada", ("Bob",), "chat", "four", 4))
    await assert_nothing_more(bob, 0.05)
    assert [m.body for m in await drain(bob, 2, timeout=1)] == ["three", "four"]
    late = Message("id-1", 1.0, "Ada", ("Bob",), "chat", "one, too late", 1)
    pool._accept(late)
    await assert_nothing_more(bob, 0.05)
    assert (await pool.publish("Ada", "Bob", "chat", "five")).seq == 5


@pytest.mark.asyncio
async def test_a_senders_times_never_go_backwards() -> None:
    times = iter([10.0, 5.0, 12.0])
    pool = InProcessPool(clock=lambda: next(times))
    sent = [await pool.publish("Ada", "all", "chat", str(i)) for i in range(3)]
    assert [m.time for m in sent] == [10.0, 10.0, 12.0]
    assert [m.body for m in pool.history()] == ["0", "1", "2"]


@pytest.mark.asyncio
async def test_closed_pool_refuses_and_ends_subscriptions() -> None:
    pool = InProcessPool()
    sub = pool.subscribe("Bob")
    await pool.close()
    assert [m async for m in sub] == []
    with pytest.raises(PoolError, match="closed"):
        await pool.publish("Ada", "Bob", "chat", "late")


def test_message_json_round_trip() -> None:
    message = Message("abc", 1.5, "Ada", ("Bob", "team:red"), "report", {"inventory": {"oak_log": 3}}, 7)
    data = json.loads(message.to_bytes())
    assert data == {
        "id": "abc",
        "time": 1.5,
        "sender": "Ada",
        "recipients": ["Bob", "team:red"],
        "kind": "report",
        "body": {"inventory": {"oak_log": 3}},
        "seq": 7,
    }
    assert Message.from_json(data) == message
    assert message.is_for("Bob") and message.is_for("Cy", ["red"]) and not message.is_for("Cy", ["blue"])


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"sender": "a/b"}, r"sender 'a/b' is not a valid name"),
        ({"sender": "all"}, r"sender may not be named 'all'"),
        ({"recipients": []}, r"recipients are empty"),
        ({"recipients": ["all", "Bob"]}, r"'all' already addresses everyone"),
        ({"recipients": ["team:"]}, r"team '' is not a valid name"),
        ({"recipients": "Bob"}, r"recipients must be a list"),
        ({"kind": "gossip"}, r"kind 'gossip' is not one of: chat, command, report, signal, system"),
        ({"body": ["a"]}, r"body must be a string or a JSON object, not list"),
        ({"body": {"x": float("nan")}}, r"body is not JSON-serialisable"),
        ({"seq": 0}, r"seq must be a positive integer"),
        ({"time": "noon"}, r"time must be a number"),
        ({"id": ""}, r"id must be a non-empty string"),
        ({"extra": 1}, r"unknown fields: extra"),
    ],
)
def test_malformed_messages_are_rejected_precisely(change: dict, error: str) -> None:
    data = {"id": "x", "time": 0.0, "sender": "Ada", "recipients": ["Bob"], "kind": "chat", "body": "hi", "seq": 1}
    data.update(change)
    with pytest.raises(MessageError, match=error):
        Message.from_json(data)


def test_missing_fields_and_non_json_payloads() -> None:
    with pytest.raises(MessageError, match="message lacks kind, seq"):
        Message.from_json({"id": "x", "time": 0, "sender": "Ada", "recipients": ["Bob"], "body": ""})
    with pytest.raises(MessageError, match="not JSON"):
        Message.from_bytes(b"{nope")


@pytest.mark.asyncio
async def test_publish_validates_before_anything_is_sent() -> None:
    pool = InProcessPool()
    seen: list[Message] = []
    pool.listeners.append(seen.append)
    with pytest.raises(MessageError, match="kind 'shout'"):
        await pool.publish("Ada", "Bob", "shout", "HEY")
    with pytest.raises(MessageError, match="agent 'a b'"):
        pool.subscribe("a b")
    assert seen == [] and pool.history() == []
    assert (await pool.publish("Ada", "Bob", "chat", "ok")).seq == 1


@pytest.mark.asyncio
async def test_pools_sharing_a_broker_do_not_hear_each_other(members: Members) -> None:
    first = await members.join("leader")
    await first.publish("Ada", "all", "chat", "in the first pool")
    await members.flush()
    other = Members(members.kind, members.url and members.url.rsplit("/", 1)[0] + f"/t{uuid.uuid4().hex[:12]}")
    try:
        second = await other.join("leader")
        listening = second.subscribe("Bob")
        assert second.history() == []
        assert (await second.publish("Ada", "all", "chat", "in the second pool")).seq == 1
        assert (await listening.get(5)).body == "in the second pool"
        await first.publish("Ada", "all", "chat", "first again")
        await members.flush()
        await assert_nothing_more(listening)
        assert [m.body for m in second.history()] == ["in the second pool"]
    finally:
        for pool in other.pools:
            await pool.close()
