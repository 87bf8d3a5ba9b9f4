"""Negotiation: the scripted optimum, the protocol, and LLM negotiators against the stub over HTTP."""

from __future__ import annotations

import asyncio
import json

import pytest

from blockpact.llm import LLMClient
from blockpact.agents.negotiation import (
    LLMNegotiator,
    NegotiationTurn,
    ScriptedNegotiator,
    load_negotiation_settings,
    negotiate,
    public_history,
)
from blockpact.agents.negotiation_format import FormatError, parse_reply
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.judge.contract import Assignment, FixedTransfer, ProportionalTransfer, parse_contract
from blockpact.judge.judgment import judge_formal, rewards_after
from blockpact.judge.metrics import gini
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.world_files import BUILTIN_DIR, load_world
from blockpact.worlds.sim.simulator import Simulation

from sim_programs import POLICIES

DOUBLE_VEIN_OPTIMUM = """1. Gizmo mines all iron_ore.
2. Glitch mines all diamond_ore.
3. Glitch takes the iron_pickaxe.
4. Gizmo takes the stone_pickaxe.
5. At the end of the scenario Gizmo transfers 9 emeralds to Glitch."""


@pytest.fixture(scope="module")
def double_vein():
    return load_world(BUILTIN_DIR / "double_vein.toml")


@pytest.fixture(scope="module")
def cleanup():
    return load_world(BUILTIN_DIR / "cleanup.toml")


def propose(thinking: str, message: str, contract: str) -> str:
    return f"[thinking] {thinking}\n[message] {message}\n[contract]\n{contract}\n[contract end]"


def accept(thinking: str, message: str) -> str:
    return f"[thinking] {thinking}\n[message] {message}\n[accept]"


def test_scripted_negotiators_agree_in_round_2_on_the_optimum(double_vein) -> None:
    result = asyncio.run(negotiate([ScriptedNegotiator("Gizmo", double_vein), ScriptedNegotiator("Glitch", double_vein)], 4))
    assert result.accepted_round == 2 and result.contract == DOUBLE_VEIN_OPTIMUM
    first, second = result.turns
    assert (first.player, first.proposal, second.player, second.accept) == ("Gizmo", DOUBLE_VEIN_OPTIMUM, "Glitch", True)
    assert {t.source for t in result.turns} == {"scripted"} and "scripted" in first.thinking
    clauses = parse_contract(result.contract, ["Gizmo", "Glitch"], world="double_vein").clauses
    assert Assignment("Gizmo", "mine", "iron_ore") in clauses and FixedTransfer("Gizmo", "Glitch", 9.0) in clauses


def test_scripted_cleanup_contract(cleanup) -> None:
    negotiator = ScriptedNegotiator("Glitch", cleanup)
    assert negotiator.contract == (
        "1. Gizmo mines all red_mushroom_block.\n"
        "2. Glitch cleans the river.\n"
        "3. At the end of the scenario Gizmo transfers 50% of the value of his red_mushroom to Glitch."
    )
    assert negotiator.clauses[-1] == ProportionalTransfer("Gizmo", "Glitch", 0.5, "red_mushroom")


def test_scripted_accepts_the_same_clauses_in_other_words_and_rejects_others(double_vein) -> None:
    glitch = ScriptedNegotiator("Glitch", double_vein)
    reworded = (
        "1. Gizmo pays Glitch 9 emeralds at the end of the scenario.\n2. Glitch will mine all diamond ore.\n"
        "3. gizmo mines all the iron ores\n4. Gizmo takes the stone pickaxe\n5. Glitch takes the iron pickaxe"
    )
    history = [NegotiationTurn(1, "Gizmo", "", "", reworded, False, "")]
    assert asyncio.run(glitch.reply(history, 2)).accept
    greedy = [NegotiationTurn(1, "Gizmo", "", "", DOUBLE_VEIN_OPTIMUM.replace("9 emeralds", "2 emeralds"), False, "")]
    counter = asyncio.run(glitch.reply(greedy, 2))
    assert not counter.accept and counter.proposal == DOUBLE_VEIN_OPTIMUM


def run_llm(stub: OpenAIStub, spec, rounds: int, players=("Gizmo", "Glitch")):
    async def go():
        async with LLMClient(stub_settings(stub)) as client:
            return await negotiate([LLMNegotiator(client, p, spec) for p in players], rounds)

    return asyncio.run(go())


