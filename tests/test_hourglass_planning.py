"""Scripted hourglass stages: prerequisite chains from recipes and harvest rules, even splits,
re-assignment of failed work to workers with a success record."""

from __future__ import annotations

import dataclasses

import pytest

from blockpact.agents.hourglass.mind import Mind, Progress
from blockpact.agents.hourglass.prerequisites import NoWayToMake, PrerequisitePlanner
from blockpact.agents.hourglass.stages import share_out
from blockpact.agents.org.jobs import Job, split
from blockpact.agents.org.roles import Role
from blockpact.worlds.spec import mcdata
from blockpact.worlds.world_files import load_world

SIGHT = {"oak_log": 100, "stone": 80, "iron_ore": 16, "grass_block": 900}


@pytest.fixture(scope="module")
def forest():
    return load_world("forest")


def chain(spec, item, count, inventory=None, sight=SIGHT, gain=True):
    planner = PrerequisitePlanner(spec, mcdata.load(spec.mc_version), inventory or {}, sight)
    return [s.text() for s in planner.chain(item, count, gain=gain)]


def test_stone_needs_the_wooden_pickaxe_chain_from_logs(forest) -> None:
    assert chain(forest, "cobblestone", 5) == [
        "mine 3 oak_log", "craft oak_planks 3 times", "craft stick", "craft crafting_table",
        "place a crafting_table nearby", "craft wooden_pickaxe", "mine 5 stone"]


def test_iron_adds_a_stone_pickaxe_and_held_items_shorten_the_chain(forest) -> None:
    assert chain(forest, "raw_iron", 6)[-3:] == ["mine 3 stone", "craft stone_pickaxe", "mine 6 iron_ore"]
    assert chain(forest, "raw_iron", 2, {"stone_pickaxe": 1}) == ["mine 2 iron_ore"]
    # A crafting table in sight is used, not built.
    assert "craft crafting_table" not in chain(forest, "cobblestone", 1, sight={**SIGHT, "crafting_table": 1})


def test_the_chain_follows_the_world_harvest_rules(forest) -> None:
    # A world that says only an iron pickaxe harvests stone: the planner must go through iron first,
    # and without iron ore in sight there is no way at all.
    strict = dataclasses.replace(forest, harvest={**forest.harvest, "stone": frozenset({"iron_pickaxe"})})
    with pytest.raises(NoWayToMake, match="cobblestone|iron"):
        chain(strict, "cobblestone", 1, sight={"oak_log": 10, "stone": 10})


def test_a_door_is_crafted_from_held_planks_and_placing_needs_only_the_rest(forest) -> None:
    assert chain(forest, "oak_door", 1, {"oak_planks": 24}, gain=False) == [
        "craft crafting_table", "place a crafting_table nearby", "craft oak_door"]
    assert chain(forest, "oak_planks", 10, {"oak_planks": 24}, gain=False) == []


def test_jobs_split_evenly_and_parse_from_text() -> None:
    parts = split(Job("logs", "collect", "oak_log", 50), [1, 1, 1], ["a", "b", "c"])
    assert [p.count for p in parts] == [17, 17, 16]
    assert Job.parse("please collect 17 oak_log now", "x") == Job("x", "collect", "oak_log", 17)
    assert Job.parse("place stone at (1, 2, 3), (4, 5, 6)", "y").positions == ((1, 2, 3), (4, 5, 6))
    assert Job.parse("dance", "z") is None


def leader_mind() -> Mind:
    team = {w: (w,) for w in ("W1", "W2", "W3")}
    return Mind(Role("Leader", None, ("W1", "W2", "W3"), False, team), "async")


def test_failed_work_goes_to_a_worker_with_a_success_record() -> None:
    data = mcdata.load("1.20.4")
    mind = leader_mind()
    mind.set_objective("collect", [[Job("logs", "collect", "oak_log", 30)]], None, None)
    first = share_out(mind, data)
    assert [(m, j.count) for m, j in first] == [("W1", 10), ("W2", 10), ("W3", 10)]
    for member, job in first:
        mind.sent(member, job)
    from blockpact.agents.hourglass.messages import Incoming, report
    from blockpact.agents.pool import Message

    def incoming(sender, body):
        return Incoming(Message("id-" + sender + body["status"], 1.0, sender, ("Leader",), "report", body, 1),
                        job=Job.from_json(body["job"]), status=body["status"],
                        left=Job.from_json(body["left"]) if "left" in body else None)

    w3_job = first[2][1]
    mind.absorb([incoming("W3", report("success", w3_job, {"oak_log": 10}))], Progress("unknown", ""), {})
    w1_job = first[0][1]
    left = w1_job.rest(4, w1_job.id)
    mind.absorb([incoming("W1", report("fail", w1_job, {"oak_log": 4}, reason="no trees", left=left))], Progress("unknown", ""), {})
    again = share_out(mind, data)
    assert [(m, j.count) for m, j in again] == [("W3", 6)]  # the proven, idle worker; never the one who failed
    assert mind.stage_left == {"logs": 16}

