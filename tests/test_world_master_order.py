"""The live world master keeps the episode's event log in time order when a journal is drained late
(a busy machine): the late entry is logged at the latest time so far and says by how much it was late. It marks a
bot's primitive feedback apart from its program's chat, as the simulator does."""

from __future__ import annotations

from typing import Any

from blockpact.bridge.live.world_master import WorldMaster
from blockpact.experiments.play.episode_engine import chat_lines
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

    def server_seconds(self, reset: bool = False) -> None:
        return None  # a server whose clock is not read


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


class _Server(_Journal):
    """Also reads blocks back: as the mirror holds them, except the cells in `changed`."""

    def __init__(self, state: WorldState) -> None:
        super().__init__()
        self.state, self.changed = state, {}

    def read_blocks(self, lo, hi) -> list[str]:  # noqa: ANN001
        region = next(r for r in self.state.spec.regions.values() if (r.lo, r.hi) == (lo, hi))
        return [self.changed.get(pos, self.state.block_at(pos)) for pos in region.cells()]


def test_a_dig_the_read_back_saw_before_its_journal_entry_is_the_dig_not_a_reconcile() -> None:
    spec = load_world("cleanup")
    state = WorldState(spec)
    access = _Server(state)
    master = WorldMaster(access, spec, state)  # type: ignore[arg-type]
    master.start()
    dug, lost = (4, 65, 10), (10, 65, 10)  # two mushroom cap cells
    access.changed = {dug: "air", lost: "air"}  # the server has both broken; the journal reports only the first
    access.entries = [{"time": master.started_at * 1000 + 500, "agent": "Gizmo", "kind": "block",
                       "data": {"pos": list(dug), "old": "red_mushroom_block", "new": "air", "cause": "dig"}}]
    master.reconcile_regions()

    blocks = [(tuple(e.data["pos"]), e.data["cause"]) for e in state.log.events if e.kind == "block"]
    assert blocks == [(dug, "dig"), (lost, "reconcile")]
    assert state.block_at(dug) == state.block_at(lost) == "air"


def test_a_chat_line_a_bot_noted_as_feedback_is_the_primitive_s_in_the_log_and_others_are_not() -> None:
    spec = load_world("double_vein")
    access = _Journal()
    master = WorldMaster(access, spec, WorldState(spec))  # type: ignore[arg-type]
    notes: list[dict[str, Any]] = []
    master.bot_journal = lambda: [notes.pop() for _ in list(notes)]
    master.start()
    at = master.started_at * 1000 + 500
    chat = lambda agent, text: {"time": at, "agent": agent, "kind": "chat", "data": {"message": text}}  # noqa: E731
    notes.append({"time": at, "agent": "Gizmo", "kind": "feedback", "data": {"message": "No item named x"}})
    # the server's line comes in the same millisecond as the bot's note (and before it in the drained list)
    access.entries = [chat("Gizmo", "No item named x"), chat("Gizmo", "No item named x"), chat("Glitch", "No item named x")]
    master.record()

    said = [(e.agent, e.data.get("source")) for e in master.state.log.events if e.kind == "chat"]
    assert said == [("Gizmo", "primitive"), ("Gizmo", None), ("Glitch", None)]  # one note, one line: the second is Gizmo's own
    assert not [e for e in master.state.log.events if e.kind == "feedback"]
    assert [line.split("] ", 1)[1] for line in chat_lines(master.state.log.events)] == [
        "Gizmo (feedback): No item named x", "Gizmo: No item named x", "Glitch: No item named x"]
