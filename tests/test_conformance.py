"""The World and Body conformance suites (blockpact/conformance/) over every backend here: the simulator, the
session's embedded server, and, when BLOCKPACT_CONFORMANCE_SERVER=HOST:PORT[:VERSION] is set, that server
(docs/backends.md)."""

from __future__ import annotations

import os

import pytest

from blockpact.bridge.live.world import LiveWorld
from blockpact.bridge.live.mineflayer_body import ServerAddress
from blockpact.bridge.sim import SimWorld
from blockpact.conformance import check_body, check_world
from blockpact.conformance.world import check_events, documented_world_kinds
from blockpact.worlds.events import Event


def _external() -> ServerAddress | None:
    value = os.environ.get("BLOCKPACT_CONFORMANCE_SERVER")
    if not value:
        return None
    host, port, *version = value.split(":")
    return ServerAddress(host, int(port), version[0] if version else None)


def test_the_simulator_keeps_the_world_contract() -> None:
    check_world(lambda spec, seed: SimWorld(spec, seed))


def test_the_simulator_keeps_the_body_contract() -> None:
    check_body(lambda spec, seed: SimWorld(spec, seed))


def test_the_embedded_server_keeps_the_world_contract(embedded_server) -> None:
    check_world(lambda spec, seed: LiveWorld(spec, seed, server=embedded_server))


@pytest.mark.slow  # ~5 s more of live play; the world contract above is the fast live case
def test_the_embedded_server_keeps_the_body_contract(embedded_server) -> None:
    check_body(lambda spec, seed: LiveWorld(spec, seed, server=embedded_server))


@pytest.mark.skipif(_external() is None, reason="set BLOCKPACT_CONFORMANCE_SERVER=HOST:PORT[:VERSION] to check a server of yours")
def test_your_server_keeps_the_world_and_body_contracts() -> None:
    address = _external()
    check_world(lambda spec, seed: LiveWorld(spec, seed, address=address))
    check_body(lambda spec, seed: LiveWorld(spec, seed, address=address))


def test_the_suite_fails_on_an_undocumented_event_kind_and_a_missing_field() -> None:
    """The suite can fail: it refuses what EVENTS.md does not document and events without their fields."""
    kinds = documented_world_kinds()
    assert {"episode_start", "chat", "program_end", "server_restart"} <= kinds
    start = Event(0.0, None, "episode_start", {"inventories": {}, "chests": {}, "positions": {}, "rewards": {}})
    with pytest.raises(AssertionError, match="not documented"):
        check_events([start, Event(1.0, "Ada", "teleport", {})], kinds)
    with pytest.raises(AssertionError, match="lacks"):
        check_events([start, Event(1.0, "Ada", "chat", {})], kinds)
    with pytest.raises(AssertionError, match="time order"):
        check_events([start, Event(2.0, "Ada", "chat", {"message": "a"}), Event(1.0, "Ada", "chat", {"message": "b"})], kinds)

