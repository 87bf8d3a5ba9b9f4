"""Scripted baseline players: real JS programs from templates, run in the sandbox on SimWorld."""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path

import pytest

from blockpact.agents.action import Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.critic import ScriptedCritic
from blockpact.agents.scripted import ScriptedCooperativeAgent, ScriptedGreedyAgent
from blockpact.agents.scripted.program import fill
from blockpact.agents.voyager_loop import VoyagerLoop
from blockpact.bridge.protocols import ProgramResult
from blockpact.bridge.sim import SimWorld
from blockpact.judge.contract import parse_contract
from blockpact.skills.library import SkillLibrary
from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import WorldSpec

SPLIT = """1. Gizmo mines all iron_ore.
2. Glitch mines all diamond_ore.
3. At the end of the scenario Gizmo transfers 9 emeralds to Glitch."""
TURNS = """1. Gizmo takes the iron_pickaxe first and returns it to the chest, then signals Glitch.
2. Gizmo mines all iron_ore.
3. Glitch mines all diamond_ore."""
CLEANUP = """1. Gizmo cleans the river.
2. Glitch harvests all red_mushroom_block.
3. At the end of the scenario Glitch transfers 50% of the value of his red_mushroom to Gizmo."""


@cache
def spec(name: str) -> WorldSpec:
    return load_world(name)


def proposals(world: str, contract: str | None) -> dict[str, Proposal]:
    s = spec(world)
    players = sorted(s.players)
    if contract is None:
        return {p: ScriptedGreedyAgent(p, s).proposal() for p in players}
    parsed = parse_contract(contract, players)
    return {p: ScriptedCooperativeAgent(p, s, parsed).proposal() for p in players}


@cache
def episode(world: str, contract: str | None, seed: int = 0) -> tuple[dict[str, float], dict[str, ProgramResult], int | None]:
    """Rewards (before transfers), program results, and slime left in a river region if there is one."""
    s = spec(world)

    async def play():
        sim_world = SimWorld(s, seed=seed)
        try:
            programs = {p: prop.code for p, prop in proposals(world, contract).items()}
            results = await sim_world.run_programs(programs, budget=s.episode_seconds)
            sim_world.finish()
            state = sim_world.sim.state
            slime = state.count_in_region("slime_block", "river") if "river" in s.regions else None
            return {p: state.reward(p) for p in sorted(s.players)}, results, slime
        finally:
            await sim_world.close()

    return asyncio.run(play())


def test_cooperative_pair_reaches_the_social_optimum_on_double_vein() -> None:
    rewards, results, _ = episode("double_vein", SPLIT)
    gizmo, glitch = results["Gizmo"].observation["inventory"], results["Glitch"].observation["inventory"]
    assert gizmo.get("raw_iron") == 12 and "diamond" not in gizmo
    assert glitch.get("diamond") == 6 and "raw_iron" not in glitch
    assert sum(rewards.values()) == 78
    assert all(r.success and r.error is None for r in results.values())


def test_turn_taking_hands_the_iron_pickaxe_over_with_a_signal() -> None:
    rewards, results, _ = episode("double_vein", TURNS)
    gizmo, glitch = results["Gizmo"].observation["inventory"], results["Glitch"].observation["inventory"]
    assert gizmo == {"raw_iron": 12}  # used the iron_pickaxe, then put it back
    assert glitch == {"diamond": 6, "iron_pickaxe": 1}
    assert sum(rewards.values()) == 78
    assert not any("No signal received" in line for line in results["Glitch"].chat)


def test_greedy_pair_wastes_welfare_on_double_vein() -> None:
    rewards, results, _ = episode("double_vein", None)
    held = [r.observation["inventory"] for r in results.values()]
    assert sum(h.get("raw_iron", 0) for h in held) == 12 and sum(h.get("diamond", 0) for h in held) == 6
    assert sum(rewards.values()) < 78


