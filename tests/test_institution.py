"""Institutions (issue 40, first slice): a scenario's [institution] lets the players meet between the episodes of
a seed, propose a quota, vote on it and play the following episodes under the amended contract.

A commons with no contract before play (tests/worlds/meeting_pasture.toml): with a cooperative proposer among
conditional keepers the quota passes and the pasture survives where it collapses without meetings; with a greedy
majority it is voted down, and metrics.json and the report show each vote. Then the counting rules, the
amendment of clauses, and the file:line errors of a bad [institution]."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockpact.cli import main
from blockpact.experiments.studies.compare import compare
from blockpact.experiments.plan.institution import InstitutionSpec
from blockpact.experiments.play.institution_vote import tally
from blockpact.experiments.plan.scenario import ScenarioError, load_scenario
from blockpact.experiments.plan.scenario_run import scenario_plan
from blockpact.judge.amendment import amend, out_of_order
from blockpact.judge.contract import parse_contract
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "meeting_pasture.toml"
PLAYERS = ["Ann", "Bo", "Cal", "Dee"]
INSTITUTION = '\n[institution]\nrule = "majority"\ncan_change = ["quota"]\n'


def scenario_text(others: str, institution: str = INSTITUTION, episodes: int = 2) -> str:
    return (f'[scenario]\nworld = "{WORLD}"\nseeds = 1\nepisodes = {episodes}\n\n[[conditions]]\ncontract = "none"\n\n'
            f'[players]\nAnn = "scripted:cooperative"\nBo = "{others}"\nCal = "{others}"\nDee = "{others}"\n'
            + institution)


def run(tmp_path: Path, name: str, text: str) -> tuple[dict[str, Any], Path]:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    out = tmp_path / name
    assert main(["run", str(path), "--out", str(out)]) == 0
    return json.loads((out / "metrics.json").read_text()), out


def kinds(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


def test_cooperative_players_adopt_a_quota_and_the_commons_survives_where_it_collapses_without_meetings(
        tmp_path: Path) -> None:
    without, _ = run(tmp_path, "fixed", scenario_text("scripted", institution=""))
    assert without["commons"]["conditions"]["none"]["survival_rate"] == 0.0
    assert without["institution"] is None

    metrics, out = run(tmp_path, "meeting", scenario_text("scripted", episodes=3))
    assert metrics["commons"]["conditions"]["none"]["survival_rate"] == 1.0  # measured on the last episode
    assert metrics["conditions"]["none"]["welfare"]["mean"] > without["conditions"]["none"]["welfare"]["mean"]
    section = metrics["institution"]["conditions"]["none"]
    assert (section["meetings"], section["proposals"], section["adopted"], section["seeds_amended"]) == (2, 1, 1, 1)
    [seed] = section["seeds"]
    meeting, again = seed["meetings"]
    assert again["proposals"] == [] and again["contract"] == meeting["contract"]  # the quota is in force: no repeat
    [proposal] = meeting["proposals"]
    assert proposal["player"] == "Ann" and proposal["scripted"] and proposal["passed"]
    assert proposal["votes"] == {p: "yes" for p in PLAYERS}
    assert "at most 5 pumpkin every 30 seconds" in proposal["text"]  # the contract search's quota
    in_force = seed["rules_in_force"]
    assert in_force[0] == {"episode": 0, "contract": None, "amended": False}
    assert in_force[1]["amended"] and in_force[1]["contract"] == proposal["text"]
    assert not in_force[2]["amended"] and in_force[2]["contract"] == proposal["text"]
    episodes = metrics["conditions"]["none"]["runs"][0]["episodes"]
    assert [e["contract"] for e in episodes] == [None, proposal["text"], proposal["text"]]
    assert episodes[0]["welfare"] < episodes[1]["welfare"] == episodes[2]["welfare"]

    events = kinds(out)
    order = [e["kind"] for e in events if e["kind"] in ("episode_start", "meeting_start", "proposal", "vote",
                                                         "vote_result", "meeting_end")]
    assert order == ["episode_start", "meeting_start", "proposal", "vote", "vote", "vote", "vote", "vote_result",
                     "meeting_end", "episode_start", "meeting_start", "meeting_end", "episode_start"]
    assert all(e["data"]["scripted"] for e in events if e["kind"] in ("proposal", "vote"))
    start = next(e for e in events if e["kind"] == "meeting_start")
    assert start["data"]["rules"]["rule"] == "majority" and "episode" not in start
    # the formal judge checks the contract in force in each episode: none in the first, the quota in the second
    judgments = {e["episode"]: e["data"] for e in events if e["kind"] == "judgment" and e["data"]["source"] == "formal"}
    assert 0 not in judgments
    for episode in (1, 2):
        assert [c["kind"] for c in judgments[episode]["clauses"]][:1] == ["quota for each player"]
    report = (out / "report.html").read_text()
    assert "<h2>Institution</h2>" in report and "adopted (4 yes" in report
    # `compare`: the run with meetings is its own treatment, paired with the same population's run without
    comparison = compare([tmp_path / "fixed", out])
    assert sorted(g.condition for g in comparison.groups) == ["none", "none + meetings (majority)"]
    survival = next(p for p in comparison.paired if p.measure == "survival")
    assert (survival.baseline, survival.condition, survival.estimate.mean) == ("none", "none + meetings (majority)", 1.0)


def test_a_greedy_majority_votes_the_quota_down_and_the_report_shows_the_votes(tmp_path: Path) -> None:
    metrics, out = run(tmp_path, "greedy", scenario_text("scripted:greedy", episodes=3))
    section = metrics["institution"]["conditions"]["none"]
    assert (section["meetings"], section["proposals"], section["adopted"]) == (2, 2, 0)
    assert section["votes_by_player"]["Ann"] == {"yes": 2, "no": 0, "abstain": 0}
    assert all(section["votes_by_player"][p] == {"yes": 0, "no": 2, "abstain": 0} for p in PLAYERS[1:])
    proposal = section["seeds"][0]["meetings"][0]["proposals"][0]
    assert proposal["votes"] == {"Ann": "yes", "Bo": "no", "Cal": "no", "Dee": "no"} and not proposal["passed"]
    assert proposal["result"]["needed"] == "more than 2 of 4 votes"
    assert [ep["contract"] for ep in section["seeds"][0]["rules_in_force"]] == [None, None, None]
    assert metrics["commons"]["conditions"]["none"]["survival_rate"] == 0.0
    report = (out / "report.html").read_text()
    assert "rejected (1 yes, needed more than 2 of 4 votes)" in report
    assert "Ann: yes, Bo: no, Cal: no, Dee: no" in report


def test_only_the_leader_may_propose_under_propose_leader(tmp_path: Path) -> None:
    metrics, out = run(tmp_path, "leader", scenario_text("scripted", '\n[institution]\npropose = "leader"\nleader = "Bo"\n'))
    section = metrics["institution"]["conditions"]["none"]
    assert (section["meetings"], section["proposals"]) == (1, 0)  # Bo, a conditional keeper, proposes nothing
    assert metrics["institution"]["rules"]["description"].startswith(
        "the players meet between episodes; the leader (Bo) may propose")
    assert "no proposal" in (out / "report.html").read_text()
    metrics, _ = run(tmp_path, "leader_ann", scenario_text("scripted", '\n[institution]\npropose = "leader"\n'
                                                                       'leader = "Ann"\nrule = "unanimity"\n'))
    assert metrics["institution"]["conditions"]["none"]["adopted"] == 1


def test_resume_holds_the_meetings_the_run_recorded(tmp_path: Path) -> None:
    _, out = run(tmp_path, "meeting", scenario_text("scripted"))
    lines = (out / "events.jsonl").read_text().splitlines(keepends=True)
    (out / "events.jsonl").write_text(lines[0])
    (tmp_path / "meeting.toml").write_text(scenario_text("scripted", institution=""))  # the file changed since
    assert main(["resume", str(out)]) == 0
    resumed = json.loads((out / "metrics.json").read_text())
    assert resumed["institution"]["conditions"]["none"]["adopted"] == 1


def spec(**fields: Any) -> InstitutionSpec:
    return InstitutionSpec(**fields)


@pytest.mark.parametrize(("institution", "votes", "passed"), [
    (spec(), {"Ann": "yes", "Bo": "yes", "Cal": "no", "Dee": "no"}, False),  # a tie is no majority
    (spec(), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "abstain"}, True),
    (spec(), {"Ann": "yes", "Bo": "yes", "Cal": "abstain", "Dee": "abstain"}, False),  # of all votes, not those cast
    (spec(rule="unanimity"), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}, False),
    (spec(rule="unanimity"), {p: "yes" for p in PLAYERS}, True),
    (spec(rule="quorum", quorum=0.75), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}, True),
    (spec(rule="quorum", quorum=0.8), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}, False),
    (spec(rule="weighted", weights={"Ann": 3.0}), {"Ann": "yes", "Bo": "no", "Cal": "no", "Dee": "no"}, False),
    (spec(rule="weighted", weights={"Ann": 4.0}), {"Ann": "yes", "Bo": "no", "Cal": "no", "Dee": "no"}, True),
    (spec(rule="unanimity", weights={"Dee": 0.0}), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}, False),
    (spec(rule="quorum", quorum=0.75, weights={"Dee": 0.0}), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"},
     True),  # weights count under every rule: Dee's no weighs nothing
    (spec(veto=("Dee",)), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "no"}, False),
    (spec(veto=("Dee",)), {"Ann": "yes", "Bo": "yes", "Cal": "yes", "Dee": "abstain"}, True),
])
def test_the_passing_rules(institution: InstitutionSpec, votes: dict[str, str], passed: bool) -> None:
    result = tally(institution, votes)
    assert result.passed is passed
    assert result.vetoed_by == (("Dee",) if institution.veto and votes["Dee"] == "no" else ())


def test_an_adopted_quota_replaces_the_old_one_on_its_block_and_keeps_the_other_clauses() -> None:
    world = load_world(WORLD)
    old = parse_contract("1. Each player mines at most 8 pumpkin every 30 seconds.\n"
                         "2. Ann, Bo, Cal and Dee share their rewards equally.", PLAYERS, spec=world).clauses
    new = parse_contract("1. Each player mines at most 5 pumpkin every 30 seconds.", PLAYERS, spec=world).clauses
    assert amend(old, new) == (new[0], old[1])
    assert amend((), new) == new
    assert out_of_order(new, ["quota"]) is None
    assert "only quota clauses" in (out_of_order(old, ["quota"]) or "")
    assert out_of_order(old, ["clauses"]) is None


def load(tmp_path: Path, institution: str, others: str = "scripted") -> Any:
    path = tmp_path / "bad.toml"
    path.write_text(scenario_text(others, institution))
    return path, load_scenario(path)


@pytest.mark.parametrize(("institution", "key", "expected"), [
    ('rule = "plurality"', "institution.rule", "expected 'majority' or 'quorum' or 'unanimity' or 'weighted'"),
    ('rules = "majority"', "institution.rules", "unknown key (expected meet, propose"),
    ('meet = "every 30 s"', "institution.meet", "expected \"between_episodes\""),
    ('rule = "quorum"', "institution.quorum", "a number in (0, 1]"),
    ('rule = "quorum"\nquorum = 1.5', "institution.quorum", "a number in (0, 1]"),
    ('quorum = 0.5', "institution.quorum", "applies to rule = \"quorum\" only"),
    ('weights = { Ann = -1 }', "institution.weights", "each a number >= 0"),
    ('rule = "weighted"', "institution.weights", "needs one"),
    ('propose = "leader"', "institution.leader", "missing (expected the leader's name"),
    ('propose = "mayor"', "institution.propose", "expected 'anyone' or 'leader'"),
    ('can_change = ["sanction"]', "institution.can_change", "expected one or more of 'quota', 'clauses'"),
    ('veto = "Ann"', "institution.veto", "expected a list of player names"),
])
def test_a_bad_institution_names_file_line_key_and_what_was_expected(tmp_path: Path, institution: str, key: str,
                                                                   expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(scenario_text("scripted", f"\n[institution]\n{institution}\n"))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:") and f": {key}: " in message and expected in message
    line = path.read_text().splitlines()[int(message.split(":")[1]) - 1]
    assert line.startswith((key.split(".")[-1], "[institution]"))  # the key's line, or its table's when it is missing


def test_players_the_institution_names_must_be_in_the_world_and_members_scripted(tmp_path: Path) -> None:
    world = load_world(WORLD)
    path, scenario = load(tmp_path, '\n[institution]\nveto = ["Zed"]\n')
    with pytest.raises(ScenarioError, match=r"bad\.toml:\d+: institution\.veto: no player 'Zed' in world "
                                            r"'meeting_pasture'"):
        scenario_plan(scenario, world, None)
    path, scenario = load(tmp_path, '\n[institution]\npropose = "leader"\nleader = "Ann"\n', others="human")
    with pytest.raises(ScenarioError, match=r"institution: Bo, Cal, Dee are a `human` slot: .*scripted and LLM members"):
        scenario_plan(scenario, world, None)
    _, scenario = load(tmp_path, '\n[institution]\n', others="llm:some-model")  # LLM members vote (test_meeting_llm.py)
    assert scenario_plan(scenario, world, None).population["Bo"] == "llm:some-model"
    _, scenario = load(tmp_path, '\n[institution]\nrule = "weighted"\nweights = { Ann = 2 }\nveto = ["Dee"]\n')
    plan = scenario_plan(scenario, world, None)
    record = plan.scenario["institution"]
    assert (record["rule"], record["weights"], record["veto"]) == ("weighted", {"Ann": 2.0}, ["Dee"])
    assert "Dee may veto" in record["description"]


def test_a_world_file_may_declare_the_institution_and_a_scenarios_own_replaces_it(tmp_path: Path) -> None:
    world = tmp_path / "world.toml"
    world.write_text(WORLD.read_text() + '\n[institution]\nrule = "unanimity"\n')
    assert load_world(world).institution == InstitutionSpec(rule="unanimity")
    text = scenario_text("scripted", institution="").replace(str(WORLD), str(world))
    metrics, _ = run(tmp_path, "from_world", text)
    assert metrics["institution"]["rules"]["rule"] == "unanimity"
    assert metrics["institution"]["conditions"]["none"]["adopted"] == 1
    assert metrics["commons"]["conditions"]["none"]["survival_rate"] == 1.0
    scenario = load_scenario(tmp_path / "from_world.toml")
    own = scenario_text("scripted", '\n[institution]\nrule = "quorum"\nquorum = 0.5\n').replace(str(WORLD), str(world))
    (tmp_path / "own.toml").write_text(own)
    plan = scenario_plan(load_scenario(tmp_path / "own.toml"), load_world(world), None)
    assert plan.scenario["institution"]["rule"] == "quorum"
    assert scenario_plan(scenario, load_world(world), None).scenario["institution"]["rule"] == "unanimity"
    # a world run from flags holds the world's meetings too
    assert main(["run", str(world), "--seeds", "1", "--episodes", "2", "--contract", "none",
                 "--out", str(tmp_path / "plain")]) == 0
    plain = json.loads((tmp_path / "plain" / "metrics.json").read_text())
    assert plain["institution"]["rules"]["rule"] == "unanimity"  # read from the meetings' events
    assert (plain["institution"]["conditions"]["none"]["meetings"], plain["institution"]["conditions"]["none"]["proposals"]) \
        == (1, 0)  # every player is a plain `scripted` one: nobody proposes


@pytest.mark.parametrize(("table", "key", "expected"), [
    ('rule = "plurality"', "institution.rule", "expected 'majority' or 'quorum'"),
    ('veto = ["Zed"]', "institution.veto", "no player 'Zed'"),
    ('propose = "leader"\nleader = "Zed"', "institution.leader", "no player 'Zed'"),
])
def test_a_bad_institution_in_a_world_file_names_file_line_and_key(tmp_path: Path, table: str, key: str,
                                                                  expected: str) -> None:
    from blockpact.worlds.spec.value_reader import WorldSpecError

    world = tmp_path / "world.toml"
    world.write_text(WORLD.read_text() + f"\n[institution]\n{table}\n")
    with pytest.raises(WorldSpecError) as caught:
        load_world(world)
    [problem] = caught.value.problems
    assert (problem.path, problem.file) == (key, str(world)) and expected in problem.message
    assert problem.line is not None and world.read_text().splitlines()[problem.line - 1].startswith(key.split(".")[1])