def sent_text(request) -> str:
    return json.dumps(request.body["messages"])


def test_llm_accept_in_round_i_selects_round_i_minus_1_and_thinking_never_leaks(double_vein) -> None:
    first = "1. Gizmo mines all iron_ore.\n2. At the end of the scenario Gizmo transfers 5 emeralds to Glitch."
    second = "1. Gizmo mines all iron_ore.\n2. At the end of the scenario Gizmo transfers 9 emeralds to Glitch."
    replies = [
        propose("SECRET-GIZMO-1 I could go lower", "Here is my offer.", first),
        propose("SECRET-GLITCH-2 I want more", "Make it 9.", second),
        accept("SECRET-GIZMO-3 fine", "Deal."),
    ]
    with OpenAIStub(replies) as stub:
        result = run_llm(stub, double_vein, rounds=4)
        requests = stub.chat_requests
    assert result.accepted_round == 3 and result.contract == second
    assert [t.player for t in result.turns] == ["Gizmo", "Glitch", "Gizmo"]
    assert result.turns[0].thinking == "SECRET-GIZMO-1 I could go lower" and result.turns[1].message == "Make it 9."
    assert len(requests) == 3 and all(r.body["temperature"] == 0.7 for r in requests)
    assert "You are Gizmo" in sent_text(requests[0]) and "You are Glitch" in sent_text(requests[1])
    assert "SECRET-GIZMO" not in sent_text(requests[1])  # Glitch sees Gizmo's message and contract only
    assert "Here is my offer." in sent_text(requests[1]) and "transfers 5 emeralds" in sent_text(requests[1])
    assert "SECRET-GLITCH" not in sent_text(requests[2]) and "SECRET-GIZMO-1" not in sent_text(requests[2])
    assert "Make it 9." in sent_text(requests[2])
    system = requests[0].body["messages"][0]["content"]
    for fact in ("as many emeralds", "diamond 4, raw_iron 4", "at most 4 rounds",
                 "third person", "explicit", "signals", "The scenario lasts 300 seconds", "Glitch values raw_iron at 3"):
        assert fact in system, fact


def test_malformed_replies_are_retried_then_count_as_a_pass(double_vein) -> None:
    attempts = load_negotiation_settings().negotiation.attempts
    contract = "1. Glitch mines all diamond_ore."
    replies = [
        "I propose we share.",  # no [message]
        "[thinking] x [message] let us talk",  # neither proposal nor accept
        "[thinking] x [message] ok [contract] Glitch mines diamonds [contract end]",  # unnumbered
        propose("glitch thinks", "My proposal.", contract),
        "[message] yes [accept] [accept]",
        accept("ok", "Agreed."),
    ]
    with OpenAIStub(replies) as stub:
        result = run_llm(stub, double_vein, rounds=3)
        requests = stub.chat_requests
    assert attempts == 3 and len(requests) == 6
    passed, proposal, accepted = result.turns
    assert passed.passed and passed.attempts == 3 and passed.raw == replies[2]
    assert "the reply has no [message] section" in passed.error and "number the clauses" in passed.error
    retry = requests[1].body["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I propose we share."}
    assert "the reply has no [message] section" in retry[-1]["content"]
    assert "(no valid reply; the turn passed)" in sent_text(requests[3])
    assert accepted.accept and accepted.attempts == 2 and "write [accept] once" in sent_text(requests[5])
    assert (result.contract, result.accepted_round) == (contract, 3)


def test_no_accept_after_k_rounds_is_no_contract(double_vein) -> None:
    replies = [propose("a", "mine", "1. Gizmo mines all iron_ore."), propose("b", "no", "1. Glitch mines all iron_ore.")]
    with OpenAIStub(replies) as stub:
        result = run_llm(stub, double_vein, rounds=2)
    assert (result.contract, result.accepted_round, len(result.turns)) == (None, None, 2)


def test_an_accept_in_round_1_is_sent_back(double_vein) -> None:
    replies = [accept("eager", "Yes!"), propose("ok", "Then this.", "1. Gizmo mines all iron_ore."), accept("g", "ok")]
    with OpenAIStub(replies) as stub:
        result = run_llm(stub, double_vein, rounds=2)
        retry = stub.chat_requests[1].body["messages"][-1]["content"]
    assert "there is no proposal from the previous round to accept" in retry
    assert (result.contract, result.accepted_round) == ("1. Gizmo mines all iron_ore.", 2)


