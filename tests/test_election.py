"""Leaders by election (issue 40): in the election pasture (tests/worlds/election_pasture.toml) Bo leads the first
term and only the leader proposes. Bo, a greedy player, breaks the quota in force in the first episode; at the next
meeting the formal judge's breach puts a recall to the vote, it passes, the players elect the candidate with the best
record, and the new leader's quota is the contract the others then keep: the event log, metrics.json's institution
section and the report show each vote, the leaders and their direction. Then terms, an empty seat, the counting of
ballots, LLM members' recall and election turns, and the file:line errors of bad election keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockpact.agents.meeting_floor import LastEpisode, Office, Record
from blockpact.agents.meeting_office import OfficeFormatError, parse_office
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.plan.institution import InstitutionSpec
from blockpact.experiments.play.institution_vote import count_ballots
from blockpact.experiments.plan.scenario import ScenarioError, load_scenario
from blockpact.experiments.plan.scenario_run import scenario_plan
from blockpact.worlds.world_files import load_world
from test_run_llm import KEY, llm_env  # noqa: F401  (the fixture: only the stub's key in the environment)

WORLD = Path(__file__).parent / "worlds" / "election_pasture.toml"
PLAYERS = ["Ann", "Bo", "Cal", "Dee"]
QUOTA = "1. Each player mines at most 8 pumpkin every 30 seconds."


def scenario_text(bo: str = "scripted:greedy", institution: str = "", episodes: int = 3, ann: str = "scripted:cooperative",
                  others: str = "scripted") -> str:
    return (f'[scenario]\nworld = "{WORLD}"\nseeds = 1\nepisodes = {episodes}\n\n[[conditions]]\nname = "quota"\n'
            f'contract = "{QUOTA}"\n\n[players]\nAnn = "{ann}"\nBo = "{bo}"\nCal = "{others}"\nDee = "{others}"\n'
            + institution)


def run(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[dict[str, Any], list[dict[str, Any]], Path]:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    out = tmp_path / name
    assert main(["run", str(path), "--out", str(out), *flags]) == 0
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return json.loads((out / "metrics.json").read_text()), events, out


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["kind"] == kind]


def test_a_leader_who_breaks_the_quota_is_recalled_and_the_elected_leader_directs_the_others(tmp_path: Path) -> None:
    metrics, events, out = run(tmp_path, "election", scenario_text())
    # the formal judge finds Bo, the leader, broke the quota in the first episode
    judged = [e for e in events if e["kind"] == "judgment" and e["data"]["source"] == "formal" and e["episode"] == 0]
    assert judged[0]["data"]["clauses"][0]["broken_by"] == ["Bo"]
    [recall] = of(events, "recall")
    assert recall["leader"] == "Bo" and recall["for_episode"] == 1
    assert recall["breaches"][0].startswith("clause 1: Bo mined") and "more than the 8 clause 1 allows" in recall["breaches"][0]
    assert {v["player"]: v["vote"] for v in of(events, "recall_vote")} == {"Ann": "yes", "Bo": "no", "Cal": "yes",
                                                                           "Dee": "yes"}
    [recalled] = of(events, "recall_result")
    assert recalled["passed"] and recalled["yes"] == 3 and recalled["needed"] == "more than 2 of 4 votes"
    [election] = of(events, "election")
    assert election["why"] == "recall" and election["candidates"] == ["Ann", "Cal", "Dee"]  # Bo may not stand
    assert {b["player"]: b["candidate"] for b in of(events, "ballot")} == {p: "Ann" for p in PLAYERS}
    [result] = of(events, "election_result")
    assert (result["elected"], result["leader"], result["previous"]) == ("Ann", "Ann", None)
    # the order at the meeting: the recall, then the election, then the new leader's proposal
    order = [e["kind"] for e in events if e["kind"] in ("meeting_start", "recall", "recall_result", "election",
                                                         "election_result", "proposal", "meeting_end")]
    assert order[:7] == ["meeting_start", "recall", "recall_result", "election", "election_result", "proposal",
                         "meeting_end"]
    [proposal] = of(events, "proposal")  # only the leader proposes; Ann, elected, proposes the search's quota
    assert proposal["player"] == "Ann" and proposal["for_episode"] == 1
    starts = of(events, "episode_start")
    assert starts[0]["contract"] == QUOTA and starts[1]["contract"] == proposal["text"] == starts[2]["contract"]
    assert [m["leader"] for m in of(events, "meeting_end")] == ["Ann", "Ann"]  # Ann's term: 2 episodes
    assert of(events, "recall_vote")[0]["scripted"] and of(events, "ballot")[0]["source"] == "scripted"

    section = metrics["institution"]["conditions"]["quota"]
    office = section["office"]
    assert (office["recalls"], office["recalls_passed"], office["elections"], office["leaders_elected"]) == (
        1, 1, 1, ["Ann"])
    [seed] = section["seeds"]
    assert [row["leader"] for row in seed["office"]["leaders"]] == ["Bo", "Ann", "Ann"]
    # the direction: Bo put nothing in force; Ann's quota is followed by the keepers and broken by greedy Bo
    bo, ann = office["direction"]["Bo"], office["direction"]["Ann"]
    assert (bo["episodes_led"], bo["commands"]) == (1, 0)
    assert ann["episodes_led"] == 2 and ann["commands"] > 0 and ann["broken_by_leader"] == 0
    followed = seed["office"]["direction"]["Ann"]["followed"]
    assert followed["Cal"]["kept"] == followed["Cal"]["of"] == followed["Dee"]["of"] == followed["Dee"]["kept"] > 0
    assert followed["Bo"]["kept"] < followed["Bo"]["of"]
    assert 0 < ann["followed_rate"] < 1
    report = (out / "report.html").read_text()
    assert "<h3>Leaders, recalls and elections</h3>" in report
    assert "recalled (3 yes, needed more than 2 of 4 votes)" in report and "Ann elected" in report
    assert "0: Bo, 1: Ann, 2: Ann" in report
    assert "the elected leader may propose" in metrics["institution"]["rules"]["description"]


def test_no_recall_without_a_breach_and_an_election_when_the_term_is_over(tmp_path: Path) -> None:
    metrics, events, _ = run(tmp_path, "term", scenario_text(bo="scripted"))  # Bo keeps the quota
    assert of(events, "recall") == []
    [election] = of(events, "election")
    assert (election["for_episode"], election["why"], election["incumbent"]) == (2, "term", "Bo")
    [result] = of(events, "election_result")  # nobody broke a clause: the most emeralds decide
    assert (result["elected"], result["previous"], result["re_elected"]) == ("Ann", "Bo", False)
    assert of(events, "ballot")[0]["reason"].startswith("the best record: 0 breaches")
    seed = metrics["institution"]["conditions"]["quota"]["seeds"][0]
    assert [row["leader"] for row in seed["office"]["leaders"]] == ["Bo", "Bo", "Ann"]
    # recall = "never": a leader in breach keeps office until the term is over
    _, events, _ = run(tmp_path, "never", scenario_text(institution='\n[institution]\npropose = "leader"\n'
                                                                    'leader = "Bo"\nelect = "plurality"\nterm = 2\n'
                                                                    'recall = "never"\n'))
    assert of(events, "recall") == []
    assert [m["leader"] for m in of(events, "meeting_end")] == ["Bo", "Ann"]  # elected when Bo's term is over
    # Bo, greedy, proposed nothing while it led; Ann, elected, proposes at once
    assert [(p["player"], p["for_episode"]) for p in of(events, "proposal")] == [("Ann", 2)]


def test_an_empty_seat_is_filled_at_the_first_meeting(tmp_path: Path) -> None:
    metrics, events, _ = run(tmp_path, "vacant", scenario_text(
        institution='\n[institution]\npropose = "leader"\nelect = "majority"\ncandidates = ["Bo", "Cal"]\n',
        episodes=2))
    [start] = of(events, "meeting_start")
    assert start["leader"] is None
    [election] = of(events, "election")
    assert (election["why"], election["candidates"]) == ("vacant", ["Bo", "Cal"])
    [result] = of(events, "election_result")
    # Bo (greedy) votes for itself; the others for Cal, who kept the quota: 3 of 4 votes
    assert result["elected"] == "Cal" and result["votes"] == {"Bo": 1.0, "Cal": 3.0}
    assert metrics["institution"]["rules"]["candidates"] == ["Bo", "Cal"]


@pytest.mark.parametrize(("institution", "ballots", "elected"), [
    (InstitutionSpec(elect="plurality"), {"Ann": "Bo", "Bo": "Bo", "Cal": "Ann", "Dee": None}, "Bo"),
    (InstitutionSpec(elect="plurality"), {"Ann": "Ann", "Bo": "Bo", "Cal": None, "Dee": None}, "Ann"),  # a tie
    (InstitutionSpec(elect="plurality"), {p: None for p in PLAYERS}, None),  # nobody voted for
    (InstitutionSpec(elect="majority"), {"Ann": "Bo", "Bo": "Bo", "Cal": "Ann", "Dee": None}, None),  # 2 of 4
    (InstitutionSpec(elect="majority"), {"Ann": "Bo", "Bo": "Bo", "Cal": "Bo", "Dee": "Ann"}, "Bo"),
    (InstitutionSpec(elect="majority", weights={"Cal": 3.0}), {"Ann": "Bo", "Bo": "Bo", "Cal": "Ann", "Dee": "Ann"},
     "Ann"),  # 4 of 6 weighted votes
])
def test_the_counting_of_ballots(institution: InstitutionSpec, ballots: dict[str, str | None],
                                 elected: str | None) -> None:
    assert count_ballots(institution, ["Ann", "Bo"], ballots).elected == elected
    with pytest.raises(ValueError, match="must name a candidate"):
        count_ballots(institution, ["Ann", "Bo"], {"Ann": "Zed"})


def office(kind: str) -> Office:
    return Office(kind, InstitutionSpec(elect="plurality"), "Bo", ("Ann", "Cal"), {"Ann": Record(0, 8.0)},
                  "the judge found Bo broke the contract", 0, LastEpisode(0, {"Ann": 8.0}, {}, {"Bo": ("clause 1",)}))


@pytest.mark.parametrize(("kind", "reply", "problem"), [
    ("recall", "[thinking] hmm", r"no \[recall\] line: write \[recall\] yes, no or abstain"),
    ("recall", "[recall] maybe", "must be yes, no or abstain, not 'maybe'"),
    ("recall", "[recall] VOTE", "must be yes, no or abstain, not 'VOTE'"),  # the prompt's placeholder copied
    ("recall", "[recall] yes\n[recall] no", r"two different \[recall\] lines"),
    ("election", "[elect]", r"no \[elect\] line: write \[elect\] the name of one candidate \(Ann, Cal\)"),
    ("election", "[elect] Bo", r"'Bo' is not a candidate \(the candidates: Ann, Cal\)"),
    ("election", "[recall] yes", r"no \[elect\] line"),
])
def test_the_office_format_is_strict(kind: str, reply: str, problem: str) -> None:
    with pytest.raises(OfficeFormatError, match=problem):
        parse_office(reply, office(kind))


def test_a_well_formed_office_reply_reads_its_choice() -> None:
    assert parse_office("[thinking] he broke it\n[recall] Yes", office("recall")) == ("he broke it", "yes")
    assert parse_office("[elect] cal.", office("election")) == ("", "Cal")
    assert parse_office("[elect] abstain", office("election")) == ("", None)


def test_llm_members_recall_the_leader_and_elect_a_new_one(llm_env, tmp_path: Path) -> None:  # noqa: F811
    text = scenario_text(ann="llm:stub-model", others="llm:stub-model", episodes=2)
    with OpenAIStub(responder=ProtocolResponder(load_world(WORLD)), api_key=KEY) as stub:
        metrics, events, _ = run(tmp_path, "llm", text, "--llm-base-url", stub.base_url, "--no-llm-cache")
    turns = [t for t in of(events, "meeting_turn") if t.get("stage")]
    assert [(t["player"], t["stage"], t["choice"], t["error"]) for t in turns] == [
        ("Ann", "recall", "yes", None), ("Cal", "recall", "yes", None), ("Dee", "recall", "yes", None),
        ("Ann", "election", "Ann", None), ("Cal", "election", "Ann", None), ("Dee", "election", "Ann", None)]
    assert of(events, "recall_result")[0]["passed"] and of(events, "election_result")[0]["leader"] == "Ann"
    assert metrics["institution"]["conditions"]["quota"]["member_failures"] == 0
    prompts = [r.body["messages"] for r in stub.chat_requests
               if r.body["messages"][0]["content"].startswith("You are Cal, a member of the meeting")]
    recall_prompt = next(m[1]["content"] for m in prompts if "a vote to recall the leader, Bo" in m[1]["content"])
    assert "The judge found Bo broke the contract in force: clause 1: Bo mined" in recall_prompt
    assert "[recall] VOTE\n(VOTE: yes, no or abstain; yes removes Bo from office)" in recall_prompt
    assert "  Bo: 1 broken, " in recall_prompt and "instead of a proposal and votes" in recall_prompt
    assert "Elections: the leader is elected by most votes" in prompts[0][0]["content"]


def load(tmp_path: Path, institution: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(scenario_text(institution=f"\n[institution]\n{institution}\n"))
    return path


@pytest.mark.parametrize(("institution", "key", "expected"), [
    ('elect = "lottery"', "institution.elect", "got 'lottery' (expected 'plurality' or 'majority')"),
    ('elect = "plurality"\nterm = 0', "institution.term", "got 0 (expected a whole number of episodes >= 1)"),
    ('elect = "plurality"\nterm = 1.5', "institution.term", "got 1.5 (expected a whole number of episodes >= 1)"),
    ('term = 2', "institution.term", "applies with elections only"),
    ('recall = "breach"', "institution.recall", "applies with elections only"),
    ('elect = "plurality"\nrecall = "always"', "institution.recall", "got 'always' (expected 'breach' or 'never')"),
    ('elect = "plurality"\ncandidates = []', "institution.candidates", "got [] (expected the players who stand"),
    ('elect = "plurality"\ncandidates = "Ann"', "institution.candidates", "expected a list of player names"),
])
def test_a_bad_election_key_names_file_line_key_and_what_was_expected(tmp_path: Path, institution: str, key: str,
                                                                      expected: str) -> None:
    path = load(tmp_path, institution)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:") and f": {key}: " in message and expected in message
    line = path.read_text().splitlines()[int(message.split(":")[1]) - 1]
    assert line.startswith(key.split(".")[-1])


def test_candidates_must_be_players_of_the_world(tmp_path: Path) -> None:
    path = load(tmp_path, 'elect = "plurality"\ncandidates = ["Ann", "Zed"]')
    with pytest.raises(ScenarioError, match=r"bad\.toml:\d+: institution\.candidates: no player 'Zed' in world "
                                            r"'election_pasture'"):
        scenario_plan(load_scenario(path), load_world(WORLD), None)


def test_resume_holds_the_recorded_elections_and_compare_labels_them(tmp_path: Path) -> None:
    from blockpact.experiments.studies.compare_sources import institution_label

    _, events, out = run(tmp_path, "resumed", scenario_text(episodes=2))
    assert institution_label(events[0]["data"]) == (
        "meetings (majority; the elected leader proposes; elected by plurality, terms of 2)")
    lines = (out / "events.jsonl").read_text().splitlines(keepends=True)
    (out / "events.jsonl").write_text(lines[0])
    (tmp_path / "resumed.toml").write_text(scenario_text(episodes=2, institution="\n[institution]\n"))  # changed since
    assert main(["resume", str(out)]) == 0
    resumed = json.loads((out / "metrics.json").read_text())["institution"]["conditions"]["quota"]["office"]
    assert (resumed["recalls_passed"], resumed["leaders_elected"]) == (1, ["Ann"])


def test_an_llm_member_out_of_format_at_a_recall_abstains_and_is_recorded_as_failing(llm_env, tmp_path: Path) -> None:  # noqa: F811
    responder = ProtocolResponder(load_world(WORLD))

    def cal_rambles(request: dict[str, Any]) -> Any:
        messages = request["messages"]
        if messages[0]["content"].startswith("You are Cal, a member") and "a vote to recall" in messages[1]["content"]:
            return "Bo should go, I suppose."
        return responder(request)

    text = scenario_text(ann="llm:stub-model", others="llm:stub-model", episodes=2)
    with OpenAIStub(responder=cal_rambles, api_key=KEY) as stub:
        metrics, events, out = run(tmp_path, "rambles", text, "--llm-base-url", stub.base_url, "--no-llm-cache")
    [failed] = [t for t in of(events, "meeting_turn") if t["error"]]
    assert (failed["player"], failed["stage"], failed["choice"], failed["attempts"]) == ("Cal", "recall", "abstain", 3)
    assert failed["problems"][0] == "no [recall] line: write [recall] yes, no or abstain (yes removes Bo from office)"
    assert len(failed["replies"]) == 3 and "counted as an abstention" in failed["error"]
    votes = {v["player"]: (v["vote"], v["reason"]) for v in of(events, "recall_vote")}
    assert votes["Cal"] == ("abstain", "no reply in the format") and votes["Ann"][0] == "yes"
    [result] = of(events, "recall_result")
    assert not result["passed"] and result["yes"] == 2  # Ann and Dee: 2 of 4 is no majority; Bo stays
    assert of(events, "election") == [] and of(events, "meeting_end")[0]["leader"] == "Bo"
    section = metrics["institution"]["conditions"]["quota"]
    assert section["member_failures"] == 1
    assert metrics["conditions"]["quota"]["agent_errors"]["by_player"] == {"Cal": {"meeting_format": 1}}
    retry = next(r.body["messages"] for r in stub.chat_requests if len(r.body["messages"]) > 2
                 and r.body["messages"][0]["content"].startswith("You are Cal, a member"))
    assert retry[-1]["content"].startswith("Your reply does not follow the format: no [recall] line")
    assert "<h3>Member turns out of format</h3>" in (out / "report.html").read_text()


@pytest.mark.parametrize(("table", "key", "expected"), [
    ('elect = "lottery"', "institution.elect", "got 'lottery' (expected 'plurality' or 'majority')"),
    ('elect = "majority"\ncandidates = ["Ann", "Zed"]', "institution.candidates", "no player 'Zed'"),
    ('term = 3', "institution.term", "applies with elections only"),
])
def test_a_bad_election_key_in_a_world_file_names_file_line_and_key(tmp_path: Path, table: str, key: str,
                                                                   expected: str) -> None:
    from blockpact.worlds.spec.value_reader import WorldSpecError

    world = tmp_path / "world.toml"
    text = WORLD.read_text()
    world.write_text(text[:text.index("[institution]")] + f"[institution]\n{table}\n\n" + text[text.index("[episode]"):])
    with pytest.raises(WorldSpecError) as caught:
        load_world(world)
    [problem] = caught.value.problems
    assert (problem.path, problem.file) == (key, str(world)) and expected in problem.message
    assert problem.line is not None and world.read_text().splitlines()[problem.line - 1].startswith(key.split(".")[1])
