"""Scenario files: parsed with file:line errors, run by `blockpact run SCENARIO.toml` with typed flags
overriding them, and mixed populations (an LLM focal player among scripted ones) recorded and reported."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.llm import read_transcript
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.experiments.plan.scenario import ScenarioError, load_scenario
from blockpact.worlds.world_files import load_world

KEY = "sk-test-scenario-1c2d"
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG")

MIXED = """
[scenario]
world = "double_vein"
seeds = 2

[[conditions]]
contract = "none"
[[conditions]]
name = "split"
contract = \"\"\"1. Gizmo mines all iron_ore.
2. Glitch mines all diamond_ore.\"\"\"

[players]
Gizmo = "scripted:greedy"
Glitch = "scripted:cooperative"
"""


def write(tmp_path: Path, text: str, name: str = "scenario.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_parse_defaults_and_fixed_contracts(tmp_path) -> None:
    s = load_scenario(write(tmp_path, MIXED))
    assert s.name == "scenario" and s.world == "double_vein" and s.seeds == [0, 1] and s.episodes == 1
    assert [(c.name, c.contract_mode) for c in s.conditions] == [("none", "none"), ("split", "given")]
    assert s.conditions[1].contract_text.startswith("1. Gizmo mines all iron_ore.")
    assert s.population(["Gizmo", "Glitch"]) == {"Gizmo": "scripted:greedy", "Glitch": "scripted:cooperative"}
    plain = load_scenario(write(tmp_path, '[scenario]\nworld = "cleanup"\nseeds = [3, 7]\n', "b.toml"))
    assert [c.name for c in plain.conditions] == ["none", "negotiate"] and plain.seeds == [3, 7]


@pytest.mark.parametrize("text, expected", [
    ('[scenario]\nworld = "double_vein"\n\n[players]\nGizmo = "robot"\n', r"scenario.toml:5: players.Gizmo: 'robot'"),
    ('[scenario]\nworld = "double_vein"\nseeds = 0\n', "scenario.toml:3: scenario.seeds: expected a whole number >= 1"),
    ('[scenario]\nworld = "double_vein"\n\n[[conditions]]\ncontract = "1. Gizmo pays."\n',
     "scenario.toml:4: conditions[0].name: a condition with a fixed contract text needs a name"),
    ('[scenario]\nworld = "nowhere/w.toml"\n', "scenario.toml:2: scenario.world: no world file"),
    ('[scenario]\nworld = "double_vein"\nepisodez = 2\n', "scenario.toml:3: scenario.episodez: unknown key"),
])
def test_bad_input_names_file_line_and_key(tmp_path, text, expected) -> None:
    with pytest.raises(ScenarioError, match=expected.replace("[", r"\[").replace("]", r"\]").replace(".toml", r"\.toml")):
        load_scenario(write(tmp_path, text))


def test_unknown_player_slot_is_refused_before_anything_is_written(tmp_path, capsys) -> None:
    path = write(tmp_path, '[scenario]\nworld = "double_vein"\n\n[players]\nGadget = "scripted"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "r")]) == 1
    assert "scenario.toml:4: players: no player 'Gadget'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_mixed_scripted_population_runs_and_the_report_says_who_was_what(tmp_path) -> None:
    out = tmp_path / "r"
    assert main(["run", str(write(tmp_path, MIXED)), "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert list(metrics["conditions"]) == ["none", "split"]
    for c in metrics["conditions"].values():
        assert c["seeds_finished"] == 2 and not c["errors"]
    # without a contract the cooperator faces the chest first and takes the iron pickaxe (as a live bot does):
    # it mines the diamonds, the defector is left the stone pickaxe and the iron
    none = metrics["conditions"]["none"]["runs"][0]["rewards"]
    assert none == {"Gizmo": 48.0, "Glitch": 30.0}
    run = read_run(out / "events.jsonl")
    assert run.config.population == {"Gizmo": "scripted:greedy", "Glitch": "scripted:cooperative"}
    assert run.config.scenario["text"].startswith("\n[scenario]")
    html = (out / "report.html").read_text()
    assert "Gizmo: scripted:greedy, Glitch: scripted:cooperative" in html


def test_typed_flags_override_the_file_and_defaults_do_not(tmp_path) -> None:
    path = write(tmp_path, MIXED.replace("seeds = 2", "seeds = 3\nepisodes = 1"))
    out = tmp_path / "r"
    assert main(["run", str(path), "--seeds", "1", "--contract", "negotiate", "--agents", "scripted",
                 "--out", str(out)]) == 0
    run = read_run(out / "events.jsonl")
    assert run.config.seeds == [0] and [c.name for c in run.config.conditions] == ["negotiate"]
    assert run.config.population == {"Gizmo": "scripted", "Glitch": "scripted"}
    out2 = tmp_path / "r2"
    assert main(["run", str(path), "--contract", "none", "--out", str(out2)]) == 0  # --seeds not typed: file's 3
    assert read_run(out2 / "events.jsonl").config.seeds == [0, 1, 2]


@pytest.fixture
def llm_env() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        for name in LLM_ENV:
            mp.delenv(name, raising=False)
        mp.setenv("OPENAI_API_KEY", KEY)
        yield


def test_llm_focal_player_among_scripted_background(tmp_path, llm_env) -> None:
    world = load_world("double_vein")
    with OpenAIStub(responder=ProtocolResponder(world), api_key=KEY, models=["focal-model"]) as stub:
        path = write(tmp_path, f"""
