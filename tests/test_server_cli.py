"""`blockpact server`: starts the embedded server, says where it is, and takes it down on Ctrl-C, SIGTERM and errors."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer

from test_bridge_runtime import _gone

ADDRESS = re.compile(r"Minecraft (\S+) server \(flying-squid\) at 127\.0\.0\.1:(\d+), pid (\d+)")


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "blockpact.cli", "server", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _announced(proc: subprocess.Popen[str]) -> tuple[str, int, int, list[str]]:
    lines = []
    for line in proc.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if match := ADDRESS.search(line):
            return match.group(1), int(match.group(2)), int(match.group(3)), lines
    raise AssertionError(f"no address line; stderr: {proc.stderr.read()}")  # type: ignore[union-attr]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_server_prints_its_address_and_stops_on_signals(stop: signal.Signals) -> None:
    proc = _start("--port", "0", "--mc-version", "1.20.4")
    try:
        version, port, pid, _ = _announced(proc)
        assert version == "1.20.4" and port > 0
        proc.send_signal(stop)
        assert proc.wait(timeout=20) == 0
        assert _gone(pid), f"server process {pid} survived {stop.name}"
    finally:
        proc.kill()
        proc.wait()


def test_server_builds_a_world_on_request() -> None:
    proc = _start("--port", "0", "--world", "tests/worlds/bridge_parity.toml")
    try:
        _, _, pid, lines = _announced(proc)
        assert any(line.startswith("built world bridge_parity: spawn points Gizmo [2, 64, 6], Glitch [6, 64, 8]") for line in lines)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
        assert _gone(pid)
    finally:
        proc.kill()
        proc.wait()


def test_a_port_in_use_is_one_clear_error_and_leaves_nothing_running(embedded_server: EmbeddedServer) -> None:
    taken = embedded_server  # the session's shared server holds the port
    proc = _start("--port", str(taken.port))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (out, err)
    assert err.startswith("blockpact: the embedded Minecraft server exited"), err
    assert str(taken.port) in err
    assert taken.running  # the other server is untouched


def test_a_bad_world_stops_the_server_it_started() -> None:
    proc = _start("--port", "0", "--world", "no_such_world")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "no world named 'no_such_world'" in err
    assert "at 127.0.0.1" not in out


def test_a_server_that_did_not_start_says_why_until_one_does(embedded_server: EmbeddedServer) -> None:
    """A live run's next seed tells a server that never started (start_failure) from one that died: after a
    failed start the notice said "had exited with code 0; restarted it", as if it had crashed."""
    from blockpact.bridge.live.embedded_server import ServerError

    server = EmbeddedServer(port=embedded_server.port)  # the shared server holds the port: this one exits
    with pytest.raises(ServerError) as failed:
        server.start()
    assert server.start_failure == str(failed.value) and "exited" in str(failed.value)
    server.requested_port = 0
    try:
        server.start()
        assert server.start_failure is None and server.running
    finally:
        server.stop()


def test_a_server_killed_during_a_request_says_how_it_ended() -> None:
    """The message ended in "...control request 'drainEvents': " and nothing: it names the
    signal, and says when the server wrote nothing on stderr."""
    import os
    import threading

    from blockpact.bridge.live.embedded_server import ServerError

    server = EmbeddedServer().start()
    try:
        os.kill(server.pid, signal.SIGSTOP)  # the request waits for an answer that never comes
        threading.Timer(0.5, os.kill, (server.pid, signal.SIGKILL)).start()
        with pytest.raises(ServerError) as failed:
            server.request("viewDistance", timeout=60)
        message = str(failed.value)
        assert "exited (killed by signal 9) during control request 'viewDistance': " in message, message
        assert not message.endswith(": "), message
    finally:
        server.stop()


def test_the_server_is_given_live_tomls_entity_range_unless_told_another() -> None:
    from blockpact.bridge.live.settings import live_settings

    def range_of(server: EmbeddedServer) -> str:
        args = server.command_line()
        return args[args.index("--entity-range") + 1]

    assert range_of(EmbeddedServer()) == str(live_settings().server.entity_range)
    assert range_of(EmbeddedServer(entity_range=16)) == "16"
