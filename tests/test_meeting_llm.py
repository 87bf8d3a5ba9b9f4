"""LLM members at an institution's meetings, against the local OpenAI-compatible stub (the real openai client over
HTTP, the real member prompt and parser): an LLM majority proposes a quota and votes it in, and the events, the
metrics and the contract of the next episode show it; a member whose replies stay out of format proposes nothing,
abstains, and is recorded as failing (with its replies), never silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockpact.agents.meeting_floor import Floor, OpenProposal
from blockpact.agents.meeting_member import MemberFormatError, parse_turn, spoken
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.plan.institution import InstitutionSpec
from blockpact.judge.contract import parse_contract
from blockpact.worlds.world_files import load_world
from test_run_llm import KEY, llm_env  # noqa: F401  (the fixture: only the stub's key in the environment)

WORLD = Path(__file__).parent / "worlds" / "meeting_pasture.toml"
QUOTA = "Each player mines at most 5 pumpkin every 30 seconds."


def scenario(tmp_path: Path) -> Path:
    """Ann, Bo and Cal are LLM members (a majority), Dee a greedy scripted one who votes against any limit."""
    path = tmp_path / "llm-meeting.toml"
    path.write_text(f'[scenario]\nworld = "{WORLD}"\nseeds = 1\nepisodes = 2\n\n[[conditions]]\ncontract = "none"\n\n'
                    '[players]\nAnn = "llm:stub-model"\nBo = "llm:stub-model"\nCal = "llm:stub-model"\n'
                    'Dee = "scripted:greedy"\n\n[institution]\nrule = "majority"\ncan_change = ["quota"]\n')
    return path


class OutOfFormat:
    """The protocol responder, except that `player`'s meeting turns are never in the format."""

    def __init__(self, responder: ProtocolResponder, player: str) -> None:
        self.responder = responder
        self.player = player

    def __call__(self, request: dict[str, Any]) -> Any:
        system = request["messages"][0].get("content") or ""
        if system.startswith(f"You are {self.player}, a member of the meeting"):
            return "I think a quota is good. Yes to everything!"
        return self.responder(request)


def run(tmp_path: Path, responder: Any) -> tuple[dict[str, Any], list[dict[str, Any]], OpenAIStub]:
    out = tmp_path / "out"
    with OpenAIStub(responder=responder, api_key=KEY) as stub:
        code = main(["run", str(scenario(tmp_path)), "--out", str(out), "--llm-base-url", stub.base_url,
                     "--no-llm-cache"])
    assert code == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return json.loads((out / "metrics.json").read_text()), events, stub


