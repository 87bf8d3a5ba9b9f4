"""The minecraft-data extract shipped in the package: current, equivalent to the npm data, and enough
for an installed wheel to run the simulator and the step API without Node."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from blockpact.config import PROJECT_ROOT
from blockpact.settings import default_mc_version
from blockpact.errors import UserError
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec import mcdata_extract


def test_shipped_extract_is_what_the_script_generates() -> None:
    version = default_mc_version()
    shipped = mcdata_extract.extract_path(version)
    assert shipped.exists(), f"{shipped} missing: run `python -m blockpact.worlds.spec.mcdata_extract`"
    assert shipped.read_text() == mcdata_extract.generate(version), (
        f"{shipped} is stale for the installed minecraft-data: run `python -m blockpact.worlds.spec.mcdata_extract`"
    )


def test_extract_loads_the_same_data_as_node_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    version = default_mc_version()
    mcdata.load.cache_clear()
    from_extract = mcdata.load(version)
    mcdata.load.cache_clear()
    monkeypatch.setattr(mcdata, "extract_path", lambda v: Path("/nonexistent") / f"{v}.json")
    from_node = mcdata.load(version)
    mcdata.load.cache_clear()
    for attr in ("blocks", "block_names_by_id", "items", "stack_sizes", "recipes", "tool_speeds"):
        assert getattr(from_extract, attr) == getattr(from_node, attr), attr


def test_other_versions_come_from_node_modules() -> None:
    assert not mcdata_extract.extract_path("1.20.1").exists()
    data = mcdata.load("1.20.1")
    assert data.version == "1.20.1" and data.block("iron_ore").harvest_tools


def test_a_version_with_no_data_anywhere_names_both_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(mcdata, "NODE_DATA_ROOT", tmp_path / "data")
    mcdata.load.cache_clear()
    try:
        with pytest.raises(UserError, match=r"blockpact ships 1\.20\.4.*npm ci"):
            mcdata.load("1.19")
        assert mcdata.load(default_mc_version()).is_block("stone")  # the shipped one still loads
    finally:
        mcdata.load.cache_clear()


SMOKE = """
from blockpact.worlds import parallel_env
import blockpact.config as config
assert not config.NODE_MODULES.exists(), config.NODE_MODULES
env = parallel_env("double_vein")
obs, infos = env.reset(seed=0)
for _ in range(5):
    obs, rewards, terms, truncs, infos = env.step({a: env.action_space(a).sample() for a in env.agents})
print("stepped", len(env.possible_agents), "agents")
"""


@pytest.mark.slow  # about 90 s: run by `make test-all` (--run-slow)
@pytest.mark.timeout(600)
def test_installed_wheel_runs_without_node_modules(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (PROJECT_ROOT / name).exists():
            shutil.copy(PROJECT_ROOT / name, src / name)
    shutil.copytree(PROJECT_ROOT / "blockpact", src / "blockpact", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    run = lambda *cmd, **kw: subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)  # noqa: E731
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(src))
    wheel = next(dist.glob("blockpact-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    lock = PROJECT_ROOT / "requirements.lock"
    if lock.exists():  # the locked dependency versions, as `make setup` installs them
        run(str(py), "-m", "pip", "install", "--quiet", "--require-hashes", "-r", str(lock))
        run(str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel))
    else:
        run(str(py), "-m", "pip", "install", "--quiet", str(wheel))
    work = tmp_path / "elsewhere"  # not the checkout, so nothing is imported from it
    work.mkdir()
    smoke = run(str(py), "-c", SMOKE, cwd=work)
    assert "stepped" in smoke.stdout
    validate = subprocess.run([str(env_dir / "bin" / "blockpact"), "world", "validate", "double_vein"], cwd=work, capture_output=True, text=True)
    assert validate.returncode == 0, validate.stdout + validate.stderr
