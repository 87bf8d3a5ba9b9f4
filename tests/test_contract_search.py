"""The contract search's candidates come from the world file alone, for any number of players; each is played on the
simulator and settled so that no player ends below its outside option (its reward without a contract)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from blockpact.agents.scripted.candidates import candidates
from blockpact.agents.scripted.plan_steps import quota_share as _quota_share
from blockpact.agents.scripted.contract_search import OBJECTIVE, _transfers, best_contract, evaluate, play, search
from blockpact.judge.contract import (
    Assignment, Craft, Deposit, FixedTransfer, ForEach, Give, Quota, TotalQuota, TurnTaking, parse_contract, render_contract,
)
from blockpact.judge.formal import judge_formal
from blockpact.worlds.world_files import load_world

WORLDS = Path(__file__).parent / "worlds"


def kinds(candidate) -> list[type]:
    return [type(c.parts[0]) if isinstance(c, ForEach) else type(c) for c in candidate.clauses]


@pytest.mark.parametrize("world", ["commons", "cleanup_mp", "double_vein", "stag_hunt", "gold_key", "locked_pick",
                                   "smithy_chain", "twin_commons"])
def test_every_candidate_renders_in_the_controlled_form(world: str) -> None:
    spec = load_world(world if world in ("commons", "cleanup_mp", "double_vein") else WORLDS / f"{world}.toml")
    players = sorted(spec.players)
    for candidate in candidates(spec):
        parsed = parse_contract(render_contract(candidate.clauses, world=spec.name), players, world=spec.name)
        assert parsed.clauses == candidate.clauses and not parsed.free_text(), candidate.name


def test_a_grow_rule_gives_a_quota_of_what_regrows_in_one_period() -> None:
    names = [c.name for c in candidates(load_world(WORLDS / "pasture.toml"))]
    # 20 over 4 players: no total needed; in the last period all but the 4 that keep the pasture alive
    assert names == ["no quota", "at most 5 pumpkin each every 30 s", "at most 5 pumpkin each every 30 s, the rest in the last period"]
    quota = candidates(load_world(WORLDS / "pasture.toml"))[1].clauses[0]
    assert isinstance(quota, ForEach) and quota.parts[0] == Quota("Ann", "mine", "pumpkin", 5, "at_most", 30.0)


def test_what_regrows_is_offered_as_a_total_and_per_group_when_a_share_each_would_round_down() -> None:
    """12 pumpkins a period over 8 players: a quota each is 1 (8 in all); a total of 12 over all players, or 6 per
    clan, keeps all 12, and the cooperative players split a total without rounding every share down."""
    found = {c.name: c for c in candidates(load_world(WORLDS / "twin_commons.toml"))}
    total = next(c for n, c in found.items() if n.startswith("all players together"))
    assert TotalQuota(("Ada", "Bea", "Cid", "Dov", "Eve", "Fay", "Gus", "Hal"), "mine", "pumpkin", 12, "at_most", 60.0) in total.clauses
    clans = next(c for n, c in found.items() if n.startswith("a total per group"))
    assert TotalQuota(("Ada", "Bea", "Cid", "Dov"), "mine", "pumpkin", 6, "at_most", 60.0) in clans.clauses
    shares = [_quota_share(TotalQuota(tuple("ABCDEFGH"), "mine", "pumpkin", 12, "at_most", 60.0), p) for p in "ABCDEFGH"]
    assert shares == [2, 2, 2, 2, 1, 1, 1, 1] and sum(shares) == 12


def test_pollution_gets_zero_to_two_cleaners() -> None:
    names = [c.name for c in candidates(load_world("cleanup_mp"))]
    cleaners = {n.split(";")[0] for n in names if "cleaner" in n}
    assert cleaners == {"0 cleaners", "1 cleaner (P7)", "2 cleaners (P6, P7)"}


def test_spread_ingredients_are_pooled_for_the_crafter_who_mines_with_the_tool() -> None:
    crafting = next(c for c in candidates(load_world(WORLDS / "stag_hunt.toml")) if "pooled" in c.name)
    assert crafting.clauses == (Deposit("Ben", "stick", 2, "workshop"), Craft("Ada", "iron_pickaxe", 1),
                                Assignment("Ada", "mine", "diamond_ore"))


def test_a_tool_nobody_holds_is_planned_through_every_recipe_level_from_everyones_materials() -> None:
    """smithy_chain: logs (Nia) and raw iron with coal (Oto) make an iron_pickaxe: planks, a crafting table placed,
    sticks, ingots smelted; Oto holds most of it, so Nia deposits the logs it lacks."""
    crafting = next(c for c in candidates(load_world(WORLDS / "smithy_chain.toml")) if "pooled" in c.name)
    assert crafting.clauses == (Deposit("Nia", "oak_log", 2, "depot"), Craft("Oto", "iron_pickaxe", 1),
                                Assignment("Oto", "mine", "diamond_ore"))
    assert "(7 steps)" in crafting.name


def test_a_tool_in_an_owners_chest_is_lent_down_a_chain_and_back_to_the_owner() -> None:
    lent = next(c for c in candidates(load_world(WORLDS / "locked_pick.toml")) if "lent in turn" in c.name)
    assert [c for c in lent.clauses if isinstance(c, TurnTaking)] == [
        TurnTaking("Sam", "iron_pickaxe", "Tia", True), TurnTaking("Tia", "iron_pickaxe", "Rex", True)]
    assert {Assignment("Sam", "mine", "diamond_ore"), Assignment("Tia", "mine", "gold_ore")} <= set(lent.clauses)


def test_a_tool_in_a_chest_nobody_owns_that_several_need_is_relayed_and_the_ores_really_held() -> None:
    """One iron_pickaxe for three ores each valued most by another player: passed Ann -> Bo -> Cy, every ore is mined
    by whoever values it; the search's best is that relay, its welfare in the inventories, not only settled gifts."""
    spec = load_world(WORLDS / "relay.toml")
    relay = next(c for c in candidates(spec) if "lent in turn" in c.name)
    assert [c for c in relay.clauses if isinstance(c, TurnTaking)] == [
        TurnTaking("Ann", "iron_pickaxe", "Bo", True), TurnTaking("Bo", "iron_pickaxe", "Cy", True)]
    assert not any(isinstance(c, Assignment) and c.verb == "take" for c in relay.clauses)
    found = asyncio.run(search(spec))
    assert found.outside == {"Ann": 39, "Bo": 0, "Cy": 0}
    assert found.best.welfare == 80 and "lent in turn" in found.best.candidate.name
    assert all(found.best.rewards[p] >= found.outside[p] for p in found.outside)


