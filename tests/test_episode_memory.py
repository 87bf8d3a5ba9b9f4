"""Memory across episodes: the critic is asked after the judge, with the contract and how the episode ended, and
only when another episode reads its verdict; each LLM player writes lessons that its next episode's prompt
carries; nothing is asked in a seed's last episode. Runs go through the real openai client over HTTP to the
protocol stub, with the real prompts and parsers, programs on the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockpact.agents.reflection import parse_lessons
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.experiments.play.recap import recap
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import load_world
from test_run_llm import KEY, llm_env, run_against  # noqa: F401  (the fixture)

CRITIC = "You assess the progress of a player"
REFLECTION = "You play a Minecraft scenario several times in a row"


def _system(request: Any) -> str:
    return request.body["messages"][0]["content"]


def _user(request: Any) -> str:
    return [m for m in request.body["messages"] if m["role"] == "user"][0]["content"]


def _events(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def three_episodes(llm_env, tmp_path_factory) -> tuple[Path, OpenAIStub]:  # noqa: F811
    out = tmp_path_factory.mktemp("memory") / "dv"
    with OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), api_key=KEY) as stub:
        code = run_against(stub, "double_vein", out, "--seeds", "1", "--contract", "negotiate", "--episodes", "3")
    assert code == 0
    return out, stub


def test_the_critic_sees_the_contract_and_the_outcome_and_only_when_an_episode_follows(three_episodes) -> None:
    out, stub = three_episodes
    critics = [r for r in stub.chat_requests if _system(r).startswith(CRITIC)]
    assert len(critics) == 4  # 2 players x episodes 0 and 1; none in episode 2
    for request in critics:
        prompt = _user(request)
        player = prompt.splitlines()[0].removeprefix("Player: ")
        assert player in ("Gizmo", "Glitch")
        assert "Contract the player is under:\n1. " in prompt and "none (no contract" not in prompt
        ended = prompt.split("How the episode ended (after every player's program, judged by the contract):\n")[1]
        assert "Your inventory at the end:" in ended and "The contract's clauses as the formal judge scored them:" in ended
        assert "Every player's reward: Gizmo " in ended
    verdicts = [e for e in _events(out) if e["kind"] == "verdict"]
    assert sorted((e["episode"], e["data"]["player"]) for e in verdicts) == [
        (0, "Gizmo"), (0, "Glitch"), (1, "Gizmo"), (1, "Glitch")]
    assert all(e["data"]["source"] == "llm" for e in verdicts)


def test_lessons_written_after_an_episode_reach_the_next_episode_prompt(three_episodes) -> None:
    out, stub = three_episodes
    reflections = [r for r in stub.chat_requests if _system(r).startswith(REFLECTION)]
    assert len(reflections) == 4
    second = [r for r in reflections if "You are Gizmo." in _user(r)][1]
    assert "Your lessons from earlier episodes:\n- (stub) Gizmo ended the episode with a reward of" in _user(second)
    actions = [_user(r) for r in stub.chat_requests if _system(r).endswith("You play as Gizmo.")]
    assert len(actions) == 3
    assert "Your lessons from earlier episodes:\nNone yet." in actions[0]
    assert "How the last episode ended: No earlier episode." in actions[0]
    for prompt in actions[1:]:
        assert "Your lessons from earlier episodes:\n- (stub) Gizmo ended the episode with a reward of" in prompt
        assert "How the last episode ended: \nYour inventory at the end:" in prompt
    run = read_run(out / "events.jsonl")
    (seed,) = run.seeds
    assert [sorted(ep.reflections) for ep in seed.episodes] == [["Gizmo", "Glitch"], ["Gizmo", "Glitch"], []]
    assert [len(ep.verdicts) for ep in seed.episodes] == [2, 2, 0]
    start = [e for e in _events(out) if e["kind"] == "episode_start"][2]
    assert start["data"]["handover"]["Glitch"]["lessons"][0].startswith("(stub) Glitch ended the episode")


def test_the_report_shows_verdicts_lessons_and_the_episode_curve(three_episodes) -> None:
    out, _ = three_episodes
    html = (out / "report.html").read_text()
    assert "critic&#39;s verdict (after the judge)" in html or "critic's verdict (after the judge)" in html
    assert "lessons Gizmo takes into episode 1" in html and "lessons Gizmo takes into episode 2" in html
    assert "seed&#39;s last episode" in html or "seed's last episode" in html
    metrics = json.loads((out / "metrics.json").read_text())
    curve = metrics["conditions"]["negotiate"]["by_episode"]
    assert [c["episode"] for c in curve] == [0, 1, 2] and all(c["seeds"] == 1 for c in curve)
    assert (out / "plots" / "episodes.svg").is_file()


class NoLessons(ProtocolResponder):
    """Answers the reflection role with prose that holds no lesson line."""

    def __call__(self, request: dict[str, Any]) -> Any:
        if request["messages"][0]["content"].startswith(REFLECTION):
            return "I think it went fine overall and I would not change much."
        return super().__call__(request)


def test_a_reflection_without_lessons_is_asked_again_then_recorded_and_the_run_goes_on(llm_env, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "nolessons"
    with OpenAIStub(responder=NoLessons(load_world("double_vein")), api_key=KEY) as stub:
        code = run_against(stub, "double_vein", out, "--seeds", "1", "--contract", "negotiate", "--episodes", "2")
    assert code == 0
    asked = [r for r in stub.chat_requests if _system(r).startswith(REFLECTION)]
    assert len(asked) == 4  # each player asked twice (the reason sent back), in episode 0 only
    assert 'no line starts with "- "' in asked[1].body["messages"][-1]["content"]
    failed = [e["data"] for e in _events(out) if e["kind"] == "reflection"]
    assert len(failed) == 2 and all(d["lessons"] == [] and "no lesson in 2 replies" in d["error"] for d in failed)
    assert all(len(d["replies"]) == 2 for d in failed)


def test_scripted_runs_ask_no_reflection_and_their_verdicts_are_labelled(tmp_path: Path) -> None:
    from blockpact.cli import main

    out = tmp_path / "scripted"
    assert main(["run", "double_vein", "--out", str(out), "--seeds", "1", "--episodes", "2", "--contract", "negotiate"]) == 0
    events = _events(out)
    assert not [e for e in events if e["kind"] == "reflection"]
    verdicts = [e for e in events if e["kind"] == "verdict"]
    assert {e["episode"] for e in verdicts} == {0} and {e["data"]["source"] for e in verdicts} == {"scripted"}


@pytest.mark.parametrize(("reply", "lessons"), [
    ("- Take the pickaxe first.\n- Signal Ben after the deposit.", ["Take the pickaxe first.", "Signal Ben after the deposit."]),
    ("Lessons:\n1. Mine the east vein.\n2) Wait for Ann.\n* Keep clause 2.", ["Mine the east vein.", "Wait for Ann.", "Keep clause 2."]),
    ("\n".join(f"- lesson {i}" for i in range(9)), [f"lesson {i}" for i in range(5)]),
])
def test_lessons_are_read_from_bullets_and_numbered_lines_at_most_five(reply: str, lessons: list[str]) -> None:
    assert parse_lessons(reply) == lessons


def test_a_reply_without_a_lesson_line_is_refused() -> None:
    with pytest.raises(ValueError, match='no line starts with "- "'):
        parse_lessons("It went well.\nNothing to add.")


def test_the_recap_names_who_broke_a_clause_and_every_reward() -> None:
    clauses = [{"clause": 1, "status": "kept"},
               {"clause": 2, "status": "broken", "broken_by": ["Ben"], "breaches": ["Ben mined 3 iron_ore."]},
               {"clause": 3, "status": "free text"},
               {"clause": 4, "status": "excused", "excused": [{"text": "Ann is excused: made impossible by Ben's breach."}]}]
    text = recap("Ann", "1. Ann mines all diamond_ore.\n2. Ben does not mine iron_ore.\n3. Be nice.\n"
                        "4. Ann takes the iron_pickaxe.", clauses,
                 {"diamond": 6}, {"Ann": 48.0, "Ben": 30.0}, {"Ann": 4.5, "Ben": -4.5}, {"Ann": 52.5, "Ben": 25.5})
    assert text.splitlines() == [
        "Your inventory at the end: diamond: 6 (worth 48 emeralds to you).",
        "The judge moved +4.5 emeralds to you; your reward: 52.5.",
        "The contract's clauses as the formal judge scored them:",
        "1. kept: Ann mines all diamond_ore.",
        "2. broken by Ben: Ben does not mine iron_ore. (Ben mined 3 iron_ore.)",
        "3. free text, not enforced: Be nice.",
        "4. excused: Ann takes the iron_pickaxe. (Ann is excused: made impossible by Ben's breach.)",
        "Every player's reward: Ann 52.5, Ben 25.5.",
    ]
    alone = recap("Ben", None, [], {}, {"Ann": 48.0, "Ben": 0.0}, {"Ann": 0.0, "Ben": 0.0}, {"Ann": 48.0, "Ben": 0.0})
    assert "No contract was in force. Your reward: 0." in alone and "Your inventory at the end: empty" in alone


def test_the_reflection_says_whether_the_contract_may_change_before_the_next_episode() -> None:
    from blockpact.agents.reflection import Recollection, reflection_messages
    from blockpact.worlds.world_files import load_world

    spec = load_world("commons")
    fixed = Recollection("Alex", None, None, "Alex: 29 emeralds.", "None.", (), ())
    [fixed_system, _] = reflection_messages(spec, fixed)
    [meeting_system, _] = reflection_messages(spec, Recollection(*[getattr(fixed, f) for f in (
        "player", "contract", "code", "outcome", "critique", "chat", "lessons")], meetings=True))
    assert "there is no negotiation between episodes" in fixed_system["content"]
    assert "may change the contract by a vote" not in fixed_system["content"]
    assert "the players meet and may change the contract by a vote" in meeting_system["content"]
    assert "no negotiation between episodes" not in meeting_system["content"]
