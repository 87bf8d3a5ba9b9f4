"""The critic against the OpenAI stub over HTTP: verdicts, execution errors, malformed JSON."""

from __future__ import annotations

import asyncio

import pytest

from blockpact.agents.critic import Critic, CriticError, ScriptedCritic
from blockpact.llm.client import LLMClient
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.bridge.protocols import ProgramResult

OBSERVATION = {"position": [3, 64, 5], "inventory": {"raw_iron": 3, "stone_pickaxe": 1}, "held": "stone_pickaxe",
               "time": 14.5, "nearby_blocks": {"iron_ore": 9}, "chests": {"6,64,7": {"iron_pickaxe": 1}}}


def ran(**changes: object) -> ProgramResult:
    fields = dict(player="Gizmo", success=True, error=None, error_line=None, stack=None,
                  chat=["I mined 3 iron_ore"], observation=OBSERVATION, duration=12.0)
    return ProgramResult(**{**fields, **changes})  # type: ignore[arg-type]


def critique(stub: OpenAIStub, result: ProgramResult, **kwargs: object):
    async def go():
        async with LLMClient(stub_settings(stub)) as client:
            return await Critic(client, **kwargs).critique("Mine 3 iron_ore.", result)  # type: ignore[arg-type]

    return asyncio.run(go())


def test_a_verdict_from_the_observation() -> None:
    with OpenAIStub(['```json\n{"reasoning": "3 raw_iron", "success": true, "critique": ""}\n```']) as stub:
        verdict = critique(stub, ran())
        [request] = stub.chat_requests
    assert (verdict.success, verdict.reasoning, verdict.source) == (True, "3 raw_iron", "llm")
    user = request.body["messages"][-1]["content"]
    assert "Task: Mine 3 iron_ore." in user
    assert "raw_iron: 3, stone_pickaxe: 1" in user and "I mined 3 iron_ore" in user
    assert request.body["temperature"] == 0.1


def test_an_execution_error_fails_without_asking() -> None:
    with OpenAIStub() as stub:
        verdict = critique(stub, ran(success=False, error="No chest at (6, 64, 6), it is air", error_line=2))
        timed_out = critique(stub, ran(success=False, error="timed out after 300 s of simulated time", timed_out=True))
        assert stub.chat_requests == []
    assert not verdict.success and verdict.source == "execution"
    assert "No chest at (6, 64, 6), it is air (program line 2)" in verdict.critique
    assert not timed_out.success and "timed out after 300 s" in timed_out.critique


def test_malformed_json_is_asked_again_with_the_problem() -> None:
    replies = ["Looks good to me!", '{"reasoning": "ok", "success": "yes"}', '{"reasoning": "ok", "success": false, "critique": "mine more"}']
    with OpenAIStub(replies) as stub:
        verdict = critique(stub, ran())
        requests = stub.chat_requests
    assert (verdict.success, verdict.critique) == (False, "mine more")
    assert len(requests) == 3
    assert "no JSON object in the reply" in requests[1].body["messages"][-1]["content"]
    assert requests[1].body["messages"][-2] == {"role": "assistant", "content": "Looks good to me!"}
    assert '"success" must be true or false, got "yes"' in requests[2].body["messages"][-1]["content"]


def test_never_json_is_reported_clearly() -> None:
    with OpenAIStub(["nope", "{broken", "still nope"]) as stub:
        with pytest.raises(CriticError, match=r"no usable verdict in 3 replies; last problem: no JSON object"):
            critique(stub, ran())
        assert len(stub.chat_requests) == 3


def test_scripted_critic_accepts_a_run_to_the_episode_end() -> None:
    scripted = ScriptedCritic()
    ended = asyncio.run(scripted.critique("t", ran(success=False, error="timed out", timed_out=True)))
    failed = asyncio.run(scripted.critique("t", ran(success=False, error="TypeError: x is undefined", error_line=4)))
    assert ended.success and ended.source == "scripted"
    assert not failed.success and "(program line 4)" in failed.critique


def test_the_critic_is_shown_the_player_and_the_contract_it_is_under() -> None:
    contract = "1. Gizmo does not mine iron_ore.\n2. Glitch gives 2 raw_iron to Gizmo."

    async def go(stub: OpenAIStub, contract: str | None) -> None:
        async with LLMClient(stub_settings(stub)) as client:
            await Critic(client).critique("Mine 3 iron_ore.", ran(), contract)

    verdict = '{"reasoning": "r", "success": false, "critique": "keep clause 1"}'
    with OpenAIStub([verdict, verdict]) as stub:
        asyncio.run(go(stub, contract))
        asyncio.run(go(stub, None))
        under, without = (r.body["messages"][-1]["content"] for r in stub.chat_requests)
    assert "Player: Gizmo" in under and contract in under
    assert "Contract the player is under:\nnone (no contract was adopted)" in without
