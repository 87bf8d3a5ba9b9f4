"""The LLM action agent's prompt and proposal, against the stub over HTTP; a retrieved skill runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.action import LLMActionAgent
from blockpact.agents.action_context import ActionContext
from blockpact.llm.client import LLMClient
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.bridge.sim import SimWorld
from blockpact.skills.library import SkillLibrary
from blockpact.worlds.world_files import load_world

SKILL_CODE = """async function mineThreeIronOre(bot) {
  await getItemFromChest(bot, new Vec3(6, 64, 7), { stone_pickaxe: 1 });
  await mineBlock(bot, "iron_ore", 3);
}"""
USES_SKILL = """Explain: I have a skill for this.
Plan:
1) Call mineThreeIronOre.
Code:
```javascript
async function mineIronTwice(bot) {
  await mineThreeIronOre(bot);
  bot.chat("done with iron");
}
```"""


def test_the_prompt_carries_the_round_and_a_retrieved_skill_runs(tmp_path: Path) -> None:
    spec = load_world("double_vein")
    library = SkillLibrary(tmp_path / "skills")
    library.add("mineThreeIronOre", "Takes a stone pickaxe from the chest and mines 3 iron ore.", SKILL_CODE)
    ctx = ActionContext(
        player="Gizmo", world=spec, task="Mine iron_ore with a pickaxe.",
        contract="1. Gizmo mines all iron_ore.\n2. Glitch mines all diamond_ore.",
        inventory={"stone_pickaxe": 1}, others_inventories={"Glitch": {"diamond": 2}},
        chat_log=["Glitch: I take the iron pickaxe", "Gizmo: fine"],
        last_code="async function old(bot) {}", last_error="Error: No chest at (1, 64, 1), it is air",
        critic_critique="Use the chest at (6, 64, 7).", judge_critique="Gizmo mined no iron_ore yet.",
    )

    async def go():
        world = SimWorld(spec, seed=0)
        try:
            async with LLMClient(stub_settings(stub)) as client:
                proposal = await LLMActionAgent(client, "Gizmo", spec, library).propose(ctx)
            result = await world.body("Gizmo").run(proposal.code, skills=proposal.skills)
            return proposal, result
        finally:
            await world.close()

    with OpenAIStub([USES_SKILL]) as stub:
        proposal, result = asyncio.run(go())
        [request] = stub.chat_requests
    system, user = (m["content"] for m in request.body["messages"])
    assert request.body["temperature"] == 0.1
    assert "await mineBlock(bot, name, count = 1)" in system  # the primitive reference
    assert "// mineThreeIronOre: Takes a stone pickaxe" in system and SKILL_CODE in system
    for expected in ("Task: Mine iron_ore with a pickaxe.", "2. Glitch mines all diamond_ore.", "Your inventory: stone_pickaxe: 1",
                     "- Glitch: diamond: 2", "Glitch: I take the iron pickaxe\nGizmo: fine", "async function old(bot) {}",
                     "Execution error: Error: No chest at (1, 64, 1), it is air", "Critique (critic): Use the chest at (6, 64, 7).",
                     "Critique (judge): Gizmo mined no iron_ore yet.", "raw_iron: 4", "Two players, Gizmo and Glitch"):
        assert expected in user, expected
    assert (proposal.function_name, proposal.scripted, proposal.label) == ("mineIronTwice", False, "llm")
    assert proposal.explain == "I have a skill for this." and proposal.plan == "1) Call mineThreeIronOre."
    assert proposal.skills == (library.get("mineThreeIronOre").code,)
    assert result.success, result.error
    assert result.observation["inventory"]["raw_iron"] == 3 and "done with iron" in result.chat


def test_an_unknown_player_is_refused() -> None:
    spec = load_world("double_vein")
    with OpenAIStub() as stub:
        with pytest.raises(ValueError, match=r"'Nobody' is not a player of world 'double_vein' \(Gizmo, Glitch\)"):
            LLMActionAgent(LLMClient(stub_settings(stub)), "Nobody", spec)
