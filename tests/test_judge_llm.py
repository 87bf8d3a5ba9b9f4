"""The LLM judge with the real `openai` client over HTTP against the local stub: validation and retries."""

from __future__ import annotations

import asyncio
import json

import pytest

from blockpact.llm import LLMClient
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.judge.contract import parse_contract
from blockpact.judge.judgment import LLMJudge, compare_judgments, judge_formal, rewards_after
from blockpact.judge.llm_judge import InvalidReply, load_judge_settings, validate_reply
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.events import Event
from blockpact.worlds.world_files import BUILTIN_DIR, load_world
from blockpact.worlds.sim.simulator import Simulation

from sim_programs import POLICIES

PLAYERS = ["Gizmo", "Glitch"]
CONTRACT = """1. Gizmo mines all iron_ore.
2. Glitch mines all diamond_ore.
3. At the end of the scenario Gizmo transfers 9 emeralds to Glitch."""


def answer(transfers: dict, critiques: dict | None = None, reasoning: str = "clause 3") -> str:
    return json.dumps({"reasoning": reasoning, "transfers": transfers, "critiques": critiques or {}})


GOOD = answer({"Gizmo": -9, "Glitch": 9}, {"Gizmo": "kept it", "Glitch": "kept it"})


@pytest.fixture(scope="module")
def obs():
    spec = load_world(BUILTIN_DIR / "double_vein.toml")
    sim = Simulation(spec, seed=0)
    sim.state.log.emit(Event(0.0, "Gizmo", "task", {"task": "Mine all iron_ore"}))

    async def gizmo(api):
        await api.chat("I will mine the iron")
        await POLICIES["social_split"](api)

    asyncio.run(sim.run({"Gizmo": gizmo, "Glitch": POLICIES["social_split"]}))
    sim.finish()
    return observables_from_events(spec, sim.state.log.events)


def run_judge(stub: OpenAIStub, obs, contract_text: str = CONTRACT):
    async def go():
        async with LLMClient(stub_settings(stub)) as client:
            return await LLMJudge(client).judge(parse_contract(contract_text, PLAYERS), obs)

    return asyncio.run(go())


def test_a_valid_reply_is_the_judgment(obs) -> None:
    with OpenAIStub([GOOD]) as stub:
        judgment = run_judge(stub, obs)
        [request] = stub.chat_requests
    assert judgment.valid and judgment.source == "llm" and judgment.attempts == 1
    assert judgment.transfers == {"Gizmo": -9.0, "Glitch": 9.0}
    assert judgment.critiques == {"Gizmo": "kept it", "Glitch": "kept it"}
    assert rewards_after(obs, judgment) == {"Gizmo": 39.0, "Glitch": 39.0}
    assert compare_judgments(judge_formal(parse_contract(CONTRACT, PLAYERS), obs), judgment) == []
    body = request.body
    assert body["temperature"] == 0.1  # the judge role
    system, user = body["messages"]
    assert "Ignore every clause without an" in system["content"] and "Example 2." in system["content"]
    assert "Gizmo, Glitch" in system["content"]
    for fact in ("Scenario: double_vein\nTwo players, Gizmo and Glitch, share a small quarry", CONTRACT, "Gizmo: I will mine the iron", "- Gizmo: Mine all iron_ore", "- Gizmo: 12 raw_iron",
                 "- Glitch: 6 diamond, 1 iron_pickaxe", "- Gizmo: 12 iron_ore", "raw_iron 3", "chest at 6,64,7: nothing"):
        assert fact in user["content"], fact


def test_invalid_json_is_sent_back_then_a_valid_reply_is_used(obs) -> None:
    with OpenAIStub(['{"transfers": {"Gizmo": -9, "Glitch": 9}', "```json\n" + GOOD + "\n```"]) as stub:
        judgment = run_judge(stub, obs)
        first, second = stub.chat_requests
    assert judgment.valid and judgment.attempts == 2 and judgment.transfers == {"Gizmo": -9.0, "Glitch": 9.0}
    assert judgment.problems == ["attempt 1: not valid JSON (Expecting ',' delimiter at line 1 column 41)"]
    retry = second.body["messages"]
    assert retry[:2] == first.body["messages"]
    assert retry[2] == {"role": "assistant", "content": '{"transfers": {"Gizmo": -9, "Glitch": 9}'}
    assert retry[3]["role"] == "user" and "not valid JSON (Expecting ',' delimiter" in retry[3]["content"]


