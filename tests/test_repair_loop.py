"""Every role repairs unusable replies the same way, against the stub over HTTP: an empty body (what
small models return when they stop at once) is asked again, a reply that does not parse is sent
back with the reason, and each role tries the same number of times before it reports a failure."""

from __future__ import annotations

import asyncio
import json

import pytest

from blockpact.agents.action import LLMActionAgent, ProposalError
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_settings import action_settings
from blockpact.agents.critic import Critic, CriticError
from blockpact.llm.client import LLMClient
from blockpact.llm.errors import LLMBadReply
from blockpact.agents.negotiation import LLMNegotiator, load_negotiation_settings
from blockpact.llm.repair import find_json_object
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.bridge.protocols import ProgramResult
from blockpact.judge.llm_judge import load_judge_settings
from blockpact.worlds.world_files import load_world

PROGRAM = "Explain: none.\nPlan:\n1) Mine.\nCode:\n```javascript\nasync function mine(bot) {\n  await mineBlock(bot, 'iron_ore', 1);\n}\n```"
VERDICT = 'Sure! Here is my verdict: {"reasoning": "has iron", "success": true, "critique": ""} Hope this {helps}.'
TURN = "[thinking] fine\n[message] Let us split.\n[contract]\n1. Gizmo mines all iron_ore.\n[contract end]"


def run(coro_factory, replies):
    async def go():
        with OpenAIStub(replies) as stub:
            async with LLMClient(stub_settings(stub)) as client:
                return await coro_factory(client), stub.chat_requests
    return asyncio.run(go())


def test_every_role_has_the_same_number_of_attempts() -> None:
    s = action_settings()
    assert {s.action.extraction_attempts, s.critic.json_attempts, load_negotiation_settings().negotiation.attempts,
            load_judge_settings().attempts} == {3}


@pytest.fixture(scope="module")
def spec():
    return load_world("double_vein")


def test_the_action_agent_asks_again_after_an_empty_body_and_a_reply_without_code(spec) -> None:
    ctx = ActionContext(player="Gizmo", world=spec, task="Mine iron.")
    proposal, requests = run(lambda c: LLMActionAgent(c, "Gizmo", spec).propose(ctx),
                             [StubReply.empty(), "I would mine iron.", PROGRAM])
    assert proposal.function_name == "mine" and len(requests) == 3
    assert requests[1].body["messages"] == requests[0].body["messages"]  # the empty body: asked again as it was
    assert "no ```javascript code block" in requests[2].body["messages"][-1]["content"]  # the reason sent back


def test_the_action_agent_fails_after_three_unusable_replies(spec) -> None:
    ctx = ActionContext(player="Gizmo", world=spec, task="Mine iron.")
    with pytest.raises(ProposalError, match=r"no runnable program in 3 replies; last problem: .*empty content"):
        run(lambda c: LLMActionAgent(c, "Gizmo", spec).propose(ctx), ["no code", "still none", StubReply.empty()])


def test_a_reply_cut_at_the_length_limit_says_so(spec) -> None:
    ctx = ActionContext(player="Gizmo", world=spec, task="Mine iron.")
    cut = StubReply("Code:\n```javascript\nasync function mine(bot) {\n  await mineBlock(bot,", finish_reason="length")
    _, requests = run(lambda c: LLMActionAgent(c, "Gizmo", spec).propose(ctx), [cut, PROGRAM])
    assert "cut off at the length limit" in requests[1].body["messages"][-1]["content"]


def test_the_critic_reads_json_in_prose_and_asks_again_after_an_empty_body() -> None:
    result = ProgramResult("Gizmo", True, None, None, None, observation={"inventory": {"raw_iron": 1}})
    verdict, requests = run(lambda c: Critic(c).critique("Mine iron.", result), [StubReply.empty(), VERDICT])
    assert verdict.success and verdict.reasoning == "has iron" and len(requests) == 2


def test_three_empty_bodies_are_the_endpoints_failure_not_the_agents() -> None:
    result = ProgramResult("Gizmo", True, None, None, None)
    with pytest.raises(LLMBadReply, match="empty content"):
        run(lambda c: Critic(c).critique("Mine iron.", result), [StubReply.empty()] * 3)


def test_the_critic_fails_after_three_unusable_replies() -> None:
    result = ProgramResult("Gizmo", True, None, None, None)
    with pytest.raises(CriticError, match="no usable verdict in 3 replies"):
        run(lambda c: Critic(c).critique("Mine iron.", result), [StubReply.empty(), "no json", "still none"])


def test_the_negotiator_asks_again_after_an_empty_body(spec) -> None:
    turn, requests = run(lambda c: LLMNegotiator(c, "Gizmo", spec).reply([], 1, 4), [StubReply.empty(), TURN])
    assert turn.proposal == "1. Gizmo mines all iron_ore." and turn.attempts == 2 and len(requests) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"success": false}\n```', {"success": False}),
        ('I think {this} is fine: {"success": true, "x": {"y": 1}} ok', {"success": True, "x": {"y": 1}}),
        ('{"other": 1} and then {"success": true}', {"success": True}),
    ],
)
def test_json_is_found_in_fences_and_prose(text: str, expected: dict) -> None:
    assert find_json_object(text, required="success") == expected


def test_json_problems_are_named() -> None:
    with pytest.raises(ValueError, match="no JSON object in the reply"):
        find_json_object("no braces here")
    with pytest.raises(ValueError, match=r'no JSON object with "success"'):
        find_json_object('{"reasoning": "x"}', required="success")
    with pytest.raises(ValueError, match=r"invalid JSON \(Expecting"):
        find_json_object('{"success": tru}')
    assert json.dumps(find_json_object('{"a": 1}')) == '{"a": 1}'