@pytest.mark.parametrize("world", ["locked_pick", "relay", "owners_turn"])
def test_no_clause_of_a_hold_ups_optimum_is_broken_when_the_cooperative_players_play_it(world: str) -> None:
    """In owners_turn the owner needs her tool too: her turn is the lending chain's last. A clause "Vic takes the
    iron_pickaxe" would read as only Vic taking it, broken by every borrower the chain hands it to."""
    spec = load_world(WORLDS / f"{world}.toml")
    best = asyncio.run(best_contract(spec)).best
    assert "lent in turn" in best.candidate.name
    contract = parse_contract(render_contract(best.candidate.clauses, world=spec.name), sorted(spec.players), world=spec.name)
    obs = asyncio.run(play(spec, contract, 0))
    judgment = judge_formal(contract, obs)
    assert [c for c in judgment.clauses if c["status"] == "broken"] == []
    if world == "owners_turn":  # Wes, then Xan, then Vic mine with it: every ore, the tool back in the locker
        assert not any(isinstance(c, Assignment) and c.verb == "take" for c in best.candidate.clauses)
        assert [c for c in best.candidate.clauses if isinstance(c, TurnTaking)] == [
            TurnTaking("Wes", "iron_pickaxe", "Xan", True), TurnTaking("Xan", "iron_pickaxe", "Vic", True)]
        assert obs.inventories["Vic"]["raw_iron"] == 3 and best.welfare == 53