def test_the_protocol_turns_an_accept_without_proposal_into_a_pass(double_vein) -> None:
    class Eager:
        player = "Gizmo"

        async def reply(self, history, round, rounds=None, seating=None):  # noqa: A002
            return NegotiationTurn(round, self.player, "", "yes", None, True, "[accept]")

    result = asyncio.run(negotiate([Eager(), ScriptedNegotiator("Glitch", double_vein)], 3))
    assert result.turns[0].passed and "no proposal in the previous round" in result.turns[0].error
    assert result.turns[1].proposal == DOUBLE_VEIN_OPTIMUM
    assert result.turns[2].accept and (result.contract, result.accepted_round) == (DOUBLE_VEIN_OPTIMUM, 3)


def test_llm_and_scripted_negotiators_can_agree(double_vein) -> None:
    with OpenAIStub([accept("it is fair", "Agreed.")]) as stub:

        async def go():
            async with LLMClient(stub_settings(stub)) as client:
                return await negotiate([ScriptedNegotiator("Gizmo", double_vein), LLMNegotiator(client, "Glitch", double_vein)], 4)

        result = asyncio.run(go())
        [request] = stub.chat_requests
    assert (result.contract, result.accepted_round) == (DOUBLE_VEIN_OPTIMUM, 2)
    assert "You may [accept] the contract Gizmo proposed in round 1" in sent_text(request)
    assert "scripted: the social-optimum" not in sent_text(request)  # the scripted side's thinking stays private


def test_public_history_shows_no_thinking() -> None:
    turns = [
        NegotiationTurn(1, "Gizmo", "hidden plan", "Offer.", "1. Gizmo mines all iron_ore.", False, "raw hidden plan"),
        NegotiationTurn(2, "Glitch", "hidden too", "Fine.", None, True, "raw"),
    ]
    text = public_history(turns)
    assert "hidden" not in text
    assert text == "Round 1, Gizmo: Offer.\n[contract]\n1. Gizmo mines all iron_ore.\n[contract end]\nRound 2, Glitch: Fine.\n[accept]"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("[message] a [message] b [accept]", "exactly one [message]"),
        ("[accept] [message] a", "only [thinking] may come before [message]"),
        ("[message] a [thinking] b [accept]", "[thinking] must come before [message]"),
        ("[message] a [contract]\n1. x\n[contract end] [accept]", "not both"),
        ("[message] a [contract][contract end]", "is empty"),
        ("[message] a [contract end]", "without [contract]"),
        ("[message] a [contract] 1. x [contract] 2. y [contract end]", "at most one contract"),
    ],
)
def test_format_errors(reply: str, reason: str) -> None:
    with pytest.raises(FormatError, match=reason.replace("[", r"\[").replace("]", r"\]")):
        parse_reply(reply, can_accept=True)


def test_format_tolerates_case_and_closing_variants() -> None:
    parsed = parse_reply("[THINKING] t [Message] hi\n[contract]\n1) a\n[/contract]\nthanks", can_accept=False)
    assert (parsed.thinking, parsed.message, parsed.proposal, parsed.accept) == ("t", "hi thanks", "1) a", False)


def test_the_scripted_contract_judged_on_simulated_episodes(double_vein, cleanup) -> None:
    """Negotiate (scripted), play the cooperative split in the simulator, judge formally: equal rewards."""
    async def harvest(api):
        await api.mine_block("red_mushroom_block", 27)

    async def clean(api):
        for _ in range(5):
            await api.mine_block("slime_block", 8)

    cases = [(double_vein, {p: POLICIES["social_split"] for p in double_vein.players}), (cleanup, {"Gizmo": harvest, "Glitch": clean})]
    for spec, programs in cases:
        result = asyncio.run(negotiate([ScriptedNegotiator("Gizmo", spec), ScriptedNegotiator("Glitch", spec)], 2))
        sim = Simulation(spec, seed=3)
        asyncio.run(sim.run(programs))
        sim.finish()
        obs = observables_from_events(spec, sim.state.log.events)
        judgment = judge_formal(parse_contract(result.contract, sorted(spec.players), world=spec.name), obs)
        rewards = rewards_after(obs, judgment)
        assert rewards["Gizmo"] == pytest.approx(rewards["Glitch"]) and rewards["Gizmo"] > 0, spec.name
        assert gini(rewards.values()) == pytest.approx(0.0)
        assert judgment.critiques == {"Gizmo": "", "Glitch": ""}, spec.name
