"""A scenario's `human` slot on a live server: the run waits (bounded) for a person to join under the
slot's name; their chat is their negotiation turn; they play with their own client and their inventory
is scored like anyone's; the report and metrics say who was what. A real mineflayer client
(tests/stand_ins/human_client.js) stands in for the person, on the session's shared embedded server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import time
from pathlib import Path

import pytest

from blockpact.bridge.live.embedded_server import EmbeddedServer
from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.live.backend import LiveWorlds
from blockpact.bridge.runtime import node_binary
from blockpact.cli import main
from blockpact.experiments.outputs.run_outputs import build_outputs
from blockpact.experiments.play.population import plan_participants
from blockpact.experiments.play.protocol import RunProtocol
from blockpact.experiments.log.records import read_run
from blockpact.experiments.log.run_events import EventWriter
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.plan.scenario import ScenarioError, parse_scenario
from blockpact.experiments.plan.scenario_run import scenario_plan
from blockpact.worlds.world_files import load_world

from harness.pace import scaled

TESTS = Path(__file__).parent
WORLD = TESTS / "worlds" / "human_patch.toml"
CLIENT = TESTS / "stand_ins" / "human_client.js"
MESSAGE = "Hello, I am a person: your split suits me."
SCENARIO = f"""[scenario]
world = "{WORLD}"
backend = "minecraft"
seeds = 1

[[conditions]]
contract = "{{contract}}"

[players]
Ada = "scripted:cooperative"
Hugo = "human"
"""


def plan_for(contract: str, backend: str = "minecraft"):  # noqa: ANN201
    text = SCENARIO.format(contract=contract).replace('"minecraft"', f'"{backend}"')
    scenario = parse_scenario(__import__("tomllib").loads(text), text, None)
    return scenario_plan(scenario, load_world(WORLD), None)


def play(plan, server: EmbeddedServer, out: Path) -> RunDir:  # noqa: ANN001
    run_dir = RunDir.create(out)
    participants = plan_participants(plan, run_dir, None, LiveWorlds(server=server))
    with EventWriter(run_dir.events) as writer:
        asyncio.run(RunProtocol(plan, participants, writer).run())
    build_outputs(run_dir)
    return run_dir


class StandIn:
    """The mineflayer client playing the person; its stdout lines are what it heard and did."""

    def __init__(self, server: EmbeddedServer, log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [node_binary(), str(CLIENT), server.host, str(server.port), "Hugo", server.version, MESSAGE, "2,64,4"],
            stdin=subprocess.PIPE, stdout=log.open("w"), stderr=subprocess.STDOUT)

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.startswith("{")]

    def wait_for(self, kind: str, seconds: float) -> None:
        deadline = time.monotonic() + scaled(seconds)
        while not any(e["kind"] == kind for e in self.lines()):
            assert self.proc.poll() is None, f"the stand-in exited: {self.log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"the stand-in never got to {kind!r}: {self.log.read_text()[-2000:]}"
            time.sleep(0.1)

    def stop(self) -> None:
        try:
            self.proc.stdin.close()  # it quits the server and exits
            self.proc.wait(timeout=scaled(10))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def test_a_person_negotiates_plays_and_is_scored(embedded_server: EmbeddedServer, tmp_path: Path) -> None:
    person = StandIn(embedded_server, tmp_path / "client.log")
    try:
        person.wait_for("spawned", 30)
        run_dir = play(plan_for("negotiate"), embedded_server, tmp_path / "run")
    finally:
        person.stop()
    heard = [e["text"] for e in person.lines() if e["kind"] == "heard"]
    assert any("Ada proposes: 1. Hugo mines all pumpkin." in t for t in heard), heard  # the other side, in chat
    run = read_run(run_dir.events)
    [seed] = run.of_condition("negotiate")
    assert seed.completed, seed.errors
    # their chat was their turn: the message reached the negotiation, and their accept made the contract
    events = [json.loads(line) for line in run_dir.events.read_text().splitlines()]
    turns = [e["data"] for e in events if e["kind"] == "negotiation_turn"]
    assert [(t["player"], t["source"]) for t in turns] == [("Ada", "scripted"), ("Hugo", "human")]
    assert turns[1]["message"] == MESSAGE and turns[1]["accept"] is True
    contract = next(e["data"] for e in events if e["kind"] == "contract")
    assert contract["source"] == "negotiated" and contract["text"].startswith("1. Hugo mines all pumpkin.")
    # they played with their own client: what they picked is in the log and scored like anyone's
    world = [e["data"]["event"] for e in events if e["kind"] == "world"]
    assert any(w["kind"] == "inventory" and w["agent"] == "Hugo" and w["data"]["item"] == "pumpkin"
               and w["data"]["delta"] == 1 for w in world)
    assert any(w["kind"] == "chat" and w["agent"] == "Hugo" and w["data"]["message"] == "done" for w in world)
    end = next(e["data"] for e in events if e["kind"] == "episode_end")
    assert end["inventory_rewards"]["Hugo"] == 3.0  # one pumpkin, worth 3 to Hugo
    program = next(e["data"] for e in events if e["kind"] == "program_result" and e["data"]["player"] == "Hugo")
    assert program["source"] == "human" and program["success"] is True and program["chat"] == ["done"]
    metrics = json.loads(run_dir.metrics.read_text())
    assert metrics["population"] == {"Ada": "scripted:cooperative", "Hugo": "human"}
    # the scripted Ada proposed the contract search's best: Hugo mines the pumpkins and they share equally
    assert metrics["conditions"]["negotiate"]["runs"][0]["rewards"]["Hugo"] == pytest.approx(3.0 / 2)
    assert "Ada: scripted:cooperative, Hugo: human" in run_dir.report.read_text()


def test_nobody_joining_fails_the_unit_with_cause_human(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Through `blockpact run SCENARIO.toml`, on the run's own embedded server: the address is printed where
    the user looks, and an empty slot is a failed unit with its cause, not a zero."""
    quick = dataclasses.replace(live_settings(), humans=dataclasses.replace(live_settings().humans, join_seconds=1.0))
    monkeypatch.setattr("blockpact.bridge.live.human_seats.live_settings", lambda: quick)
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(contract="none"))
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out)]) == 3  # some unit failed
    err = capsys.readouterr().err
    assert "waiting up to 1 s for a person to join as Hugo: connect a Minecraft 1.20.4 client (offline mode) to " \
           "127.0.0.1:" in err
    metrics = json.loads((out / "metrics.json").read_text())
    none = metrics["conditions"]["none"]
    assert none["seeds_finished"] == 0 and none["runs"] == []  # a failure, not a zero
    [error] = none["errors"]
    assert error["cause"] == "human" and "nobody joined as Hugo" in error["error"] and "within 1 s" in error["error"]