def test_items_go_to_whoever_values_them_most() -> None:
    gifts = [c for c in candidates(load_world(WORLDS / "gold_key.toml")) if Give in kinds(c)]
    assert gifts and Give("Ada", "Ben", "raw_gold", None) in gifts[0].clauses
    assert "outside option" in OBJECTIVE


def test_transfers_give_each_its_outside_option_and_an_equal_part_of_the_surplus() -> None:
    assert _transfers({"A": 60.0, "B": 0.0, "C": 30.0}, {"A": 40.0, "B": 5.0, "C": 15.0}) == [
        FixedTransfer("A", "B", 10.0), FixedTransfer("C", "B", 5.0)]  # surplus 30: A 50, B 15, C 25
    assert _transfers({"A": 10.0, "B": 10.0}, {"A": 15.0, "B": 15.0}) is None  # no contract beats none for both


def test_the_search_leaves_nobody_below_its_outside_option_in_a_hold_up() -> None:
    """Rex holds the tool: without a contract he mines with it himself (40). Equal shares of the lent tool's 108
    would give him 36; the search settles by transfers instead, and every player ends at least at its outside option."""
    found = asyncio.run(search(load_world(WORLDS / "locked_pick.toml")))
    assert found.outside["Rex"] == 40 and found.best.admissible and found.best.welfare == 108
    assert all(found.best.rewards[p] >= found.outside[p] for p in found.outside)
    assert found.best.settlement.startswith("transfers") and found.best.rewards["Rex"] > 108 / 3
    assert found.episodes == len(found.evaluations) + 1
    for e in found.evaluations:  # settled contracts are played and judged as clause values: they read back the same
        text = render_contract(e.candidate.clauses, world="locked_pick")
        assert parse_contract(text, sorted(found.outside), world="locked_pick").clauses == e.candidate.clauses


def test_a_candidate_whose_episode_was_lost_fails_the_search_instead_of_scoring() -> None:
    """A candidate's episode in which Node (or the bridge, the sandbox) lost a program must not be scored: its welfare
    would steer the search with nobody told (seen: the bots' runtime killed during a cleanup_mp run's search, the run
    still exited 0). Here a real simulated episode's result for one player is marked lost, as SimWorld marks it."""
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
    spec = load_world(WORLDS / "split_ingredients.toml")
    crafting = next(c for c in candidates(spec) if c.name.startswith("pooled materials"))
    assert Craft("Dee", "iron_pickaxe", 1) in crafting.clauses
    evaluation = asyncio.run(evaluate(spec, crafting, 0))
    assert evaluation.welfare > 24  # the iron alone (6 x 4); with the crafted pickaxe Dee also mines diamonds


def test_scripted_negotiators_refuse_a_proposal_below_their_outside_option_and_accept_a_better_one() -> None:
    """Equal shares of the tool lent down the chain: 36 each, less than the 40 Rex gets alone, more than the search's
    contract gives Sam (24.67): Rex refuses it and says why, Sam accepts it."""
    from blockpact.agents.negotiation import NegotiationTurn, ScriptedNegotiator
    from blockpact.agents.scripted.appraisal import Appraiser
    from blockpact.agents.scripted.contract_search import best_contract

    spec = load_world(WORLDS / "locked_pick.toml")
    text = ("1. Sam mines all diamond_ore.\n2. Tia mines all gold_ore.\n"
            "3. Sam takes the iron_pickaxe first and returns it to the chest, then signals Tia.\n"
            "4. Tia takes the iron_pickaxe first and returns it to the chest, then signals Rex.\n"
            "5. All players share their rewards equally.")
    found = asyncio.run(best_contract(spec))
    offer = NegotiationTurn(1, "Tia", "", "", text, False, "", source="llm")

    def reply(player: str):
        negotiator = ScriptedNegotiator(player, spec, clauses=found.best.candidate.clauses, reason=found.summary(),
                                        appraise=Appraiser(spec, player, found))
        return asyncio.run(negotiator.reply([offer], 2, 4))

    rex, sam = reply("Rex"), reply("Sam")
    assert not rex.accept and rex.proposal is not None
    assert rex.message.startswith("I refuse the standing proposal: played on the simulator it gives me 36, less than the 40")
    assert sam.accept and sam.proposal is None
