"""The Voyager loop end to end: the real openai client over HTTP against the stub, programs in the
SES sandbox on a simulated Double-Vein world, skills on disk."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from blockpact.agents.action import LLMActionAgent
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import render
from blockpact.agents.critic import Critic
from blockpact.llm import read_transcript
from blockpact.llm.client import LLMClient
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.agents.voyager_loop import LLMSkillDescriber, VoyagerLoop
from blockpact.bridge.sim import SimWorld
from blockpact.skills.library import SkillLibrary
from blockpact.worlds.world_files import load_world

TASK = "Mine 3 iron_ore."
WRONG_CHEST = """Explain: First round.
Plan:
1) Take a pickaxe. 2) Mine.
Code:
```javascript
async function mineThreeIronOre(bot) {
  await getItemFromChest(bot, new Vec3(6, 64, 6), { stone_pickaxe: 1 });
  await mineBlock(bot, "iron_ore", 3);
}
```"""
RIGHT_CHEST = WRONG_CHEST.replace("new Vec3(6, 64, 6)", "new Vec3(6, 64, 7)").replace("First round.", "The chest is at (6, 64, 7).")
VERDICT = '{"reasoning": "The inventory holds 3 raw_iron.", "success": true, "critique": ""}'
DESCRIPTION = "Takes a stone pickaxe from the chest at (6, 64, 7) and mines 3 iron ore."
USAGE = {"action": (1000, 100), "critic": (400, 30), "skill": (300, 20)}


class RoleScript:
    """Answers each role (told apart by its system prompt) from its own queue of replies."""

    def __init__(self, action: list[str]) -> None:
        self.queues = {"action": deque(action), "critic": deque([VERDICT]), "skill": deque([DESCRIPTION])}

    @staticmethod
    def role_of(request: dict[str, Any]) -> str:
        system = request["messages"][0]["content"]
        return {render("critic_system"): "critic", render("action_skill_system"): "skill"}.get(system, "action")

    def __call__(self, request: dict[str, Any]) -> StubReply:
        role = self.role_of(request)
        prompt, completion = USAGE[role]
        return StubReply(self.queues[role].popleft(), prompt_tokens=prompt, completion_tokens=completion)


@pytest.fixture(scope="module")
def spec():
    return load_world("double_vein")


def run_loop(stub: OpenAIStub, spec, tmp: Path, *, cache: Path | None = None, **settings: Any):
    async def go():
        world = SimWorld(spec, seed=0)
        library = SkillLibrary(tmp / "skills")
        try:
            async with LLMClient(stub_settings(stub, cache_dir=cache, **settings), transcript=tmp / "llm.jsonl") as client:
                loop = VoyagerLoop(LLMActionAgent(client, "Gizmo", spec, library), Critic(client), world.body("Gizmo"),
                                   library=library, describer=LLMSkillDescriber(client))
                outcome = await loop.run_task(ActionContext(player="Gizmo", world=spec, task=TASK))
                return outcome, loop, library, client
        finally:
            await world.close()

    return asyncio.run(go())


def test_an_error_reaches_the_next_prompt_and_the_fix_becomes_a_skill(spec, tmp_path: Path) -> None:
    script = RoleScript([WRONG_CHEST, RIGHT_CHEST])
    with OpenAIStub(responder=script) as stub:
        outcome, loop, library, client = run_loop(stub, spec, tmp_path)
        requests = [r.body for r in stub.chat_requests]
    assert [RoleScript.role_of(r) for r in requests] == ["action", "action", "critic", "skill"]  # no critic for an error
    first, second = outcome.attempts
    assert first.result.error.endswith("No chest at (6, 64, 6), it is air (program line 2)")
    assert first.critique.source == "execution" and not first.critique.success
    retry_prompt = requests[1]["messages"][-1]["content"]
    assert f"Execution error: {first.result.error}" in retry_prompt
    assert "new Vec3(6, 64, 6)" in retry_prompt.split("Your last program:")[1]
    assert second.result.success and second.result.observation["inventory"]["raw_iron"] == 3
    assert outcome.success and outcome.context.inventory["raw_iron"] == 3
    skill = library.get("mineThreeIronOre")
    assert skill is not None and skill.description == DESCRIPTION and "new Vec3(6, 64, 7)" in skill.code
    assert outcome.skill == skill
    assert [e.kind for e in loop.events] == [
        "proposal", "program_result", "critique", "proposal", "program_result", "critique", "skill_added", "task_done"]
    assert {e.label for e in loop.events} == {"llm"}
    # Token accounting is the stub's usage fields, per role.
    roles = client.accounting.by_role()
    assert (roles["action"].calls, roles["action"].prompt_tokens, roles["action"].completion_tokens) == (2, 2000, 200)
    assert (roles["critic"].prompt_tokens, roles["skill"].completion_tokens) == (400, 20)
    assert client.accounting.total().prompt_tokens == 2700
    assert [r["role"] for r in read_transcript(tmp_path / "llm.jsonl")] == ["action", "action", "critic", "skill"]


def test_unparseable_replies_are_asked_again_with_the_parse_error(spec, tmp_path: Path) -> None:
    no_code = "Explain: I will take the pickaxe and mine."
    bad_syntax = "Code:\n```javascript\nasync function mineThreeIronOre(bot) {\n  await mineBlock(bot, 'iron_ore', 3\n}\n```"
    with OpenAIStub(responder=RoleScript([no_code, bad_syntax, RIGHT_CHEST])) as stub:
        outcome, loop, _library, _client = run_loop(stub, spec, tmp_path)
        actions = [r.body for r in stub.chat_requests if RoleScript.role_of(r.body) == "action"]
    assert outcome.success and len(outcome.attempts) == 1
    assert len(actions) == 3
    assert actions[1]["messages"][-2] == {"role": "assistant", "content": no_code}
    assert "the reply has no ```javascript code block" in actions[1]["messages"][-1]["content"]
    assert "Unexpected token at line 3, column 0 of the code" in actions[2]["messages"][-1]["content"]
    assert outcome.attempts[0].proposal.replies == (no_code, bad_syntax, RIGHT_CHEST)


def test_no_runnable_program_ends_the_task_cleanly(spec, tmp_path: Path) -> None:
    with OpenAIStub(responder=RoleScript(["no code"] * 3)) as stub:
        outcome, loop, _library, _client = run_loop(stub, spec, tmp_path)
        assert len(stub.chat_requests) == 3  # action.toml: extraction_attempts = 3
    assert not outcome.success and outcome.attempts == []
    assert "no runnable program in 3 replies" in (outcome.reason or "")
    assert [e.kind for e in loop.events] == ["proposal_failed", "task_done"]


def test_the_loop_survives_rate_limits_server_errors_and_timeouts(spec, tmp_path: Path) -> None:
    with OpenAIStub([StubReply.rate_limited("0"), StubReply.server_error(500), StubReply.slow(2.0)],
                    responder=RoleScript([WRONG_CHEST, RIGHT_CHEST])) as stub:
        outcome, _loop, _library, _client = run_loop(stub, spec, tmp_path, timeout_s=0.5, max_retries=3)
        assert len(stub.chat_requests) == 3 + 4
    assert outcome.success and len(outcome.attempts) == 2
    first_call = read_transcript(tmp_path / "llm.jsonl")[0]
    assert [a["status"] for a in first_call["failed_attempts"]] == [429, 500, None]


def test_a_rerun_is_answered_from_the_cache(spec, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with OpenAIStub(responder=RoleScript([WRONG_CHEST, RIGHT_CHEST])) as stub:
        first, *_ = run_loop(stub, spec, tmp_path / "one", cache=cache)
        sent = len(stub.chat_requests)
        again, _loop, _library, client = run_loop(stub, spec, tmp_path / "two", cache=cache)
        assert len(stub.chat_requests) == sent  # zero new HTTP requests
    assert again.success and [a.proposal.code for a in again.attempts] == [a.proposal.code for a in first.attempts]
    total = client.accounting.total()
    assert (total.calls, total.cached_calls, total.cost_usd) == (4, 4, 0.0)
    assert dataclasses.asdict(again.attempts[1].result)["observation"]["inventory"]["raw_iron"] == 3
