"""Crowd worlds: generated for any size, valid, the same file for the same size, and reachable from the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from blockpact.worlds.crowd import crowd_world_text
from blockpact.worlds.world_files import load_world


@pytest.mark.parametrize("crowd", [1, 16, 130])
def test_a_crowd_world_validates_with_one_player_per_plot(tmp_path: Path, crowd: int) -> None:
    path = tmp_path / f"crowd{crowd}.toml"
    path.write_text(crowd_world_text(f"crowd{crowd}", crowd, 60), encoding="utf-8")
    spec = load_world(str(path))
    assert len(spec.players) == crowd
    assert sum(1 for b in spec.blocks.values() if b == "dirt") == crowd
    assert "pumpkin" in spec.blocks.values()
    assert spec.episode_seconds == 60


def test_the_same_size_gives_the_same_file() -> None:
    assert crowd_world_text("c", 64) == crowd_world_text("c", 64)


def test_a_crowd_of_none_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        crowd_world_text("c", 0)


def test_world_new_writes_a_crowd_world(tmp_path: Path) -> None:
    out = tmp_path / "big.toml"
    done = subprocess.run([sys.executable, "-m", "blockpact.cli", "world", "new", "big", "--crowd", "20", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(load_world(str(out)).players) == 20
