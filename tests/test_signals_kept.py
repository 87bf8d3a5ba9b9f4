"""Signals are kept until read (simulator): a signal sent before the wait began is delivered, a wait for one
sender leaves the others' signals for later waits, and several senders are all seen whatever their order."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.bridge.sim import SimWorld
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "signal_square.toml"


def _play(programs: dict[str, str]) -> tuple[dict, list]:
    async def go():
        world = SimWorld(load_world(WORLD), seed=1)
        try:
            results = await world.run_programs(programs)
        finally:
            await world.close()
        return results, world.events
    return asyncio.run(go())


def _received(events) -> list[tuple[str, str]]:
    return [(e.agent, e.data["sender"]) for e in events if e.kind == "signal_received"]


def _chats(events, player: str) -> list[str]:
    return [e.data["message"] for e in events if e.kind == "chat" and e.agent == player]


IDLE = "async function main(bot) { }"


def test_a_signal_sent_before_the_wait_began_is_delivered() -> None:
    ann = "async function main(bot) { await sendSignal(bot, 'ready'); }"
    ben = "async function main(bot) { await bot.waitForTicks(400); bot.chat('got ' + await waitSignal(bot, 'ready', 5)); }"
    results, events = _play({"Ann": ann, "Ben": ben, "Cy": IDLE})
    assert all(r.success for r in results.values()), {p: r.error for p, r in results.items()}
    assert "got Ann" in _chats(events, "Ben")
    received = [e for e in events if e.kind == "signal_received"]
    sent = [e for e in events if e.kind == "signal"]
    assert received[0].time >= 20 > sent[0].time  # read 20 s after it was sent, not lost


SENDERS_IN_ORDER = """async function main(bot) {
  const first = await waitSignal(bot, "Ann's part", 60, 'Ann');
  const second = await waitSignal(bot, "Ben's part", 60, 'Ben');
  bot.chat(`heard ${first} then ${second}`);
}"""


@pytest.mark.parametrize("first", ["Ann", "Ben"])
def test_waiting_for_one_sender_keeps_the_others_signal_for_the_next_wait(first: str) -> None:
    late = "async function main(bot) { await bot.waitForTicks(200); await sendSignal(bot, 'done'); }"
    early = "async function main(bot) { await sendSignal(bot, 'done'); }"
    programs = {"Ann": early if first == "Ann" else late, "Ben": early if first == "Ben" else late, "Cy": SENDERS_IN_ORDER}
    results, events = _play(programs)
    assert all(r.success for r in results.values()), {p: r.error for p, r in results.items()}
    assert _chats(events, "Cy") == ["heard Ann then Ben"]
    assert [s for p, s in _received(events) if p == "Cy"] == ["Ann", "Ben"]
    assert not any("No signal received" in m for m in _chats(events, "Cy"))
    assert results["Cy"].duration < 20  # both came by ten seconds: neither wait lasted until its timeout


def test_waits_for_anyone_see_every_sender_in_the_order_they_signalled() -> None:
    ann = "async function main(bot) { await bot.waitForTicks(100); await sendSignal(bot, 'a'); }"
    ben = "async function main(bot) { await sendSignal(bot, 'b'); }"
    cy = """async function main(bot) {
  await bot.waitForTicks(300);
  bot.chat(`${await waitSignal(bot, '', 5)} ${await waitSignal(bot, '', 5)} ${await waitSignal(bot, '', 5)}`);
}"""
    results, events = _play({"Ann": ann, "Ben": ben, "Cy": cy})
    assert all(r.success for r in results.values())
    assert _chats(events, "Cy")[-1] == "Ben Ann null"  # both kept; a third wait times out, with feedback
    assert any("No signal received within 5 seconds" in m for m in _chats(events, "Cy"))


def test_a_wait_for_a_sender_ignores_the_others_until_it_times_out() -> None:
    ben = "async function main(bot) { await sendSignal(bot, 'b'); }"
    cy = "async function main(bot) { bot.chat(String(await waitSignal(bot, '', 10, 'Ann'))); bot.chat(await waitSignal(bot, '', 1)); }"
    results, events = _play({"Ann": IDLE, "Ben": ben, "Cy": cy})
    assert all(r.success for r in results.values())
    chats = _chats(events, "Cy")
    assert "No signal received within 10 seconds while waiting for: Ann's signal" in chats
    assert chats[-2:] == ["null", "Ben"]  # Ben's signal was still there after the wait for Ann


@pytest.mark.parametrize("sender", ["Cy", "Nobody"])
def test_waiting_for_oneself_or_a_stranger_is_refused(sender: str) -> None:
    cy = f"async function main(bot) {{ await waitSignal(bot, '', 10, '{sender}'); }}"
    results, _ = _play({"Ann": IDLE, "Ben": IDLE, "Cy": cy})
    assert not results["Cy"].success
    assert f"'{sender}' is not another player of this world (players: Ann, Ben)" in results["Cy"].error
