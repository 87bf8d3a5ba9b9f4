"""Every settings file is read by the one typed loader: a wrong type or an unknown key in any of them is
reported as `file:line: key: what was expected`, and the shipped files load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blockpact.agents.action_settings import SETTINGS_FILE as ACTION_FILE, ActionSettings
from blockpact.agents.hourglass.settings import SETTINGS_FILE as HOURGLASS_FILE, HourglassSettings
from blockpact.agents.org.tasks import TASKS_DIR, TaskError, load_task
from blockpact.agents.negotiation import SETTINGS_FILE as NEGOTIATION_FILE, NegotiationSettings
from blockpact.agents.pool.settings import SETTINGS_FILE as POOL_FILE, PoolSettings
from blockpact.bridge.live.settings import LIVE_TOML, LiveSettings
from blockpact.experiments.play.org.settings import SETTINGS_FILE as ORG_FILE, OrgFile
from blockpact.experiments.plan.settings import RUN_TOML, RunSettings
from blockpact.judge.llm_judge import SETTINGS_FILE as JUDGE_FILE, JudgeFile
from blockpact.llm.settings import DEFAULTS_FILE as LLM_FILE
from blockpact.llm.settings_file import LLMFile
from blockpact.settings import SettingsError, load_settings
from blockpact.skills.reference import PRIMITIVES_FILE, PrimitivesFile
from blockpact.worlds.step.options import OPTIONS_FILE as STEP_ENV_FILE, StepEnvFile

Load = Callable[[Path], Any]


def schema_loader(schema: type) -> Load:
    return lambda path: load_settings(path, schema)


# (file, its loader, a line to break, the broken line, the key, what the error says)
CASES: list[tuple[Path, Load, str, str, str, str]] = [
    (ACTION_FILE, schema_loader(ActionSettings), "retrieved_skills = 5", 'retrieved_skills = "5"',
     "action.retrieved_skills", "expected an integer, got '5'"),
    (ACTION_FILE, schema_loader(ActionSettings), "attempts = 4", "attempts = 0", "loop.attempts", "expected at least 1, got 0"),
    (NEGOTIATION_FILE, schema_loader(NegotiationSettings), "rounds = 4", "rouds = 4", "negotiation.rouds",
     "unknown key (did you mean 'rounds'? expected one of: attempts, revisions, role, rounds)"),
    (POOL_FILE, schema_loader(PoolSettings), 'kind = "auto"', 'kind = "rabbit"', "broker.kind",
     "expected one of 'auto', 'mosquitto', 'amqtt', got 'rabbit'"),
    (HOURGLASS_FILE, schema_loader(HourglassSettings), "table_offsets = [[2, 0],", "table_offsets = [[2, 0, 1],",
     "scripted.table_offsets[0]", "expected an array of 2 items (an integer, an integer), got [2, 0, 1]"),
    (HOURGLASS_FILE, schema_loader(HourglassSettings), "jitter = 0.3", "jitter = -0.3", "latency.jitter",
     "expected at least 0, got -0.3"),
    (ORG_FILE, schema_loader(OrgFile), "stall_minutes = 40", "stall_minutes = true", "time_cost.stall_minutes",
     "expected a number, got True"),
    (JUDGE_FILE, schema_loader(JudgeFile), 'role = "judge"', "role = 1", "llm_judge.role", "expected a string, got 1"),
    (STEP_ENV_FILE, schema_loader(StepEnvFile), 'cleanup_mp = ["noop",', 'cleanup_mp = [0, "noop",',
     "actions.worlds.cleanup_mp[0]", "expected a string, got 0"),
    (RUN_TOML, schema_loader(RunSettings), 'backend = "sim"', 'backend = "simulator"', "run.backend",
     "expected one of 'sim', 'minecraft', got 'simulator'"),
    (RUN_TOML, schema_loader(RunSettings), "height = 3.2", "height = 3.2\nheigth = 3", "plots.heigth",
     "unknown key (did you mean 'height'? expected one of: band_alpha, height, width)"),
    (LLM_FILE, schema_loader(LLMFile), "temperature = 0.7", 'temperature = "hot"', "roles.negotiator.temperature",
     "expected a number, got 'hot'"),
    (LLM_FILE, schema_loader(LLMFile), 'stream = "auto"', 'stream = "auto"\nstreem = "auto"', "endpoint.streem",
     "unknown key (did you mean 'stream'? expected one of: api_key_env, base_url, chat_format, max_concurrent_requests, model, stream, timeout_seconds)"),
    (PRIMITIVES_FILE, schema_loader(PrimitivesFile), 'kind = "call"', 'kind = "cal"', "bot.waitForTicks.kind",
     "expected one of 'get', 'query', 'call', 'chat', got 'cal'"),
    (PRIMITIVES_FILE, schema_loader(PrimitivesFile), "value = 1048576", "value = 1048576\nvalu = 3", "limits.maxMessageBytes.valu",
     "unknown key (did you mean 'value'? expected one of: doc, value)"),
    (TASKS_DIR / "shelter.toml", load_task, "hollow = true", "hollow = 1", "task.parts[1].hollow",
     "expected true or false, got 1"),
    (TASKS_DIR / "shelter.toml", load_task, 'block = "stone"\nbox = [[5, 64, 21]', 'block = "stone"\nbox = [[5, 64]',
     "task.parts[0].box[0]", "expected an array of 3 items (an integer, an integer, an integer), got [5, 64]"),
    (TASKS_DIR / "collect-logs.toml", load_task, "amount = 50", "amount = 50\namout = 5", "task.amout",
     "unknown key (did you mean 'amount'? expected one of: amount, description, item, items, kind, name, parts, start, world)"),
    (LIVE_TOML, schema_loader(LiveSettings), "keepInventory = true", 'keepInventory = "yes"', "world.gamerules.keepInventory",
     "expected true or false or an integer, got 'yes'"),
    (LIVE_TOML, schema_loader(LiveSettings), 'on_disconnect = "reconnect"', 'on_disconnect = "retyr"', "episode.on_disconnect",
     "expected one of 'reconnect', 'retry', 'fail', got 'retyr'"),
]


def broken_copy(tmp_path: Path, source: Path, old: str, new: str) -> tuple[Path, int]:
    """`source` copied with `old` replaced by `new`, and the line of `new`'s last line."""
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {source}"
    path = tmp_path / source.name
    path.write_text(text.replace(old, new), encoding="utf-8")
    line = next(i for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if new.splitlines()[-1] in text)
    return path, line


@pytest.mark.parametrize("source, load, old, new, key, message", CASES,
                         ids=[f"{c[0].name}:{c[4]}" for c in CASES])
def test_a_mistake_names_file_line_and_key(tmp_path: Path, source: Path, load: Load, old: str, new: str,
                                           key: str, message: str) -> None:
    load(source)  # the shipped file is fine
    path, line = broken_copy(tmp_path, source, old, new)
    with pytest.raises((SettingsError, TaskError)) as exc:
        load(path)
    assert f"{path}:{line}: {key}: {message}" in str(exc.value).splitlines()
