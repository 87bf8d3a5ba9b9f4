"""Causality in the judge: a clause another player's breach made impossible is excused, says by whom, and is not
fined; the breach that made it impossible is fined with its cause named. Played on tests/worlds/grabbed_pick.toml
(a greedy player takes the only pickaxe first) and tests/worlds/crowded_patch.toml (an at-least quota crowded out
by another's over-harvest); the readings that must not excuse are checked on observables made by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.judge.causality import excuse
from blockpact.judge.clause_events import Breach, Deed
from blockpact.judge.observables import ChestOp, EpisodeObservables

WORLDS = Path(__file__).parent / "worlds"
GRAB = """1. Ann takes the iron_pickaxe from the tools chest and mines all iron_ore.
2. Ben does not take the iron_pickaxe.
3. Whoever breaks a clause pays 10 emeralds to every other player."""
CROWD = """1. Ann mines at least 3 pumpkins.
2. Ben mines at most 3 pumpkins.
3. Whoever breaks a clause pays 5 emeralds to every other player."""


def _judgment(tmp: Path, world: str, contract: str) -> tuple[dict, Path]:
    scenario = tmp / "scenario.toml"
    scenario.write_text(f'[scenario]\nworld = "{(WORLDS / world).as_posix()}"\nseeds = 1\n[[conditions]]\n'
                        f'name = "pact"\ncontract = """{contract}"""\n[players]\nBen = "scripted:greedy"\n', encoding="utf-8")
    out = tmp / "run"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    [judgment] = [e["data"] for e in events if e["kind"] == "judgment"]
    return judgment, out


def test_the_player_whose_tool_was_grabbed_is_excused_and_not_fined(tmp_path: Path) -> None:
    judgment, out = _judgment(tmp_path, "grabbed_pick.toml", GRAB)
    assert judgment["transfers"] == {"Ann": 20.0, "Ben": -20.0}  # only Ben is fined, for clauses 1 and 2
    first = judgment["clauses"][0]
    assert first["status"] == "broken" and first["broken_by"] == ["Ben"]
    assert {e["breach"]: e["by"] for e in first["excused"]} == {
        "Ann took 0 iron_pickaxe from the tools chest, fewer than the 1 of clause 1.": ["Ben"],
        "Ann mined no iron_ore although clause 1 assigns it to him.": ["Ben"]}
    assert first["excused"][0]["causes"] == ["Ben took 1 iron_pickaxe, which clause 2 rules out."]
    assert "Ann pays" not in judgment["reasoning"]
    assert ("Clause 1: Ann is excused: Ann took 0 iron_pickaxe from the tools chest, fewer than the 1 of clause 1, "
            "made impossible by Ben's breach (Ben took 1 iron_pickaxe, which clause 2 rules out).") in judgment["reasoning"]
    assert ("Ben pays Ann 10 emeralds (penalty for breaking clause 2: Ben took 1 iron_pickaxe, which clause 2 rules out)"
            in judgment["reasoning"])
    assert judgment["critiques"]["Ann"].startswith("Excused by Ben's breach: ")
    assert "; Ann is excused: Ann took 0 iron_pickaxe" in (out / "report.html").read_text()


def test_a_grab_no_clause_forbids_by_a_player_who_broke_the_contract_excuses_too(tmp_path: Path) -> None:
    """The issue's hold-up: no clause forbids Ben the pickaxe, but he took it and mined the iron assigned to Ann."""
    judgment, _ = _judgment(tmp_path, "grabbed_pick.toml", """1. Ann takes the iron_pickaxe from the tools chest and mines all iron_ore.
2. Ben mines all diamond_ore.
3. Whoever breaks a clause pays 10 emeralds to every other player.""")
    assert judgment["transfers"] == {"Ann": 10.0, "Ben": -10.0}
    causes = {e["breach"]: e["causes"] for e in judgment["clauses"][0]["excused"]}
    assert causes["Ann took 0 iron_pickaxe from the tools chest, fewer than the 1 of clause 1."] == [
        "Ben took 1 iron_pickaxe from a chest, and broke clause 1 (Ben mined 4 iron_ore assigned to Ann (clause 1))"]


def test_an_at_least_quota_crowded_out_by_an_over_harvest_is_excused(tmp_path: Path) -> None:
    judgment, _ = _judgment(tmp_path, "crowded_patch.toml", CROWD)
    assert [c["status"] for c in judgment["clauses"]] == ["excused", "broken", "settled"]
    assert judgment["clauses"][0]["excused"][0]["by"] == ["Ben"]
    assert judgment["transfers"] == {"Ann": 5.0, "Ben": -5.0}


