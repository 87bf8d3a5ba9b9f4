"""The typed settings loader: defaults.toml read into frozen dataclasses, mistakes reported as file:line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from blockpact.settings import PACKAGE_DIR, Defaults, SettingsError, load_settings, settings


def test_defaults_are_typed_and_frozen() -> None:
    s = settings()
    assert s.minecraft.version == "1.20.4" and isinstance(s.server.port, int)
    assert isinstance(s.simulator.search_radius, float) and s.simulator.tick_seconds == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.simulator.reach = 9.0  # type: ignore[misc]


def broken(tmp_path: Path, old: str, new: str) -> Path:
    text = (PACKAGE_DIR / "defaults.toml").read_text()
    assert old in text
    path = tmp_path / "defaults.toml"
    path.write_text(text.replace(old, new))
    return path


def line_of(path: Path, start: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(start))


def test_a_wrong_type_names_file_line_and_key(tmp_path: Path) -> None:
    path = broken(tmp_path, "port = 25565", 'port = "25565"')
    with pytest.raises(SettingsError) as exc:
        load_settings(path, Defaults)
    assert str(exc.value) == f"{path}:{line_of(path, 'port')}: server.port: expected an integer, got '25565'"


def test_every_problem_is_reported(tmp_path: Path) -> None:
    path = broken(tmp_path, "reach = 4.5", "raech = 4.5")
    path.write_text(path.read_text().replace("bm25_b = 0.75", "bm25_b = true"))
    with pytest.raises(SettingsError) as exc:
        load_settings(path, Defaults)
    problems = str(exc.value).splitlines()
    assert f"{path}:{line_of(path, 'raech')}: simulator.raech: unknown key (did you mean 'reach'? expected one of: chat_seconds, chest_seconds, craft_seconds, " \
           "place_seconds, reach, search_radius, step_up_seconds, tick_seconds, turn_speed, walk_speed)" in problems
    assert f"{path}:{line_of(path, '[simulator]')}: simulator.reach: missing (expected a number)" in problems
    assert f"{path}:{line_of(path, 'bm25_b')}: skills.bm25_b: expected a number, got True" in problems
    assert len(problems) == 3


def test_a_missing_table_and_bad_toml(tmp_path: Path) -> None:
    path = broken(tmp_path, "[skills]", "[skillz]")
    with pytest.raises(SettingsError, match=r"skills: missing \(expected a \[skills\] table\)"):
        load_settings(path, Defaults)
    path.write_text("[server\n")
    with pytest.raises(SettingsError, match=r"defaults\.toml: not valid TOML"):
        load_settings(path, Defaults)


def test_an_override_file_is_laid_on_top_and_its_mistakes_name_it(tmp_path: Path) -> None:
    base = PACKAGE_DIR / "defaults.toml"
    mine = tmp_path / "mine.toml"
    mine.write_text("[server]\nport = 1\n")
    s = load_settings(base, Defaults, mine)
    assert (s.server.port, s.server.host, s.simulator.reach) == (1, "127.0.0.1", 4.5)
    mine.write_text("[server]\nport = 1\n\n[simulator]\nreach = 'far'\n")
    with pytest.raises(SettingsError) as exc:
        load_settings(base, Defaults, mine)
    assert str(exc.value) == f"{mine}:5: simulator.reach: expected a number, got 'far'"