def test_a_non_zero_sum_reply_is_rejected_and_retried(obs) -> None:
    with OpenAIStub([answer({"Gizmo": -9, "Glitch": 11}), GOOD]) as stub:
        judgment = run_judge(stub, obs)
        retry = stub.chat_requests[1].body["messages"][-1]["content"]
    assert judgment.valid and judgment.attempts == 2
    assert "the transfers add up to 2, not 0" in retry and "the transfers add up to 2" in judgment.problems[0]


def test_an_unknown_player_is_rejected_and_retried(obs) -> None:
    with OpenAIStub([answer({"Gizmo": -9, "Bob": 9}), answer({"gizmo": -4.5, "GLITCH": 4.5})]) as stub:
        judgment = run_judge(stub, obs)
        retry = stub.chat_requests[1].body["messages"][-1]["content"]
    assert "'transfers' names unknown player 'Bob' (players: Gizmo, Glitch)" in retry
    assert judgment.transfers == {"Gizmo": -4.5, "Glitch": 4.5}  # names matched without case


def test_all_invalid_replies_give_an_invalid_judgment_with_every_reason(obs) -> None:
    attempts = load_judge_settings().attempts
    with OpenAIStub(["no idea", StubReply.empty(), answer({"Gizmo": "nine", "Glitch": 9})]) as stub:
        judgment = run_judge(stub, obs)
        assert len(stub.chat_requests) == attempts == 3
    assert not judgment.valid and judgment.attempts == 3
    assert judgment.transfers == {"Gizmo": 0.0, "Glitch": 0.0}
    assert judgment.error.startswith("the LLM judge gave no valid judgment in 3 attempts: attempt 3: the transfer for Gizmo")
    assert judgment.problems[0] == "attempt 1: no JSON object found in the answer"
    assert "empty content" in judgment.problems[1]
    assert rewards_after(obs, judgment) == {"Gizmo": 48.0, "Glitch": 30.0}


def test_no_contract_needs_no_llm_call(obs) -> None:
    with OpenAIStub() as stub:
        judgment = run_judge(stub, obs, contract_text="")
        assert stub.chat_requests == []
    assert judgment.valid and judgment.transfers == {"Gizmo": 0.0, "Glitch": 0.0}


def test_disagreements_with_the_formal_judge_are_listed(obs) -> None:
    with OpenAIStub([answer({"Gizmo": -12, "Glitch": 12})]) as stub:
        judgment = run_judge(stub, obs)
    [gizmo, glitch] = compare_judgments(judge_formal(parse_contract(CONTRACT, PLAYERS), obs), judgment)
    assert (gizmo.player, gizmo.difference, glitch.difference) == ("Gizmo", -3.0, 3.0)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("[1, 2]", "no JSON object found"),
        ('{"transfers": [1]}', "'transfers' must be an object"),
        ('{"critiques": {}}', "has no 'transfers'"),
        ('{"transfers": {"Gizmo": true, "Glitch": 0}}', "must be a finite number, got true"),
        ('{"transfers": {"Gizmo": NaN, "Glitch": 0}}', "must be a finite number, got NaN"),
        ('{"transfers": {"Gizmo": 1e400, "Glitch": 0}}', "must be a finite number"),
        ('{"transfers": {"Gizmo": 0}, "critiques": {"Steve": "x"}}', "'critiques' names unknown player 'Steve'"),
        ('{"transfers": {"Gizmo": 0}, "critiques": {"Gizmo": 3}}', "the critique for Gizmo must be a string"),
        ('{"transfers": {"Gizmo": 1, "Glitch": -0.9}}', "add up to 0.1"),
    ],
)
def test_validation_reasons(reply: str, reason: str) -> None:
    with pytest.raises(InvalidReply, match=reason.replace("(", r"\(").replace(")", r"\)")):
        validate_reply(reply, PLAYERS, 1e-6)


def test_validation_fills_missing_players_and_tolerates_rounding() -> None:
    transfers, critiques, reasoning = validate_reply(
        'Here: {"transfers": {"Gizmo": -3.3333333, "Glitch": 3.3333333}}', ["Gizmo", "Glitch", "Gadget"], 1e-6
    )
    assert transfers == {"Gizmo": -3.3333333, "Glitch": 3.3333333, "Gadget": 0.0}
    assert critiques == {"Gizmo": "", "Glitch": "", "Gadget": ""} and reasoning == ""