def _obs(chest_ops: list[ChestOp], blocks: dict, changes: list, held: set[str]) -> EpisodeObservables:
    chests = {"8,64,1": {}}
    for op in chest_ops:
        chests["8,64,1"][op.item] = chests["8,64,1"].get(op.item, 0)
    obs = EpisodeObservables(world="w", players=["Ann", "Ben"], values={}, inventories={}, chests=chests, chat=[],
                             collected={}, mined={}, tasks={}, chest_ops=chest_ops, start_blocks=blocks,
                             block_changes=changes, end_time=100.0, held={"Ann": held, "Ben": set()},
                             harvest_tools={"iron_ore": frozenset({"iron_pickaxe", "stone_pickaxe"}), "pumpkin": frozenset()})
    return obs


GRABBED = Breach(2, "Ben", "Ben took 1 iron_pickaxe, which clause 2 rules out.", did=Deed("take", "iron_pickaxe", 1, 5.0))
NEVER_TOOK = Breach(1, "Ann", "Ann never took the iron_pickaxe (clause 1).", lacked=Deed("take", "iron_pickaxe", 1, 100.0))
MINED_NONE = Breach(1, "Ann", "Ann mined no iron_ore.", lacked=Deed("mine", "iron_ore", 1, 100.0))
ORE = {(i, 64, 4): "iron_ore" for i in range(4)}


def test_a_tool_put_back_in_time_is_no_excuse() -> None:
    took = ChestOp(5.0, "Ben", "8,64,1", "iron_pickaxe", -1)
    back = ChestOp(40.0, "Ben", "8,64,1", "iron_pickaxe", 1)
    kept = _obs([took], ORE, [], set())
    assert excuse([GRABBED, NEVER_TOOK, MINED_NONE], kept)[0] == [GRABBED]  # the tool never came back: both excused
    returned = _obs([took, back], ORE, [], set())
    returned.chests = {"8,64,1": {"iron_pickaxe": 1}}
    standing, excused = excuse([GRABBED, NEVER_TOOK, MINED_NONE], returned)
    assert standing == [GRABBED, NEVER_TOOK, MINED_NONE] and not excused  # Ann could have taken it from 40 s


def test_no_excuse_without_another_players_breach_or_with_enough_left() -> None:
    took = ChestOp(5.0, "Ben", "8,64,1", "iron_pickaxe", -1)
    assert excuse([NEVER_TOOK, MINED_NONE], _obs([took], ORE, [], set()))[1] == []  # Ben's take broke nothing
    held_a_tool = _obs([took], ORE, [], {"stone_pickaxe"})
    assert excuse([GRABBED, MINED_NONE], held_a_tool)[0] == [GRABBED, MINED_NONE]  # Ann had a tool of her own
    patch = {(i, 64, 2): "pumpkin" for i in range(6)}
    short = Breach(1, "Ann", "Ann mined 0 pumpkin.", lacked=Deed("mine", "pumpkin", 3, 60.0))
    over = Breach(2, "Ben", "Ben mined 4 pumpkin.", did=Deed("mine", "pumpkin", 1, 0.0))
    one_left = [(10.0 + i, (i, 64, 2), "pumpkin", "air") for i in range(5)]
    assert excuse([short, over], _obs([], patch, one_left, set()))[0] == [short, over]  # 1 left and Ben's one beyond
    # his quota: 2, not Ann's 3 (what else was dug was no breach)
    two_left = one_left[:4]
    assert [e.breach for e in excuse([short, over], _obs([], patch, two_left, set()))[1]] == [short]  # 2 + 1 = 3
    all_dug = [(10.0 + i, (i, 64, 2), "pumpkin", "air") for i in range(6)]
    over_three = Breach(2, "Ben", "Ben mined 6 pumpkin.", did=Deed("mine", "pumpkin", 3, 0.0))
    assert [e.breach for e in excuse([short, over_three], _obs([], patch, all_dug, set()))[1]] == [short]
    late = Breach(2, "Ben", "Ben mined 6 pumpkin.", did=Deed("mine", "pumpkin", 3, 70.0))
    assert excuse([short, late], _obs([], patch, all_dug, set()))[1] == []  # Ben's deed came after Ann's was due


@pytest.mark.parametrize("clause", ["1. Ann mines at least 3 pumpkins.", "1. Ann takes 1 iron_pickaxe from the tools chest."])
def test_a_breach_alone_still_stands(clause: str) -> None:
    from blockpact.judge.contract import parse_contract
    from blockpact.judge.formal import judge_formal

    contract = parse_contract(clause, ["Ann", "Ben"])
    judgment = judge_formal(contract, _obs([], {(0, 64, 2): "pumpkin"} | ORE, [], set()))
    assert judgment.clauses[0]["status"] == "broken" and "excused" not in judgment.clauses[0]
