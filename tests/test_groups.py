"""Social structures: reward-sharing groups declared by a world (standing for a time), as a graph,
settled with the rewards, and measured per group next to the groups contracts form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.judge.groups import group_sharing, social_graph
from blockpact.worlds.world_files import load_world, validate_world

GOLD = Path(__file__).parent / "worlds" / "gold_key.toml"
GROUP = '\n[[groups]]\nname = "prospectors"\nmembers = ["Ada", "Ben"]\nshare = 1.0\nuntil = 60\n'


def world(tmp_path: Path, groups: str = GROUP) -> Path:
    path = tmp_path / "gold_groups.toml"
    path.write_text(GOLD.read_text().replace('name = "gold_key"', 'name = "gold_groups"') + groups)
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("groups")
    out = tmp / "run"
    assert main(["run", str(world(tmp)), "--seeds", "1", "--out", str(out)]) == 0
    return out


def test_the_graph_holds_a_group_while_it_stands(tmp_path: Path) -> None:
    spec = load_world(world(tmp_path))
    early, late = social_graph(spec, 10.0), social_graph(spec, 60.0)
    assert set(early.nodes) == {"Ada", "Ben", "Cy"} and early.edges["Ada", "Ben"] == {"weight": 1.0, "groups": ["prospectors"]}
    assert late.number_of_edges() == 0


def test_members_pool_what_they_earn_while_the_group_stands(run_dir: Path, tmp_path: Path) -> None:
    spec = load_world(world(tmp_path))
    [seed] = read_run(run_dir / "events.jsonl").of_condition("none")
    shared = group_sharing(spec, seed.final.events)
    assert shared["Cy"] == 0.0 and shared["Ada"] == pytest.approx(-shared["Ben"]) and shared["Ada"] != 0.0
    metrics = json.loads((run_dir / "metrics.json").read_text())
    none = metrics["conditions"]["none"]["runs"][0]
    assert none["transfers"] == pytest.approx(shared)  # no contract: only the group moves emeralds
    assert sum(none["rewards"].values()) == pytest.approx(sum(seed.final.inventory_rewards.values()))


def test_welfare_and_gini_per_group_in_metrics_and_report(run_dir: Path) -> None:
    metrics = json.loads((run_dir / "metrics.json").read_text())
    groups = metrics["groups"]["conditions"]
    assert groups["none"]["groups"]["prospectors"]["members"] == ["Ada", "Ben"]
    contract = groups["negotiate"]["groups"]
    assert contract["contract clause 3"]["members"] == ["Ada", "Ben", "Cy"] and contract["contract clause 3"]["gini"] == 0.0
    assert metrics["conditions"]["negotiate"]["runs"][0]["gini"] <= 0.1  # the contract's sharing counts the group's
    report = (run_dir / "report.html").read_text()
    assert "<h2>Groups</h2>" in report and "prospectors" in report


@pytest.mark.parametrize(("groups", "path", "phrase"), [
    ('\n[[groups]]\nmembers = ["Ada", "Dan"]\n', "groups[0].members", "unknown player 'Dan'"),
    ('\n[[groups]]\nmembers = ["Ada"]\n', "groups[0].members", "at least two player names"),
    ('\n[[groups]]\nmembers = ["Ada", "Ben"]\nshare = 1.5\n', "groups[0].share", "in [0, 1]"),
    ('\n[[groups]]\nmembers = ["Ada", "Ben"]\nfrom = 50\nuntil = 40\n', "groups[0].until", "not after from = 50"),
])
def test_a_malformed_group_is_one_clear_error(tmp_path: Path, groups: str, path: str, phrase: str) -> None:
    [problem] = validate_world(world(tmp_path, groups))
    assert problem.path == path and phrase in problem.message and problem.line


SHARED = GROUP.replace("until = 60\n", "shared_observation = true\n")


def test_a_group_with_shared_observation_shows_members_what_the_others_see(tmp_path: Path) -> None:
    from blockpact.agents.observation import render_observation, share_group_observations

    spec = load_world(world(tmp_path, SHARED))
    [group] = spec.groups
    assert group.shared_observation and group.stands_at(0.0)
    seen = {p: {"position": [i, 64, 0], "held": None, "inventory": {"stick": i + 1}, "chests": {}, "time": 0.0}
            for i, p in enumerate(sorted(spec.players))}
    shared = share_group_observations(seen, spec.groups, 0.0)
    assert set(shared["Ada"]["group"]) == {"Ben"} and shared["Ben"]["group"]["Ada"]["inventory"] == {"stick": 1}
    assert "group" not in shared["Cy"] and "group" not in seen["Ada"]  # the input is left as it was
    text = render_observation(shared["Ada"], spec)
    assert "Your group members (shared observation): Ben at (1, 64, 0), holding nothing, inventory: stick: 2" in text
    assert "group members" not in render_observation(shared["Cy"], spec)
    ended = load_world(world(tmp_path, SHARED.replace("shared_observation = true\n", "shared_observation = true\nuntil = 10\n")))
    assert "group" not in share_group_observations(seen, ended.groups, 10.0)["Ada"]  # the group no longer stands


def test_shared_observation_reaches_the_action_prompts_of_an_llm_run(tmp_path: Path, monkeypatch) -> None:
    from blockpact.agents.testing.openai_stub import OpenAIStub
    from blockpact.agents.testing.protocol_responder import ProtocolResponder

    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    path = world(tmp_path, SHARED)
    with OpenAIStub(responder=ProtocolResponder(load_world(path))) as stub:
        assert main(["run", str(path), "--agents", "llm", "--contract", "none", "--seeds", "1", "--no-llm-cache",
                     "--llm-base-url", stub.base_url, "--llm-model", "stub-model", "--out", str(tmp_path / "r")]) == 0
        prompts = ["\n".join(str(m.get("content")) for m in r.body["messages"]) for r in stub.chat_requests]
    shared = [p for p in prompts if "Your group members (shared observation)" in p]
    assert any("You play as Ada." in p and "Ben at (" in p for p in shared)
    assert any("You play as Ben." in p and "Ada at (" in p for p in shared)
    assert not any("You play as Cy." in p for p in shared)


def test_shared_observation_must_be_true_or_false(tmp_path: Path) -> None:
    errors = validate_world(world(tmp_path, SHARED.replace("= true", '= "yes"')))
    assert any("groups[0].shared_observation" in str(e) and "expected true or false" in str(e) for e in errors), errors
