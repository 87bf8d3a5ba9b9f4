"""A simulated episode recorded by one world of an `EpisodeReplays` is replayed by another world whose programs
start from the same untouched state with the same inputs: its log holds exactly the events a fresh play gives,
it says whose episode it replayed, and a recording is replayed once. A world that changed first plays."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.episode_replay import EpisodeReplays
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "berry_patch.toml"
HARVEST = """async function main(bot) {
  for (let i = 0; i < 3; i++) {
    await mineBlock(bot, "sweet_berry_bush", 1);
  }
  bot.chat("done");
}
"""


def _events(world) -> list[str]:
    return [json.dumps(e.to_json(), sort_keys=True) for e in world.events]


async def _episode(world, *, task: bool = False, budget: float = 41.0):
    """(logged events, results, the world) of one episode; the log is kept by a listener, as a run's is."""
    logged: list[str] = []
    world.listen(lambda e: logged.append(json.dumps(e.to_json(), sort_keys=True)))
    logged += _events(world)
    if task:
        world.emit("Gizmo", "task", task="harvest")
        await world.observe("Gizmo")  # as an episode does before the programs start
    try:
        results = await world.run_programs({"Gizmo": HARVEST}, budget=budget)
        world.finish()
    finally:
        await world.close()
    return logged, results, world


def test_a_recorded_episode_is_replayed_once_with_the_events_a_fresh_play_gives():
    """... and a world that changed first, or whose programs get another budget or seed, or a recorder's
    world, plays instead of taking it."""
    spec = load_world(WORLD)

    async def main():
        replays = EpisodeReplays()
        recorded = await _episode(replays.recorder("the search")(spec, 0))
        # A recorder's world plays the same game again (and leaves the recording for the next world).
        fresh = await _episode(replays.recorder("the search")(spec, 0), task=True)
        other_budget = await _episode(replays.world(spec, 0), budget=30.0)
        other_seed = await _episode(replays.world(spec, 1))
        changed = replays.world(spec, 0)
        changed.emit("Gizmo", "chat", message="hello")
        changed_first = await _episode(changed)
        replayed = await _episode(replays.world(spec, 0), task=True)
        again = await _episode(replays.world(spec, 0), task=True)
        return fresh, recorded, replayed, again, (other_budget, other_seed, changed_first)

    fresh, recorded, replayed, again, others = asyncio.run(main())
    assert recorded[2].replayed is None and fresh[2].replayed is None
    assert replayed[2].replayed == "the search"
    assert replayed[0] == fresh[0] == _events(replayed[2])  # the task note kept, then the episode's own events
    ended = next(i for i, e in enumerate(fresh[0]) if '"program_end"' in e)
    assert any('"cause": "regrow"' in e for e in fresh[0][ended:]), "finish() regrows what the program dug"
    assert {p: r.to_json() for p, r in replayed[1].items()} == {p: r.to_json() for p, r in fresh[1].items()}
    assert replayed[2].now == fresh[2].now
    assert asyncio.run(replayed[2].observe("Gizmo")) == asyncio.run(fresh[2].observe("Gizmo"))  # the end's state
    with pytest.raises(RuntimeError, match="replayed a recorded episode"):
        asyncio.run(replayed[2].run_programs({"Gizmo": HARVEST}))
    assert again[2].replayed is None and again[0] == fresh[0]  # the recording was taken: played afresh
    assert [world.replayed for _, _, world in others] == [None, None, None]


def test_the_negotiate_episode_replays_the_searchs_play_of_the_winning_contract(tmp_path: Path) -> None:
    """In a scripted run the negotiate condition's seed-0 episode is the contract search's play of the
    contract it proposes: the log says it was replayed, and its world events, program results and
    outcome are those of the same episode played afresh (a world factory that never replays)."""
    from blockpact.experiments.play.episode_engine import WorldEpisodeEngine
    from blockpact.experiments.play.protocol import Participants
    from blockpact.experiments.plan.run_plan import RunPlan, ConditionSpec
    from blockpact.experiments.play.runner import run_plan
    from blockpact.experiments.play.scripted import ScriptedNegotiation, scripted_minds, scripted_participants

    # A length no other test uses: the search (kept once per world text in a process) runs here.
    spec = dataclasses.replace(load_world("cleanup"), episode_seconds=97.0)
    plan = RunPlan(spec, "sim", "scripted", [ConditionSpec("negotiate", "negotiate")], [0], 1)
    run_plan(plan, tmp_path / "replayed", participants=scripted_participants())
    run_plan(plan, tmp_path / "played", participants=Participants(WorldEpisodeEngine(scripted_minds, SimWorld),
                                                                  ScriptedNegotiation()))

    def records(run: str) -> tuple[list[dict], list[dict]]:
        lines = [json.loads(line) for line in (tmp_path / run / "events.jsonl").read_text().splitlines()]
        ends = [r["data"] for r in lines if r["kind"] == "episode_end"]
        kept = [r["data"] for r in lines if r["kind"] in ("world", "program_result", "judgment", "contract")]
        return ends, [{k: v for k, v in d.items() if k != "duration"} for d in kept]

    (replayed_end,), replayed = records("replayed")
    (played_end,), played = records("played")
    assert replayed_end.pop("replayed_from") == "the contract search" and "replayed_from" not in played_end
    assert replayed_end == played_end and replayed == played
    assert sum(1 for r in replayed if "event" in r and r["event"]["kind"] == "block") > 10