@pytest.mark.parametrize("seed", [0, 1])
def test_cleaning_the_river_beats_greed_on_cleanup(seed: int) -> None:
    greedy_rewards, greedy_results, greedy_slime = episode("cleanup", None, seed)
    rewards, results, slime = episode("cleanup", CLEANUP, seed)
    assert results["Gizmo"].observation["inventory"].get("slime_block", 0) > 8  # it kept cleaning as slime came back
    assert slime is not None and slime <= 7 < (greedy_slime or 0)
    assert sum(rewards.values()) > 2 * sum(greedy_rewards.values())
    assert all(r.timed_out for r in results.values())  # they play until the scenario ends
    # Waiting for regrowth is quiet: the chat the judge reads holds no idle-waiting lines.
    chat = [line for r in (*results.values(), *greedy_results.values()) for line in r.chat]
    assert chat and not any("No signal received" in line for line in chat)


def test_proposals_are_labelled_scripted_and_deterministic() -> None:
    first, again = proposals("double_vein", SPLIT), proposals("double_vein", SPLIT)
    for player, proposal in first.items():
        assert proposal.scripted and proposal.label == "scripted"
        assert proposal.explain.startswith(f"Scripted cooperative player {player}")
        assert proposal.function_name == "playByContract" and proposal.code == again[player].code
    assert "stone_pickaxe" in first["Gizmo"].explain and "iron_ore" in first["Gizmo"].explain
    greedy = proposals("double_vein", None)["Glitch"]
    assert greedy.explain.startswith("Scripted greedy player Glitch") and "diamond_ore (5 emeralds each)" in greedy.explain


def test_free_text_clauses_are_reported_as_not_followed() -> None:
    s = spec("double_vein")
    contract = parse_contract("1. Gizmo mines all iron_ore.\n2. Glitch is nice to Gizmo.", sorted(s.players))
    proposal = ScriptedCooperativeAgent("Glitch", s, contract).proposal()
    assert "Not followed: clause 2 is free text" in proposal.explain
    assert '"block": "diamond_ore"' in proposal.code and '"block": "iron_ore"' not in proposal.code


def test_templates_must_be_filled_completely() -> None:
    with pytest.raises(ValueError, match=r"\['A', 'B'\] do not match the values given \['A'\]"):
        fill("f(__A__, __B__)", {"A": 1})
    assert fill("f(__A__, __B__)", {"A": [1, 2], "B": None}) == "f([1, 2], null)"


def test_the_loop_stores_a_scripted_program_as_a_labelled_skill(tmp_path: Path) -> None:
    s = spec("double_vein")

    async def go():
        world = SimWorld(s, seed=0)
        try:
            library = SkillLibrary(tmp_path / "skills")
            loop = VoyagerLoop(ScriptedGreedyAgent("Gizmo", s), ScriptedCritic(), world.body("Gizmo"), library=library)
            return await loop.run_task(ActionContext(player="Gizmo", world=s, task="Earn as many emeralds as you can.")), loop, library
        finally:
            await world.close()

    outcome, loop, library = asyncio.run(go())
    assert outcome.success and len(outcome.attempts) == 1
    skill = library.get("playGreedy")
    assert skill is not None and skill.description.startswith("[scripted] Scripted greedy player Gizmo")
    assert {e.label for e in loop.events} == {"scripted"}
    assert outcome.context.inventory.get("diamond") == 6 and outcome.context.inventory.get("raw_iron") == 12


def test_only_scripted_programs_without_library_skills_are_trusted() -> None:
    """The episode engine names as trusted (to be packed into shared sandbox workers) the players whose proposal is
    scripted and loads no library skill: an LLM's program, or one calling skills a model may have written, keeps its
    own worker."""
    from blockpact.experiments.play.episode_engine import trusted_players

    program = "async function main(bot) { return 1; }"
    proposals = {"Gizmo": Proposal("", "", program, "main", scripted=True),
                 "Glitch": Proposal("", "", program, "main", scripted=False),
                 "Gadget": Proposal("", "", program, "main", scripted=True, skills=("async function s() {}",))}
    assert trusted_players(proposals) == frozenset({"Gizmo"})