def test_a_human_slot_is_refused_on_the_simulator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ScenarioError, match=r"Hugo is a `human` slot, which needs a live server: set backend"):
        plan_for("none", backend="sim")
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.format(contract="none").replace('backend = "minecraft"\n', ""))
    assert main(["run", str(path), "--out", str(tmp_path / "r")]) == 1
    assert "needs a live server" in capsys.readouterr().err and not (tmp_path / "r").exists()


class ChatDesk:
    """The part of HumanSeats a negotiator uses, with the person's lines given in advance (no server)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)
        self.told: list[str] = []
        self.settings = dataclasses.replace(live_settings().humans, turn_seconds=0.2)

    async def wait_for(self, player: str) -> None:
        return None

    def tell(self, player: str, text: str) -> None:
        self.told.append(text)

    async def next_lines(self, player: str, timeout: float) -> list[str]:
        if not self.lines:
            await asyncio.sleep(timeout)
            return []
        return [self.lines.pop(0)]


def test_how_a_persons_lines_become_their_turn() -> None:
    from blockpact.agents.negotiation import NegotiationTurn
    from blockpact.experiments.play.human import HumanNegotiator

    spec = load_world(WORLD)
    offer = NegotiationTurn(1, "Ada", "", "Here is my offer.", "1. Hugo mines all pumpkin.", False, "")

    def turn(lines: list[str], history: list) -> tuple[NegotiationTurn, ChatDesk]:  # noqa: ANN001
        desk = ChatDesk(lines)
        return asyncio.run(HumanNegotiator("Hugo", spec, desk).reply(history, len(history) + 1, 4)), desk

    # a line that merely starts with a command word is part of the message; `accept` with nothing to accept is refused
    said, desk = turn(["pass me a pumpkin", "accept", "propose 1. Ada mines all pumpkin."], [])
    assert said.message == "pass me a pumpkin" and said.proposal == "1. Ada mines all pumpkin." and not said.accept
    assert said.source == "human" and said.raw.splitlines() == ["pass me a pumpkin", "accept", "propose 1. Ada mines all pumpkin."]
    assert any("no proposal from the previous round to accept" in t for t in desk.told)
    accepted, desk = turn(["Deal.", "accept"], [offer])
    assert accepted.accept and accepted.message == "Deal." and accepted.proposal is None
    assert "Ada proposes: 1. Hugo mines all pumpkin." in desk.told[1]  # the other side's turn, told in chat
    silent, _ = turn(["hmm"], [offer])
    assert silent.passed and silent.message == "hmm" and "within 0.2 s: the turn passed" in silent.error


THREE = TESTS / "worlds" / "human_patch_three.toml"  # Ada and Bea (scripted) with Hugo (the person)
SOCIAL_OPTIMUM = "1. Hugo mines all pumpkin.\n2. At the end of the scenario Hugo transfers 6 emeralds to Ada."


def test_a_person_among_three_is_told_the_rule_and_their_accept_is_one_of_the_two_needed() -> None:
    """Seated among three (Ada, Bea: scripted), the person is told that every other player must accept and in
    which order they speak; a contract Bea accepted binds nobody until the person accepts too, and their accept
    adopts it. Seated between the two, their accept and Bea's are the two needed."""
    from blockpact.agents.negotiation import ScriptedNegotiator, negotiate
    from blockpact.experiments.play.human import HumanNegotiator

    spec = load_world(THREE)

    def negotiation(order: list[str], lines: list[str]):  # noqa: ANN202
        desk = ChatDesk(lines)
        seat = {"Hugo": HumanNegotiator("Hugo", spec, desk)}  # type: ignore[arg-type]
        negotiators = [seat.get(p) or ScriptedNegotiator(p, spec) for p in order]
        return asyncio.run(negotiate(negotiators, 2)), desk  # 3 rounds: ceil(2 * 3 / 2)

    # Ada proposes, Bea accepts: one accept is not enough. The person passes: no contract binds anyone.
    passed, desk = negotiation(["Ada", "Bea", "Hugo"], ["pass"])
    briefing = desk.told[0]
    assert "3 players in this order: Ada, Bea, Hugo" in briefing
    assert "'accept' accepts the standing (latest) proposal, adopted only once all 2 other players accept it in turn" in briefing
    assert [(t.player, t.accept, t.proposal is not None) for t in passed.turns] == [
        ("Ada", False, True), ("Bea", True, False), ("Hugo", False, False)]
    assert passed.contract is None and passed.accepted_by == []
    # the same, and the person accepts: theirs is the second accept, and it adopts the contract
    accepted, desk = negotiation(["Ada", "Bea", "Hugo"], ["Fine by me.", "accept"])
    assert any("Bea accepts." in t for t in desk.told) and any("'accept' takes Ada's proposal" in t for t in desk.told)
    assert (accepted.contract, accepted.accepted_round, accepted.proposed_by) == (SOCIAL_OPTIMUM, 3, "Ada")
    assert accepted.accepted_by == ["Bea", "Hugo"] and accepted.turns[2].source == "human"
    # seated between the two (not by name): the person's accept comes first and Bea's completes it
    between, desk = negotiation(["Ada", "Hugo", "Bea"], ["accept"])
    assert "3 players in this order: Ada, Hugo, Bea" in desk.told[0]
    assert (between.contract, between.accepted_by) == (SOCIAL_OPTIMUM, ["Hugo", "Bea"])


