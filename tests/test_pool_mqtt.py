"""What only the MQTT pool has to survive: broker restarts, repeated deliveries on the wire, passwords, no broker."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid

import aiomqtt
import pytest

from blockpact.agents.broker import Credentials, LocalBroker, free_port, mosquitto_binary
from blockpact.agents.pool import BrokerURL, Message, PoolError, redact
from blockpact.agents.pool.mqtt import MqttPool
from blockpact.agents.pool.settings import pool_settings

needs_mosquitto = pytest.mark.skipif(mosquitto_binary() is None, reason="mosquitto is not installed (make test installs it)")


def pool_url(broker: LocalBroker) -> str:
    return f"{broker.url}/t{uuid.uuid4().hex[:12]}"


async def wait_until(condition, timeout: float = 5) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached in time")


@needs_mosquitto
@pytest.mark.asyncio
async def test_broker_restart_loses_nothing_published_meanwhile() -> None:
    with LocalBroker(kind="mosquitto") as broker:
        url = pool_url(broker)
        leader = MqttPool(url, node="leader")
        worker = MqttPool(url, node="worker")
        await leader.start()
        await worker.start()
        bob = worker.subscribe("Bob")
        for i in range(3):
            await leader.publish("Ada", "Bob", "command", f"before {i}")
        assert [m.body for m in [await bob.get(5) for _ in range(3)]] == ["before 0", "before 1", "before 2"]

        pid = broker.pid
        broker.stop()  # SIGTERM to the pid we started; mosquitto writes its persistence file
        await wait_until(lambda: not leader.connected and not worker.connected)
        for i in range(5):
            await leader.publish("Ada", "Bob", "command", f"meanwhile {i}")
        assert leader.buffered == 5
        await asyncio.sleep(0.3)  # reconnect attempts fail while the broker is down
        assert leader.buffered == 5

        broker.start()
        assert broker.pid != pid and broker.port == BrokerURL.parse(url).port
        got = [await bob.get(10) for _ in range(5)]
        assert [m.body for m in got] == [f"meanwhile {i}" for i in range(5)]
        assert [m.seq for m in got] == [4, 5, 6, 7, 8]
        await leader.flush(5)
        assert leader.connections >= 2 and worker.connections >= 2
        with pytest.raises(TimeoutError):
            await bob.get(0.3)

        # The restarted broker still holds the whole history for a member that joins now.
        late = MqttPool(url, node="late")
        await late.start()
        assert [m.seq for m in late.history(for_agent="Bob")] == list(range(1, 9))
        for pool in (leader, worker, late):
            await pool.close()


@needs_mosquitto
@pytest.mark.asyncio
async def test_messages_for_a_member_that_is_away_wait_in_its_session() -> None:
    with LocalBroker(kind="mosquitto") as broker:
        url = pool_url(broker)
        leader = MqttPool(url, node="leader")
        await leader.start()
        away = MqttPool(url, node="worker")
        await away.start()
        await away.close()
        for i in range(3):
            await leader.publish("Ada", "Bob", "command", f"task {i}")
        await leader.flush(5)
        back = MqttPool(url, node="worker")  # same node: same client id, same persistent session
        await back.start()
        assert [m.body for m in back.history(for_agent="Bob")] == ["task 0", "task 1", "task 2"]
        await leader.close()
        await back.close()


@pytest.mark.asyncio
async def test_redelivered_and_reordered_wire_messages_arrive_once_in_order() -> None:
    with LocalBroker() as broker:
        url = pool_url(broker)
        pool = MqttPool(url, node="reader")
        await pool.start()
        bob = pool.subscribe("Bob")
        messages = [Message(f"m{i}", float(i), "Ada", ("Bob",), "chat", f"n{i}", i) for i in (1, 2, 3)]
        root = f"{pool_settings().mqtt.topic_root}/{pool.pool_name}"
        async with aiomqtt.Client(broker.host, broker.port) as raw:
            for message in (messages[1], messages[0], messages[0], messages[2], messages[1]):
                await raw.publish(f"{root}/m/Ada/{message.seq:09d}", message.to_bytes(), qos=1)
            await raw.publish(f"{root}/m/Ada/000000099", b"{not json", qos=1)
        assert [m.body for m in [await bob.get(5) for _ in range(3)]] == ["n1", "n2", "n3"]
        with pytest.raises(TimeoutError):
            await bob.get(0.3)
        await pool.close()


@needs_mosquitto
@pytest.mark.asyncio
async def test_username_and_password_work_and_the_password_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    secret = "s3cret-" + uuid.uuid4().hex
    caplog.set_level(logging.DEBUG)
    with LocalBroker(kind="mosquitto", credentials=Credentials("agent", secret)) as broker:
        url = f"mqtt://agent:{secret}@{broker.host}:{broker.port}/auth"
        assert secret not in broker.url and secret not in redact(url) and secret not in str(BrokerURL.parse(url))
        assert secret not in repr(BrokerURL.parse(url))
        pool = MqttPool(url, node="ok")
        await pool.start()
        await pool.publish("Ada", "all", "chat", "authenticated")
        await pool.flush(5)
        await pool.close()

        fast = dataclasses.replace(pool_settings().mqtt, connect_timeout_seconds=1.0)
        wrong = MqttPool(f"mqtt://agent:wrong-{secret}@{broker.host}:{broker.port}/auth", node="bad", settings=fast)
        with pytest.raises(PoolError, match=r"broker at mqtt://agent:\*\*\*@127\.0\.0\.1:\d+/auth refused this client: .*[Nn]ot authori") as error:
            await wrong.start()
        assert secret not in str(error.value)
        assert secret not in broker.log_tail(1000)
        assert secret not in (broker.data_dir / "mosquitto.conf").read_text()
        assert secret not in (broker.data_dir / "passwords").read_text()
    assert caplog.records, "the pool logged nothing, so the check below would prove nothing"
    assert secret not in caplog.text


@pytest.mark.asyncio
async def test_no_broker_gives_a_clear_error_in_time() -> None:
    fast = dataclasses.replace(pool_settings().mqtt, connect_timeout_seconds=0.5)
    pool = MqttPool(f"mqtt://127.0.0.1:{free_port()}/none", node="alone", settings=fast)
    with pytest.raises(PoolError, match=r"cannot reach the MQTT broker at mqtt://127\.0\.0\.1:\d+/none within 0.5 s \(.*refused"):
        await pool.start()
    with pytest.raises(PoolError, match="start\\(\\) the MQTT pool"):
        await pool.publish("Ada", "Bob", "chat", "nobody listens")


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("http://127.0.0.1:1883", "must start with mqtt://"),
        ("mqtt://:1883", "names no host"),
        ("mqtt://127.0.0.1:99999", "malformed"),
        ("mqtt://u:pw@127.0.0.1:1883/a/b", "pool 'a/b' is not a valid name"),
    ],
)
def test_bad_broker_urls(url: str, error: str) -> None:
    with pytest.raises(Exception, match=error) as caught:
        BrokerURL.parse(url)
    assert "pw" not in str(caught.value)


def test_urls_print_without_passwords() -> None:
    parsed = BrokerURL.parse("mqtt://bob:p%40ss@10.0.0.5:1884/run1")
    assert (parsed.username, parsed.password, parsed.port, parsed.pool) == ("bob", "p@ss", 1884, "run1")
    assert str(parsed) == "mqtt://bob:***@10.0.0.5:1884/run1"
    assert redact("mqtt://bob:p@ss@host:1") == "mqtt://bob:***@host:1"
    assert str(BrokerURL.parse("mqtt://127.0.0.1")) == "mqtt://127.0.0.1:1883"