[scenario]
world = "double_vein"
seeds = 1

[[conditions]]
contract = "negotiate"

[players]
Gizmo = "llm:focal-model"
Glitch = "scripted"

[judge]
llm = "focal-model"

[llm]
base_url = "{stub.base_url}"
""")
        out = tmp_path / "r"
        assert main(["run", str(path), "--out", str(out), "--no-llm-cache"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["status"] == "complete" and metrics["conditions"]["negotiate"]["seeds_finished"] == 1
    run = read_run(out / "events.jsonl")
    seed = run.seeds[0]
    # who was what, in every output: negotiation turns, programs, the transcript
    assert {t.player: t.scripted for t in seed.turns} == {"Gizmo": False, "Glitch": True}
    assert {p.player: p.source for p in seed.episodes[0].programs} == {"Gizmo": "llm", "Glitch": "scripted"}
    records = read_transcript(out / "transcripts" / "llm.jsonl")
    assert records and {r["request"]["model"] for r in records} == {"focal-model"}
    assert {j.source for j in seed.episodes[0].judgments} == {"formal", "llm"}
    assert "Gizmo: llm:focal-model, Glitch: scripted" in (out / "report.html").read_text()
    assert KEY not in (out / "events.jsonl").read_text()


def test_a_scenario_run_cut_short_resumes_with_its_population(tmp_path) -> None:
    out = tmp_path / "r"
    assert main(["run", str(write(tmp_path, MIXED)), "--out", str(out)]) == 0
    whole = json.loads((out / "metrics.json").read_text())
    lines = (out / "events.jsonl").read_text().splitlines(keepends=True)
    first_end = next(i for i, line in enumerate(lines) if '"kind": "seed_end"' in line)
    (out / "events.jsonl").write_text("".join(lines[: first_end + 1]))
    (out / "metrics.json").unlink()
    assert main(["resume", str(out)]) == 0
    resumed = json.loads((out / "metrics.json").read_text())
    assert resumed["status"] == "complete"
    for name, c in whole["conditions"].items():
        assert [r["rewards"] for r in resumed["conditions"][name]["runs"]] == [r["rewards"] for r in c["runs"]]
    assert read_run(out / "events.jsonl").config.population == {"Gizmo": "scripted:greedy",
                                                                "Glitch": "scripted:cooperative"}
