"""One embedded Minecraft server for the live tests that can share it.

Starting flying-squid costs a second or two (more on a busy machine); live episodes build their own
world in it, each clearing its world's box first, so tests of the same worlds share one server for
the whole session. It is started on first use, and stopped after the last test, when its process
must be gone. Tests that need a server of their own (other operators, a server they stop or kill,
another world layout) still start one.
"""

from __future__ import annotations

import pytest

from harness import procfs
from harness.pace import scaled


@pytest.fixture(scope="session")
def embedded_server():
    """The shared embedded server on 127.0.0.1; live.toml's external operator bot is an operator there."""
    from blockpact.bridge.live.embedded_server import EmbeddedServer
    from blockpact.bridge.live.settings import live_settings

    server = EmbeddedServer(ops=(live_settings().external.operator,)).start()
    pid = server.pid
    yield server
    server.stop()
    assert pid is not None and not procfs.wait_gone({pid}, scaled(10)), f"server process {pid} survived"
