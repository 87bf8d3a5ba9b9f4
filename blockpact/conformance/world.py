"""The `World` conformance suite (bridge/protocols.py), in the style of PettingZoo's `parallel_api_test`: one plain
function any backend is run through: the simulator, the embedded server, a user's own server.

    from blockpact.conformance import check_world
    check_world(lambda spec, seed: SimWorld(spec, seed))

It plays one short episode of `world.toml` (two players, a dirt block, a chest) and checks what the episode
engine, the judge and the organizations rely on: the clock never goes back; events are in time order, of the
kinds experiments/log/EVENTS.md documents, with their fields; `emit` and `listen` see the same events; programs
run together and each player gets its own result (a failing program fails alone); the final snapshot holds
the rewards; `finish` and `close` are idempotent. An AssertionError says which promise was broken.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

from blockpact.bridge.protocols import ProgramResult, World
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import WorldSpec

CONFORMANCE_WORLD = Path(__file__).with_name("world.toml")
EVENTS_DOC = Path(__file__).resolve().parents[1] / "experiments" / "log" / "EVENTS.md"  # shipped with the package

SNAPSHOT_FIELDS = {"inventories", "chests", "positions", "rewards"}
# The fields each kind of world event carries (the judge's observables and the metrics read them).
REQUIRED_FIELDS: dict[str, set[str]] = {
    "episode_start": SNAPSHOT_FIELDS,
    "episode_end": SNAPSHOT_FIELDS,
    "task": {"task"},
    "chat": {"message"},
    "program_start": set(),
    "program_end": {"success", "error"},
    "block": {"pos", "old", "new", "cause"},
    "inventory": {"item", "delta", "count"},
    "chest": {"pos", "item", "delta", "count"},
    "chest_seen": {"pos", "items"},
}
OBSERVATION_KEYS = {"position", "inventory", "held", "health", "time", "nearby_blocks", "nearby_entities", "chests"}

HELLO = "conformance hello"
ADA = f"""async function main(bot) {{
  bot.chat({HELLO!r});
  await mineBlock(bot, "dirt", 1);
  await getItemFromChest(bot, new Vec3(5, 64, 3), {{ oak_log: 1 }});
}}"""
BO = """async function main(bot) {
  throw new Error("conformance boom");
}"""

MakeWorld = Callable[[WorldSpec, int], World]


def conformance_spec() -> WorldSpec:
    return load_world(CONFORMANCE_WORLD)


def documented_world_kinds(doc: Path = EVENTS_DOC) -> set[str]:
    """The world event kinds EVENTS.md lists in its `world` row (the documentation is the reference)."""
    row = next(line for line in doc.read_text().splitlines() if line.startswith("| `world` |"))
    listed = row[row.index("kinds ") + len("kinds "):row.index("`time` is")]
    while re.search(r"\([^()]*\)", listed):  # drop the explanations in parentheses, innermost first
        listed = re.sub(r"\([^()]*\)", "", listed)
    return set(re.findall(r"`([a-z_]+)`", listed))


def check_event(event: Event) -> None:
    assert isinstance(event, Event), f"an event must be a blockpact.worlds.events.Event, got {type(event).__name__}"
    assert isinstance(event.time, float | int) and event.time >= 0, f"{event.kind}: bad time {event.time!r}"
    assert event.agent is None or isinstance(event.agent, str), f"{event.kind}: bad agent {event.agent!r}"
    missing = REQUIRED_FIELDS.get(event.kind, set()) - set(event.data)
    assert not missing, f"a {event.kind} event lacks {sorted(missing)} (has {sorted(event.data)})"


def check_events(events: list[Event], kinds: set[str]) -> None:
    assert events and events[0].kind == "episode_start", "the first event must be episode_start"
    for event in events:
        check_event(event)
    unknown = {e.kind for e in events} - kinds
    assert not unknown, f"event kinds not documented in experiments/log/EVENTS.md: {sorted(unknown)}"
    times = [e.time for e in events]
    back = [(a, b) for a, b in zip(times, times[1:]) if b < a]
    assert not back, f"events out of time order: {back[:3]}"


def check_result(result: ProgramResult, player: str) -> None:
    assert isinstance(result, ProgramResult), f"{player}: run_programs must give ProgramResults"
    assert result.player == player, f"the result for {player} names {result.player}"
    assert all(isinstance(line, str) for line in result.chat), f"{player}: chat lines must be strings"
    assert OBSERVATION_KEYS <= set(result.observation), f"{player}: observation lacks {OBSERVATION_KEYS - set(result.observation)}"
    if not result.success:
        assert result.error, f"{player}: a failed program must say why"
        assert result.failure in ("program", "budget", "limit", "stalled", "cancelled", "sandbox", "bridge"), result.failure


async def _check_world(make_world: MakeWorld, budget: float) -> None:
    spec = conformance_spec()
    kinds = documented_world_kinds()
    world = make_world(spec, 0)
    try:
        assert world.spec.name == spec.name, "world.spec must be the spec it plays"
        start = world.now
        assert isinstance(start, float | int) and start >= 0, f"now must be episode seconds >= 0, got {start!r}"
        check_events(list(world.events), kinds)
        heard: list[Event] = []
        world.listen(heard.append)
        before = len(world.events)
        seen = await world.observe("Ada")
        assert OBSERVATION_KEYS <= set(seen), f"observe lacks {OBSERVATION_KEYS - set(seen)}"

        task = world.emit("Ada", "task", task="conformance")
        assert (task.kind, task.agent, task.data) == ("task", "Ada", {"task": "conformance"}), task
        assert world.events[-1] == task and heard[-1] == task, "an emitted event must be in events and heard"
        assert task.time >= start, "emit stamps the event at now"

        results = await world.run_programs({"Ada": ADA, "Bo": BO}, budget=budget)
        assert set(results) == {"Ada", "Bo"}, f"one result per player, got {sorted(results)}"
        for player, result in results.items():
            check_result(result, player)
        ada, bo = results["Ada"], results["Bo"]
        assert ada.success, f"Ada's program failed: {ada.error}"
        assert HELLO in ada.chat, f"Ada's chat {ada.chat} lacks its own line"
        assert ada.observation["inventory"].get("dirt") == 1 and ada.observation["inventory"].get("oak_log") == 1, ada.observation
        assert not bo.success and bo.failure == "program" and "conformance boom" in (bo.error or ""), bo
        middle = world.now
        assert middle >= start, f"the clock went back: {start} -> {middle}"

        end = world.finish()
        assert end.kind == "episode_end", end.kind
        assert end.data["rewards"]["Ada"] == 1 and end.data["inventories"]["Ada"].get("oak_log") == 1, end.data
        assert world.finish() == end and sum(e.kind == "episode_end" for e in world.events) == 1, "finish is idempotent"
        assert world.now >= middle, "the clock went back at the end"

        events = list(world.events)
        check_events(events, kinds)
        assert heard == events[before:], "listen must hear every later event, in order"
        for player in ("Ada", "Bo"):
            assert [e.kind for e in events if e.agent == player and e.kind.startswith("program_")][:2] == \
                ["program_start", "program_end"], f"{player}: program_start then program_end"
        ends = {e.agent: e.data for e in events if e.kind == "program_end"}
        assert ends["Ada"]["success"] is True and ends["Bo"]["success"] is False, ends
        assert any(e.kind == "chat" and e.agent == "Ada" and e.data["message"] == HELLO for e in events), "chat is an event"
        assert any(e.kind == "block" and e.agent == "Ada" and e.data["old"] == "dirt" for e in events), "mining is an event"
        assert any(e.kind == "chest" and e.agent == "Ada" and e.data["item"] == "oak_log" for e in events), "a chest use is an event"
    finally:
        await world.close()
        await world.close()  # idempotent


def check_world(make_world: MakeWorld, *, budget: float = 30.0) -> None:
    """Run the suite on the worlds `make_world(spec, seed)` makes; `budget`: seconds a program may take
    (simulated or wall, the backend's)."""
    asyncio.run(_check_world(make_world, budget))
