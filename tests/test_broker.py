"""`blockpact broker` and LocalBroker: start, serve, stop on every kind of exit, and leave no process behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockpact.agents.broker import BrokerError, LocalBroker, amqtt_available, free_port, mosquitto_binary
from blockpact.agents.pool.mqtt import MqttPool

NO_MOSQUITTO = pytest.mark.skipif(mosquitto_binary() is None, reason="mosquitto is not installed")
NO_AMQTT = pytest.mark.skipif(not amqtt_available(), reason="amqtt is not installed")
KINDS = [pytest.param("mosquitto", marks=NO_MOSQUITTO), pytest.param("amqtt", marks=NO_AMQTT)]
# Each CLI start costs ~2 s of imports, so each kind is stopped by one of the two signals.
KINDS_AND_STOP_SIGNALS = [
    pytest.param("mosquitto", signal.SIGTERM, marks=NO_MOSQUITTO, id="mosquitto-SIGTERM"),
    pytest.param("amqtt", signal.SIGINT, marks=NO_AMQTT, id="amqtt-SIGINT"),
]


def alive(pid: int) -> bool:
    """Running, not merely a zombie waiting for a parent that may never reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def wait_dead(pid: int, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def start_cli(kind: str, *extra: str, port: int | None = None) -> tuple[subprocess.Popen[str], str, int]:
    """`blockpact broker` as a user runs it; its URL (stdout) and the broker's pid (stderr)."""
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "blockpact.cli", "broker", "--port", str(port), "--kind", kind, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = process.stdout.readline().strip()
    status = process.stderr.readline()
    match = re.search(r"\(pid (\d+)\)", status)
    if not match:
        process.kill()
        raise AssertionError(f"no pid in {status!r}; stderr: {process.stderr.read()}")
    return process, url, int(match.group(1))


async def round_trip(url: str) -> str:
    pool = MqttPool(f"{url}/cli", node="probe")
    await pool.start()
    sub = pool.subscribe("Bob")
    await pool.publish("Ada", "Bob", "chat", "ping")
    try:
        return (await sub.get(5)).body  # type: ignore[return-value]
    finally:
        await pool.close()


@pytest.mark.parametrize(("kind", "stop_signal"), KINDS_AND_STOP_SIGNALS)
def test_cli_serves_then_stops_cleanly_on_ctrl_c_and_sigterm(kind: str, stop_signal: signal.Signals) -> None:
    process, url, broker_pid = start_cli(kind)
    try:
        assert re.fullmatch(r"mqtt://127\.0\.0\.1:\d+", url)
        assert asyncio.run(round_trip(url)) == "ping"
        process.send_signal(stop_signal)
        assert process.wait(timeout=10) == 0
        assert f"{kind} stopped" in process.stderr.read()
        assert wait_dead(broker_pid)
        assert not port_open(int(url.rsplit(":", 1)[1]))
    finally:
        process.kill()


@pytest.mark.parametrize("kind", KINDS)
def test_broker_dies_with_a_killed_cli(kind: str, tmp_path: Path) -> None:
    process, url, broker_pid = start_cli(kind, "--data-dir", str(tmp_path))  # a killed CLI cannot clean up /tmp
    try:
        assert alive(broker_pid)
        process.kill()  # SIGKILL: no atexit, no finally; only PDEATHSIG is left
        process.wait(timeout=5)
        assert wait_dead(broker_pid), f"{kind} (pid {broker_pid}) outlived the killed blockpact process"
    finally:
        process.kill()
        if alive(broker_pid):
            os.kill(broker_pid, signal.SIGKILL)


def test_cli_reports_a_port_in_use_and_leaves_nothing_running() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "blockpact.cli", "broker", "--port", str(port)], capture_output=True, text=True, timeout=30
        )
    assert result.returncode == 1
    assert f"blockpact: cannot start mosquitto: 127.0.0.1:{port} is already in use" in result.stderr or (
        f"blockpact: cannot start amqtt: 127.0.0.1:{port} is already in use" in result.stderr
    )
    assert result.stdout == ""


def test_cli_rejects_half_given_credentials() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "blockpact.cli", "broker", "--port", "0", "--username", "agent"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 1
    assert "--username and --password-env go together" in result.stderr


@NO_MOSQUITTO
def test_cli_with_password_from_the_environment_never_prints_it() -> None:
    secret = "pw-" + os.urandom(6).hex()
    env = {**os.environ, "BROKER_SECRET": secret}
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "blockpact.cli", "broker", "--port", str(port), "--username", "agent", "--password-env", "BROKER_SECRET"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = process.stdout.readline().strip()
        assert url == f"mqtt://agent@127.0.0.1:{port}"
        user, rest = url.removeprefix("mqtt://").split("@")
        assert asyncio.run(round_trip(f"mqtt://{user}:{secret}@{rest}")) == "ping"
        process.terminate()
        out, err = process.communicate(timeout=10)
        assert process.returncode == 0
        assert secret not in url + out + err
    finally:
        process.kill()


def test_local_broker_restart_keeps_port_and_stop_is_idempotent() -> None:
    broker = LocalBroker()
    try:
        broker.start()
        first = broker.pid
        assert first is not None and port_open(broker.port)
        broker.restart()
        assert broker.pid != first and port_open(broker.port) and not alive(first)
        broker.stop()
        broker.stop()
        assert not broker.running and not port_open(broker.port)
    finally:
        broker.close()
    assert not broker.data_dir.exists()


def test_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(BrokerError, match="unknown broker kind 'rabbit': use one of auto, mosquitto, amqtt"):
        LocalBroker(kind="rabbit")
