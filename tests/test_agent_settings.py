"""--agent-settings: one file overriding the agents' action.toml and negotiation.toml, checked before a run starts,
in force in the workers a suite starts, recorded in the run, and gone after the command."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockpact.agents.action_settings import action_settings
from blockpact.agents.agent_settings import ENV
from blockpact.agents.negotiation import load_negotiation_settings
from blockpact.cli import main
from blockpact.cli.llm import use_agent_settings as use_override
from blockpact.settings import SettingsError

ROOT = Path(__file__).resolve().parents[1]
SMALL_MODEL = ROOT / "examples" / "small_model" / "agents.toml"


@pytest.fixture(autouse=True)
def no_override(monkeypatch) -> Iterator[None]:
    monkeypatch.delenv(ENV, raising=False)
    yield
    os.environ.pop(ENV, None)  # what use_override set


def test_the_override_replaces_only_the_keys_it_names(tmp_path, monkeypatch) -> None:
    default = action_settings()
    file = tmp_path / "agents.toml"
    file.write_text("[action.loop]\nattempts = 1\n\n[negotiation.negotiation]\nrounds = 2\n")
    monkeypatch.setenv(ENV, str(file))
    settings = action_settings()
    assert settings.loop.attempts == 1 and default.loop.attempts == 4
    assert settings.action == default.action and settings.critic == default.critic
    negotiation = load_negotiation_settings()
    assert negotiation.negotiation.rounds == 2 and negotiation.negotiation.attempts == 3


@pytest.mark.parametrize(("text", "expected"), [
    ("[action.loop]\nattempts = 0\n", r"agents\.toml:2: action\.loop\.attempts: .*at least 1"),
    ("[action.loop]\natempts = 2\n", r"agents\.toml:2: action\.loop\.atempts: unknown key \(did you mean 'attempts'\?"),
    ("[negotiation.negotiation]\nrounds = \"two\"\n", r"agents\.toml:2: negotiation\.negotiation\.rounds: expected"),
    ("[loop]\nattempts = 2\n", r"unknown table\(s\) loop \(expected \[action\]"),
    ("action = 3\n", r"agents\.toml:1: action: expected a table"),
    ("[action\n", r"not valid TOML"),
])
def test_a_mistake_is_reported_with_file_line_and_key_before_anything_runs(tmp_path, text, expected) -> None:
    file = tmp_path / "agents.toml"
    file.write_text(text)
    with pytest.raises(SettingsError, match=expected):
        use_override(file)
    assert ENV not in os.environ


def test_a_missing_file_is_named(tmp_path, capsys) -> None:
    assert main(["suite", "run", "--agents", "greedy", "--worlds", "stag_hunt", "--seeds", "1",
                 "--out", str(tmp_path / "s"), "--agent-settings", str(tmp_path / "none.toml")]) == 1
    assert "none.toml: agent settings file not found" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_the_workers_of_a_suite_use_it_the_run_records_it_and_it_ends_with_the_command(tmp_path) -> None:
    out = tmp_path / "s"
    assert main(["suite", "run", "--agents", "greedy", "--worlds", "stag_hunt", "--seeds", "1", "--workers", "1",
                 "--out", str(out), "--agent-settings", str(SMALL_MODEL)]) == 0
    (events,) = out.glob("units/**/events.jsonl")
    start = json.loads(events.read_text().splitlines()[0])
    assert start["kind"] == "run_start"
    assert start["data"]["agent_settings"] == {"path": str(SMALL_MODEL), "text": SMALL_MODEL.read_text()}
    assert ENV not in os.environ and action_settings().loop.attempts == 4


def test_the_small_model_profile_loads() -> None:
    use_override(SMALL_MODEL)
    assert action_settings().loop.attempts == 2 and load_negotiation_settings().negotiation.rounds == 2