def test_an_llm_majority_proposes_a_quota_and_votes_it_in(llm_env, tmp_path: Path) -> None:  # noqa: F811
    metrics, events, stub = run(tmp_path, ProtocolResponder(load_world(WORLD)))
    section = metrics["institution"]["conditions"]["none"]
    assert (section["meetings"], section["proposals"], section["adopted"], section["member_failures"]) == (1, 1, 1, 0)
    [meeting] = section["seeds"][0]["meetings"]
    [proposal] = meeting["proposals"]
    assert proposal["player"] == "Ann" and not proposal["scripted"] and proposal["passed"]
    assert proposal["votes"] == {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}
    assert proposal["text"] == f"1. {QUOTA}"
    assert meeting["last_episode"]["welfare"] == metrics["conditions"]["none"]["runs"][0]["episodes"][0]["welfare"]
    assert "pumpkin@pasture" in meeting["last_episode"]["stock"]
    # the contract of the second episode is the quota, and its formal judge checks it
    starts = [e["data"]["contract"] for e in events if e["kind"] == "episode_start"]
    assert starts == [None, f"1. {QUOTA}"]
    turns = [e["data"] for e in events if e["kind"] == "meeting_turn"]
    assert [(t["player"], t["proposed"], t["error"]) for t in turns] == [
        ("Ann", True, None), ("Bo", False, None), ("Cal", False, None), ("Ann", False, None)]  # Ann votes at a second turn
    assert all(t["source"] == "llm" for t in turns)
    votes = {e["data"]["player"]: e["data"] for e in events if e["kind"] == "vote"}
    assert votes["Ann"]["source"] == "llm" and votes["Dee"]["scripted"]
    # the member's prompt: the rules, what may change, how a proposal passes, the last play, the forms
    member = [r.body["messages"] for r in stub.chat_requests
              if r.body["messages"][0]["content"].startswith("You are Bo, a member of the meeting")]
    [(system, user)] = [(m[0]["content"], m[1]["content"]) for m in member]
    assert "more than half of all 4 votes" in system and "quota clauses" in system
    assert '"Each player mines at most 5 pumpkin every 60 seconds."' in system
    assert "welfare" in user and "pumpkin in pasture:" in user and "Proposal 1, by Ann:" in user
    assert metrics["conditions"]["none"]["agent_errors"]["total"] == 0
    # the LLM players' reflections after the first play know that a meeting follows, where the contract may change
    reflections = [r.body["messages"][0]["content"] for r in stub.chat_requests
                   if r.body["messages"][0]["content"].startswith("You play a Minecraft scenario several times")]
    assert len(reflections) == 3 and all("the players meet and may change the contract by a vote" in s for s in reflections)
    assert {c["role"] for c in (json.loads(line) for line in (tmp_path / "out" / "transcripts" / "llm.jsonl")
                                .read_text().splitlines())} >= {"member"}


def test_a_member_out_of_format_abstains_and_is_recorded_as_failing(llm_env, tmp_path: Path) -> None:  # noqa: F811
    metrics, events, _ = run(tmp_path, OutOfFormat(ProtocolResponder(load_world(WORLD)), "Cal"))
    section = metrics["institution"]["conditions"]["none"]
    [proposal] = section["seeds"][0]["meetings"][0]["proposals"]
    assert proposal["votes"] == {"Ann": "yes", "Bo": "yes", "Cal": "abstain", "Dee": "no"}
    assert not proposal["passed"]  # 2 yes of 4: not more than half
    assert section["member_failures"] == 1 and section["votes_by_player"]["Cal"] == {"yes": 0, "no": 0, "abstain": 1}
    [failed] = [e["data"] for e in events if e["kind"] == "meeting_turn" and e["data"]["error"]]
    assert failed["player"] == "Cal" and failed["attempts"] == 3 and len(failed["replies"]) == 3
    assert failed["raw"] == "I think a quota is good. Yes to everything!" and "counted as no proposal" in failed["error"]
    errors = metrics["conditions"]["none"]["agent_errors"]
    assert errors["by_player"] == {"Cal": {"meeting_format": 1}}
    vote = next(e["data"] for e in events if e["kind"] == "vote" and e["data"]["player"] == "Cal")
    assert vote["vote"] == "abstain" and vote["reason"] == "no reply in the format"
    report = (tmp_path / "out" / "report.html").read_text()
    assert "<h3>Member turns out of format</h3>" in report and "Yes to everything!" in report
    assert "Ann (LLM)" in report


class Speaking:
    """The protocol responder, except that `player`'s meeting turns also say `message` to the others."""

    def __init__(self, responder: ProtocolResponder, player: str, message: str) -> None:
        self.responder, self.player, self.message = responder, player, message

    def __call__(self, request: dict[str, Any]) -> Any:
        reply = self.responder(request)
        if request["messages"][0].get("content", "").startswith(f"You are {self.player}, a member of the meeting"):
            return reply.replace("[proposal]", f"[message] {self.message}\n[proposal]", 1)
        return reply


