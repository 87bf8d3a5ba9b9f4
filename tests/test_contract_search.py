"""The contract search's candidates come from the world file alone, for any number of players."""

from __future__ import annotations

from pathlib import Path

from blockpact.agents.scripted.contract_search import OBJECTIVE, candidates
from blockpact.judge.contract import (
    Assignment, Craft, Deposit, ForEach, Give, Pool, Quota, Signal, WaitFor, parse_contract, render_contract,
)
from blockpact.worlds.world_files import load_world

WORLDS = Path(__file__).parent / "worlds"


def kinds(candidate) -> list[type]:
    return [type(c.parts[0]) if isinstance(c, ForEach) else type(c) for c in candidate.clauses]


def test_every_candidate_binds_every_player_and_renders_in_the_controlled_form() -> None:
    for world in ("commons", "cleanup_mp", "double_vein", WORLDS / "stag_hunt.toml", WORLDS / "gold_key.toml"):
        spec = load_world(world)
        players = sorted(spec.players)
        for candidate in candidates(spec):
            assert candidate.clauses[-1] == Pool(tuple(players))
            parsed = parse_contract(render_contract(candidate.clauses, world=spec.name), players, world=spec.name)
            assert parsed.clauses == candidate.clauses and not parsed.free_text()


def test_a_grow_rule_gives_a_quota_of_what_regrows_in_one_period() -> None:
    names = [c.name for c in candidates(load_world(WORLDS / "pasture.toml"))]
    assert names == ["no quota; equal shares", "at most 5 pumpkin each every 30 s; equal shares"]
    quota = candidates(load_world(WORLDS / "pasture.toml"))[1].clauses[0]
    assert isinstance(quota, ForEach) and quota.parts[0] == Quota("Ann", "mine", "pumpkin", 5, "at_most", 30.0)


def test_pollution_gets_zero_to_two_cleaners() -> None:
    names = [c.name for c in candidates(load_world("cleanup_mp"))]
    assert [n.split(";")[0] for n in names[::2]] == ["0 cleaners", "1 cleaner (P7)", "2 cleaners (P6, P7)"]
    assert all(Assignment("P7", "mine", "slime_block") in c.clauses for c in candidates(load_world("cleanup_mp"))[2:])


def test_spread_ingredients_are_pooled_for_the_crafter() -> None:
    crafting = candidates(load_world(WORLDS / "stag_hunt.toml"))[1]
    assert crafting.clauses[:-1] == (
        Deposit("Ben", "stick", None, "workshop"), Signal("Ben", "Ada"), WaitFor("Ada", "Ben"), Craft("Ada", "iron_pickaxe", 1),
    )


def test_items_go_to_whoever_values_them_most() -> None:
    gifts = [c for c in candidates(load_world(WORLDS / "gold_key.toml")) if Give in kinds(c)]
    assert gifts and Give("Ada", "Ben", "raw_gold", None) in gifts[0].clauses
    assert "Gini <= 0.1" in OBJECTIVE


def test_a_candidate_whose_episode_was_lost_fails_the_search_instead_of_scoring() -> None:
    """A candidate's episode in which Node (or the bridge, the sandbox) lost a program must not be scored: its welfare
    would steer the search with nobody told (seen: the bots' runtime killed during a cleanup_mp run's search, the run
    still exited 0). Here a real simulated episode's result for one player is marked lost, as SimWorld marks it."""
    import asyncio
    import dataclasses

    import pytest

    from blockpact.agents.scripted.contract_search import evaluate
    from blockpact.bridge.runtime import BridgeBroken
    from blockpact.bridge.sim import SimWorld

    class LosesOneProgram(SimWorld):
        async def run_programs(self, programs, **kwargs):
            results = await super().run_programs(programs, **kwargs)
            first = sorted(results)[0]
            results[first] = dataclasses.replace(results[first], success=False, failure="bridge", error="the runtime died")
            return results

    spec = load_world("double_vein")
    with pytest.raises(BridgeBroken, match=r"episode of .* was lost: Gizmo's program: bridge: the runtime died"):
        asyncio.run(evaluate(spec, candidates(spec)[0], 0, LosesOneProgram))


def test_a_crafter_holding_part_of_an_ingredient_fetches_the_rest_and_crafts() -> None:
    """Dee holds 2 of the 3 iron ingots an iron pickaxe takes, Eli the third: under the crafting candidate Eli deposits
    his ingot and Dee must take it from the chest before crafting. (Seen: the program was told to fetch "1 ingot", saw it
    held 2 >= 1, fetched nothing and could not craft, so the crafting candidate scored as if no one crafted.)"""
    import asyncio

    from blockpact.agents.scripted.contract_search import evaluate

    spec = load_world(WORLDS / "split_ingredients.toml")
    crafting = next(c for c in candidates(spec) if c.name == "pooled materials to craft a tool; equal shares")
    assert Craft("Dee", "iron_pickaxe", 1) in crafting.clauses
    evaluation = asyncio.run(evaluate(spec, crafting, 0))
    assert evaluation.welfare > 24  # the iron alone (6 x 4); with the crafted pickaxe Dee also mines diamonds
