"""A Python process holding live bots (Node runtime + embedded server) leaves no process behind when it dies."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from test_bridge_runtime import _gone

HOLDER = """
import asyncio, sys, time
from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.mineflayer_body import MineflayerWorld, ServerAddress
from blockpact.bridge.runtime import runtime

server = EmbeddedServer().start()
world = MineflayerWorld(ServerAddress(port=server.port, version=server.version))
body = asyncio.run(world.connect("Holder"))
print(runtime().pid, server.pid, body.observe()["position"] is not None, flush=True)
time.sleep(120)                         # killed by the test meanwhile
"""


# SIGINT takes SIGTERM's path here (both raise in Python and run the same exit handlers): run by make test-all.
@pytest.mark.parametrize("sig", [pytest.param(signal.SIGINT, marks=pytest.mark.slow), signal.SIGTERM, signal.SIGKILL])
def test_killing_a_python_process_that_holds_bots_leaves_no_node_or_server(tmp_path: Path, sig: signal.Signals) -> None:
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().split()
        assert len(line) == 3, f"holder did not start its bot: {proc.stderr.read() if proc.poll() is not None else line}"
        node_pid, server_pid, spawned = int(line[0]), int(line[1]), line[2]
        assert spawned == "True"
        assert not _gone(node_pid, within=0.2) and not _gone(server_pid, within=0.2)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        assert _gone(node_pid), f"Node runtime {node_pid} survived Python ({sig.name})"
        assert _gone(server_pid), f"embedded server {server_pid} survived Python ({sig.name})"
    finally:
        proc.kill()
        proc.wait()