def test_a_person_negotiates_among_three_players(embedded_server: EmbeddedServer, tmp_path: Path) -> None:
    """Live, with the mineflayer stand-in: the person hears the rule for three in chat, and the contract is
    adopted by their accept after Bea's (a scripted player's alone would not have bound them)."""
    text = SCENARIO.format(contract="negotiate").replace(str(WORLD), str(THREE)).replace(
        'Ada = "scripted:cooperative"\n', 'Ada = "scripted:cooperative"\nBea = "scripted:cooperative"\n')
    plan = scenario_plan(parse_scenario(__import__("tomllib").loads(text), text, None), load_world(THREE), None)
    person = StandIn(embedded_server, tmp_path / "client.log")
    try:
        person.wait_for("spawned", 30)
        run_dir = play(plan, embedded_server, tmp_path / "run")
    finally:
        person.stop()
    heard = [e["text"] for e in person.lines() if e["kind"] == "heard"]
    assert any("3 players in this order: Ada, Bea, Hugo" in t and "all 2 other players accept it in turn" in t
               for t in heard), heard
    assert any("Bea accepts." in t for t in heard), heard
    events = [json.loads(line) for line in run_dir.events.read_text().splitlines()]
    turns = [e["data"] for e in events if e["kind"] == "negotiation_turn"]
    assert [(t["player"], t["source"], t["accept"]) for t in turns] == [
        ("Ada", "scripted", False), ("Bea", "scripted", True), ("Hugo", "human", True)]
    contract = next(e["data"] for e in events if e["kind"] == "contract")
    from blockpact.agents.scripted.contract_search import best_contract
    from blockpact.judge.contract import render_contract

    searched = asyncio.run(best_contract(load_world(THREE))).best.candidate.clauses  # what the scripted slots propose
    assert (contract["source"], contract["text"], contract["accepted_round"]) == (
        "negotiated", render_contract(searched, world=load_world(THREE).name), 3)
    assert (contract["accepted_by"], contract["seating"]) == (["Bea", "Hugo"], ["Ada", "Bea", "Hugo"])
    [seed] = read_run(run_dir.events).of_condition("negotiate")
    assert seed.completed, seed.errors
