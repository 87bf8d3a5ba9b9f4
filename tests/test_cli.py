"""The `blockpact` command as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blockpact.cli import main


def test_world_list_and_show(capsys) -> None:
    assert main(["world", "list"]) == 0
    listed = capsys.readouterr().out
    for name in ("double_vein", "cleanup", "commons"):
        assert name in listed
    assert main(["world", "show", "double_vein"]) == 0
    shown = capsys.readouterr().out
    assert "Chest:    tool_chest at [6, 64, 7]: iron_pickaxe 1, stone_pickaxe 1" in shown
    assert "Player:   Glitch at [9, 64, 9]; values diamond 5, raw_iron 3" in shown
    assert "Drop:" not in shown  # no drop table of its own: minecraft-data's drops
    # what plays the dilemma out: drop tables, rules' rates
    assert main(["world", "show", "cleanup"]) == 0
    shown = capsys.readouterr().out
    assert "Drop:     red_mushroom_block -> red_mushroom: 0 (0.6), 1 (0.3), 2 (0.1); 0.5 on average" in shown
    assert "Rule:     regrow red_mushroom_block in mushrooms, p 0.05/s when slime_block in river <= 7" in shown
    assert main(["world", "show", "commons"]) == 0
    assert "Rule:     grow pumpkin in patch, x2 every 60 s up to 100 when pumpkin in patch >= 5" in capsys.readouterr().out


def test_validate_exit_codes_and_problem_lines(tmp_path: Path, capsys) -> None:
    assert main(["world", "validate", "cleanup"]) == 0
    assert "valid" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    original = (Path(__file__).parent.parent / "blockpact/worlds/builtin/double_vein.toml").read_text()
    bad.write_text(original.replace("iron_pickaxe = 1 }", "iron_pickaxe = 1, gold_nugget_x = 2 }").replace('"D" = "diamond_ore"', '"D" = "diamond_oar"'))
    assert main(["world", "validate", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    line_of = {text.strip(): i + 1 for i, text in enumerate(bad.read_text().splitlines())}
    legend_line = line_of['"D" = "diamond_oar"']
    assert f"{bad}:{legend_line}: map.legend.D: unknown block 'diamond_oar' (expected a block name of Minecraft 1.20.4)" in out
    assert any(": chests[0].items.gold_nugget_x: unknown item 'gold_nugget_x'" in line for line in out)
    assert out[-1] == f"{bad}: 2 problems"


def test_unknown_world_is_a_clear_error(capsys) -> None:
    assert main(["world", "show", "atlantis"]) == 1
    err = capsys.readouterr().err
    assert "no world named 'atlantis'" in err and "double_vein" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, unknown", [(["run", "double_vein", "--seed", "2"], "--seed 2"),
                                           (["world", "show", "double_vein", "--bogus"], "--bogus")])
def test_an_abbreviated_or_unknown_option_is_refused_with_its_commands_usage(argv, unknown, capsys) -> None:
    """`--seed 2` is not taken for `--seeds 2` (argparse's abbreviations ran seeds 0 and 1 with exit 0), and the
    error shows the usage of the command it was given to."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    command = " ".join(a for a in argv[:2] if a in ("run", "world", "show"))
    assert f"usage: blockpact {command}" in err and f"unrecognized arguments: {unknown}" in err


def test_world_new_writes_a_template_that_validates(tmp_path: Path, capsys) -> None:
    out = tmp_path / "fishery.toml"
    assert main(["world", "new", "fishery", "--out", str(out)]) == 0
    assert main(["world", "validate", str(out)]) == 0
    assert main(["world", "new", "fishery", "--out", str(out)]) == 1  # never overwrites


def test_console_script_runs_the_main_job(tmp_path: Path, monkeypatch) -> None:
    """The main job through the installed script, its output a pipe: no progress bar, colours or stray
    stderr (test_report.py's progress test relies on this run)."""
    # JSPyBridge sets FORCE_COLOR in os.environ when the Node runtime starts (an earlier test's run
    # started it in this process), and rich takes any FORCE_COLOR for a terminal.
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    exe = Path(sys.executable).parent / "blockpact"
    done = subprocess.run([str(exe), "run", "--seeds", "1"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "scripted" in done.stdout and "negotiate" in done.stdout
    assert "\x1b[" not in done.stdout and "\r" not in done.stdout and "episodes" not in done.stdout
    assert done.stderr == ""
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("double_vein-")
    assert f"report: {Path('runs') / run_dir.name / 'report.html'}" in done.stdout
    assert json.loads((run_dir / "metrics.json").read_text())["conditions"]["negotiate"]["welfare"]["mean"] == 78


def test_a_malformed_configuration_file_is_one_clear_error(tmp_path, capsys) -> None:
    from blockpact.config import read_toml
    from blockpact.errors import UserError

    bad = tmp_path / "run.toml"
    bad.write_text("[run]\nseeds = = 5\n")
    with pytest.raises(UserError, match=r"run\.toml: not valid TOML: .*line 2"):
        read_toml(bad)
    with pytest.raises(UserError, match="configuration file not found"):
        read_toml(tmp_path / "missing.toml")


def test_a_reader_that_stops_early_ends_the_output_quietly(tmp_path) -> None:
    """`blockpact contract check ... | head -1`: the pipe closes while blockpact writes; no traceback, and the exit
    status says the command did not finish (141, as for a SIGPIPE)."""
    import subprocess
    import sys

    text = tmp_path / "contract.txt"
    text.write_text("\n".join(f"{i}. Ann mines at most {i} pumpkins." for i in range(1, 2000)))
    world = Path(__file__).parent / "worlds" / "contract_language.toml"
    cli = subprocess.Popen([sys.executable, "-m", "blockpact.cli", "contract", "check", f"@{text}", "--world", str(world)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert cli.stdout is not None and cli.stdout.readline().startswith(b"1. formal")
    cli.stdout.close()
    _, err = cli.communicate(timeout=120)
    assert cli.returncode == 141 and b"Traceback" not in err, err.decode()