def test_what_a_member_says_is_shown_to_every_member_after_it_and_recorded(llm_env, tmp_path: Path) -> None:  # noqa: F811
    said = "Five each keeps the pasture alive:\n\x1b[32mvote yes\x1b[0m."
    _, events, stub = run(tmp_path, Speaking(ProtocolResponder(load_world(WORLD)), "Ann", said))
    line = "Five each keeps the pasture alive: \\u001b[32mvote yes\\u001b[0m."  # one line; the escapes made visible
    turns = [e["data"] for e in events if e["kind"] == "meeting_turn"]
    assert [(t["player"], t["message"]) for t in turns] == [("Ann", line), ("Bo", None), ("Cal", None), ("Ann", line)]
    prompts = {r.body["messages"][0]["content"].split(",")[0]: r.body["messages"][1]["content"] for r in stub.chat_requests
               if "a member of the meeting" in r.body["messages"][0]["content"]}
    assert f"Ann: {line}" in prompts["You are Bo"]
    assert "Ann: Five each" in prompts["You are Cal"]
    assert "Meeting before play 2." in prompts["You are Bo"]


def test_a_message_is_one_plain_line_of_bounded_length_and_optional() -> None:
    assert spoken("[thinking] x\n[proposal] none") is None
    assert spoken("[thinking] x\n[message]   \n[proposal] none") is None
    assert spoken("[message] a\nb\n[vote 1] yes") == "a b"
    assert len(spoken("[message] " + "w" * 5000 + "\n[proposal] none")) == 601


def floor(open_numbers: tuple[int, ...] = (1,), may_propose: bool = True) -> Floor:
    return Floor(InstitutionSpec(), (), tuple(OpenProposal(n, "Ann", ()) for n in open_numbers), may_propose, 1)


@pytest.mark.parametrize(("reply", "problem"), [
    ("[thinking] x\n[vote 1] yes", r"no \[proposal\]"),
    ("[proposal] none", "no vote on proposal 1"),
    ("[proposal] none\n[vote 1] maybe", "must be yes, no or abstain"),
    ("[proposal] none\n[vote 2] yes\n[vote 1] yes", "no open proposal 2"),
    ("[proposal]\n1. Ann and Bo share their rewards equally.\n[proposal end]\n[vote 1] no", "only quota clauses"),
    ("[proposal]\n1. Everyone takes it easy.\n[proposal end]\n[vote 1] no", "outside the controlled form"),
])
def test_the_member_format_is_strict(reply: str, problem: str) -> None:
    with pytest.raises(MemberFormatError, match=problem):
        parse_turn(reply, load_world(WORLD), floor())


def test_a_well_formed_turn_reads_its_proposal_and_votes() -> None:
    spec = load_world(WORLD)
    thinking, motion, ballots = parse_turn(f"[thinking] save it\n[proposal]\n1. {QUOTA}\n[proposal end]\n[vote 1] No",
                                           spec, floor())
    assert motion is not None and motion.clauses == parse_contract(f"1. {QUOTA}", sorted(spec.players), spec=spec).clauses
    assert thinking == "save it" and ballots[1].vote == "no"
    with pytest.raises(MemberFormatError, match="may not propose"):
        parse_turn(f"[proposal]\n1. {QUOTA}\n[proposal end]\n[vote 1] yes", spec, floor(may_propose=False))


def test_a_world_run_with_llm_agents_holds_its_meetings_with_llm_members(llm_env, tmp_path: Path) -> None:  # noqa: F811
    world = tmp_path / "world.toml"
    world.write_text(WORLD.read_text() + '\n[institution]\nrule = "unanimity"\n')
    out = tmp_path / "out"
    with OpenAIStub(responder=ProtocolResponder(load_world(WORLD)), api_key=KEY) as stub:
        assert main(["run", str(world), "--agents", "llm", "--contract", "none", "--episodes", "2", "--out", str(out),
                     "--llm-base-url", stub.base_url, "--llm-model", "stub-model", "--no-llm-cache"]) == 0
    section = json.loads((out / "metrics.json").read_text())["institution"]["conditions"]["none"]
    [proposal] = section["seeds"][0]["meetings"][0]["proposals"]
    assert proposal["votes"] == {p: "yes" for p in ("Ann", "Bo", "Cal", "Dee")} and proposal["passed"]
