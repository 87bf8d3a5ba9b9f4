"""The live world master keeps the episode's event log in time order when a journal is drained late
(a busy machine): the late entry is logged at the latest time so far and says by how much it was late."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.live.world_master import WorldMaster
from blockpact.worlds.state import WorldState
from blockpact.worlds.world_files import load_world


class _Journal:
    """A world access whose server journal holds what the test puts in it (the master only drains it here)."""

    plugin = True

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def drain(self) -> tuple[list[dict[str, Any]], int]:
        entries, self.entries = self.entries, []
        return entries, 0


def test_an_entry_drained_after_a_later_event_is_logged_in_order_and_marked_late() -> None:
    spec = load_world("double_vein")
    access = _Journal()
    master = WorldMaster(access, spec, WorldState(spec))  # type: ignore[arg-type]
    master.start()
    started_ms = master.started_at * 1000
    access.entries = [{"time": started_ms + 7000, "agent": "Gizmo", "kind": "chat", "data": {"message": "second"}}]
    master.record()
    access.entries = [{"time": started_ms + 880, "agent": "Glitch", "kind": "chat", "data": {"message": "first"}}]
    master.record()

    chats = [e for e in master.state.log.events if e.kind == "chat"]
    assert [(e.data["message"], e.time) for e in chats] == [("second", 7.0), ("first", 7.0)]
    assert "late_s" not in chats[0].data and chats[1].data["late_s"] == 6.12
    times = [e.time for e in master.state.log.events]
    assert times == sorted(times)
