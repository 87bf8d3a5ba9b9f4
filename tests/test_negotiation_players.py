"""Negotiation with more than two players: every other player must accept the standing proposal in turn.

The protocol is driven by small fake negotiators (the real `Negotiator` protocol: `player` and an async
`reply`), by the scripted negotiators on the built-in 4- and 7-player worlds, and by LLM negotiators
against the HTTP stub (for what the prompts say).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from blockpact.agents.negotiation import (
    LLMNegotiator,
    NegotiationTurn,
    ScriptedNegotiator,
    accepted_by,
    negotiate,
    standing_proposal,
    turn_budget,
)
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.llm import LLMClient
from blockpact.worlds.world_files import BUILTIN_DIR, load_world

WORLDS = Path(__file__).parent / "worlds"
X = "1. Cy gives all melon_slice to Bo."
Y = "1. Ann mines all melon_slice.\n2. At the end of the scenario Ann transfers 3 emeralds to Cy."


class Fake:
    """Replies from a script, one word per own turn: a contract text proposes it, "accept" accepts,
    "say" only sends a message; records the history it was shown."""

    def __init__(self, player: str, *script: str) -> None:
        self.player = player
        self.script = list(script)
        self.seen: list[list[NegotiationTurn]] = []

    async def reply(self, history: list[NegotiationTurn], round: int, rounds: int | None = None,  # noqa: A002
                    seating: list[str] | None = None) -> NegotiationTurn:
        self.seen.append(list(history))
        self.seating = seating
        word = self.script.pop(0) if self.script else "say"
        if word == "accept":
            return NegotiationTurn(round, self.player, "", "ok", None, True, "[accept]", source="scripted")
        if word == "say":
            return NegotiationTurn(round, self.player, "", "let me think", None, False, "", source="scripted")
        return NegotiationTurn(round, self.player, "", "how about", word, False, word, source="scripted")


def run(negotiators, rounds: int):
    return asyncio.run(negotiate(negotiators, rounds))


def test_one_accept_is_not_enough_with_three_players() -> None:
    # The new-user trial: Ann proposes, Bo accepts, Cy never agreed -- no contract may bind Cy.
    ann, bo, cy = Fake("Ann", X, "accept"), Fake("Bo", "accept"), Fake("Cy", "say")
    result = run([ann, bo, cy], 2)  # 3 rounds: ceil(2 * 3 / 2)
    assert [t.player for t in result.turns] == ["Ann", "Bo", "Cy"]  # Cy speaks: Bo's accept did not end it
    assert (result.contract, result.accepted_round, result.accepted_by) == (None, None, [])


def test_a_message_only_turn_rejects_the_standing_proposal() -> None:
    ann, bo, cy = Fake("Ann", X, "accept"), Fake("Bo", "accept", "accept"), Fake("Cy", "say", "accept")
    result = run([ann, bo, cy], 4)  # 6 rounds
    assert standing_proposal(result.turns[:2]) is result.turns[0] and accepted_by(result.turns[:2]) == ["Bo"]
    assert standing_proposal(result.turns[:3]) is None  # Cy's message-only turn ended X
    later = result.turns[3:]  # Ann, Bo and Cy accept nothing: each such accept counts as a pass with the reason
    assert [t.player for t in later] == ["Ann", "Bo", "Cy"] and not any(t.accept for t in later)
    assert all("no standing proposal" in (t.error or "") for t in later)
    assert result.contract is None


def test_a_new_proposal_replaces_the_standing_one_and_resets_its_accepts() -> None:
    ann, bo, cy = Fake("Ann", X, "accept"), Fake("Bo", "accept", "accept"), Fake("Cy", Y)
    result = run([ann, bo, cy], 4)
    assert standing_proposal(result.turns[:3]) is result.turns[2] and accepted_by(result.turns[:3]) == []
    assert (result.contract, result.accepted_round) == (Y, 5)
    assert (result.proposed_by, result.proposed_round, result.accepted_by) == ("Cy", 3, ["Ann", "Bo"])


def test_all_other_players_accept_and_the_contract_is_adopted() -> None:
    ann, bo, cy, dee = Fake("Ann", X), Fake("Bo", "accept"), Fake("Cy", "accept"), Fake("Dee", "accept")
    result = run([ann, bo, cy, dee], 4)
    assert (result.contract, result.accepted_round) == (X, 4)
    assert (result.proposed_by, result.proposed_round, result.accepted_by) == ("Ann", 1, ["Bo", "Cy", "Dee"])
    assert [t.round for t in result.turns] == [1, 2, 3, 4]


@pytest.mark.parametrize(("players", "rounds", "turns"), [(1, 4, 4), (2, 4, 4), (3, 4, 6), (4, 4, 8), (7, 4, 14), (3, 3, 5)])
def test_every_player_speaks_as_often_as_with_two(players: int, rounds: int, turns: int) -> None:
    assert turn_budget(rounds, players) == turns
    fakes = [Fake(f"P{i}") for i in range(1, players + 1)]
    result = run(fakes, rounds)
    assert [t.round for t in result.turns] == list(range(1, turns + 1))
    assert [t.player for t in result.turns] == [f"P{(i % players) + 1}" for i in range(turns)]
    if players >= 2:
        assert min(len(f.seen) for f in fakes) >= rounds // 2  # players 5-7 of 7 speak too


def test_two_players_unchanged() -> None:
    # An accept selects the previous round's proposal and ends the negotiation; after a message-only turn
    # it counts as a pass with the two-player reason; `rounds` rounds in all.
    ann, bo = Fake("Ann", X, "accept"), Fake("Bo", "say", Y)
    result = run([ann, bo], 4)
    assert [t.player for t in result.turns] == ["Ann", "Bo", "Ann", "Bo"]
    assert result.turns[2].error == "accepted with no proposal in the previous round: counted as a pass"
    assert result.contract is None
    ann, bo = Fake("Ann", X, "accept"), Fake("Bo", Y)
    result = run([ann, bo], 4)
    assert (result.contract, result.accepted_round, result.proposed_by, result.accepted_by) == (Y, 3, "Bo", ["Ann"])


@pytest.mark.parametrize(("world", "count"), [("commons", 4), ("cleanup_mp", 7)])
def test_scripted_negotiators_agree_with_every_player(world: str, count: int) -> None:
    spec = load_world(BUILTIN_DIR / f"{world}.toml")
    players = sorted(spec.players)
    assert len(players) == count
    result = run([ScriptedNegotiator(p, spec) for p in players], 4)
    assert result.contract is not None and result.contract == ScriptedNegotiator(players[0], spec).contract
    assert (result.accepted_round, result.proposed_by, result.accepted_by) == (count, players[0], players[1:])


def _reply(kind: str, contract: str = "") -> str:
    if kind == "accept":
        return "[thinking] fine\n[message] Agreed.\n[accept]"
    return f"[thinking] plan\n[message] My offer.\n[contract]\n{contract}\n[contract end]"


def test_llm_prompts_say_every_player_must_accept_the_standing_proposal() -> None:
    spec = load_world(BUILTIN_DIR / "commons.toml")
    players = sorted(spec.players)  # Alex, Blake, Casey, Drew
    offer = "1. Alex mines at most 3 pumpkins every 60 seconds."
    with OpenAIStub([_reply("propose", offer), _reply("accept"), _reply("accept"), _reply("accept")]) as stub:

        async def go():
            async with LLMClient(stub_settings(stub)) as client:
                return await negotiate([LLMNegotiator(client, p, spec) for p in players], 4)

        result = asyncio.run(go())
        system = [r.body["messages"][0]["content"] for r in stub.chat_requests]
        turn = [r.body["messages"][1]["content"] for r in stub.chat_requests]
    assert (result.contract, result.accepted_round, result.accepted_by) == (offer, 4, ["Blake", "Casey", "Drew"])
    assert "at most 8 rounds" in system[0] and "Alex, Blake, Casey, Drew" in system[0]
    assert "adopted only when all 3 other players have accepted it" in system[0]
    assert "One accept is not enough" in system[0] and "[accept] to accept the standing proposal" in system[0]
    assert "There is no standing proposal to accept" in turn[0]
    assert "accepted so far by nobody" in turn[1] and "adopted only if Casey and Drew also accept it" in turn[1]
    assert "accepted so far by Blake" in turn[2] and "only if Drew also accepts it" in turn[2]
    assert "every other player has accepted it and it is adopted" in turn[3]
    assert "plan" not in json.dumps(turn[1:])  # thinking stays private


def test_an_llm_accept_without_a_standing_proposal_is_sent_back_with_the_reason() -> None:
    spec = load_world(BUILTIN_DIR / "commons.toml")
    offer = "1. Alex mines at most 3 pumpkins every 60 seconds."
    with OpenAIStub([_reply("accept"), _reply("propose", offer)]) as stub:

        async def go():
            async with LLMClient(stub_settings(stub)) as client:
                return await negotiate([LLMNegotiator(client, "Alex", spec), Fake("Blake", "accept"), Fake("Casey", "say")], 2)

        result = asyncio.run(go())
        retry = stub.chat_requests[1].body["messages"][-1]["content"]
    assert "there is no standing proposal to accept" in retry
    assert result.turns[0].proposal == offer and result.contract is None  # Blake accepted, Casey did not


def test_the_prompts_state_the_order_the_players_are_seated_in() -> None:
    """negotiate() seats players in the order it is given; the prompts say that order (not the names sorted), and
    N is the number seated. Stag hunt's hunters Ada, Ben and Cy, seated Cy, Ada, Ben."""
    spec = load_world(WORLDS / "stag_hunt.toml")
    offer = "1. Ada mines all diamond_ore."
    seating = ["Cy", "Ada", "Ben"]
    with OpenAIStub([_reply("propose", offer), _reply("accept"), _reply("accept")]) as stub:

        async def go():
            async with LLMClient(stub_settings(stub)) as client:
                return await negotiate([LLMNegotiator(client, p, spec) for p in seating], 2)

        result = asyncio.run(go())
        system = [r.body["messages"][0]["content"] for r in stub.chat_requests]
        turn = [r.body["messages"][1]["content"] for r in stub.chat_requests]
    assert [t.player for t in result.turns] == seating and result.accepted_by == ["Ada", "Ben"]
    assert all("They speak in turn in this order, again and again: Cy, Ada, Ben." in s for s in system)
    assert "You are Cy" in system[0] and "negotiate a contract with Ada and Ben." in system[0]
    assert "You are Ada" in system[1] and "negotiate a contract with Cy and Ben." in system[1]
    assert "Cy proposed in round 1; accepted so far by nobody" in turn[1] and "only if Ben also accepts it" in turn[1]
    assert "accepted so far by Ada" in turn[2] and "every other player has accepted it and it is adopted" in turn[2]


def test_n_is_the_number_of_players_seated_not_of_the_world() -> None:
    """Three of commons' four players seated: the prompt speaks of 3 players and 2 others who must accept."""
    spec = load_world(BUILTIN_DIR / "commons.toml")
    offer = "1. Casey mines at most 3 red_mushroom every 60 seconds."
    blake, alex = Fake("Blake", "accept"), Fake("Alex", "say")
    with OpenAIStub([_reply("propose", offer)]) as stub:

        async def go():
            async with LLMClient(stub_settings(stub)) as client:
                return await negotiate([LLMNegotiator(client, "Casey", spec), blake, alex], 2)

        result = asyncio.run(go())
        system = stub.chat_requests[0].body["messages"][0]["content"]
    assert "There are 3 players. They speak in turn in this order, again and again: Casey, Blake, Alex." in system
    assert "all 2 other players have accepted it" in system and "Drew" not in system.split("How negotiation works")[1]
    assert "negotiate a contract with Blake and Alex." in system
    assert blake.seating == alex.seating == ["Casey", "Blake", "Alex"]
    assert result.contract is None  # Alex only talked: the proposal was rejected
