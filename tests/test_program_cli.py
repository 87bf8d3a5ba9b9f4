"""`blockpact program run`: a program file on a fresh simulated world, printed as text or JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.skills.library import SkillLibrary

TESTS = Path(__file__).parent
PARITY_WORLD = TESTS / "worlds" / "bridge_parity.toml"
PARITY_PROGRAM = TESTS / "programs" / "chest_iron_sticks_signal.js"


def blockpact(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "blockpact.cli", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(TESTS.parent)})


def test_run_prints_one_json_object(tmp_path: Path) -> None:
    SkillLibrary(tmp_path / "skills").add("sayHello", "Greet everyone.", "async function sayHello(bot) {\n  bot.chat('hello');\n}")
    done = blockpact("program", "run", str(PARITY_PROGRAM), "--world", str(PARITY_WORLD), "--player", "Gizmo",
                     "--seed", "3", "--skills", str(tmp_path / "skills"), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["success"] is True and result["error"] is None
    assert result["inventory"] == {"oak_planks": 2, "stick": 4, "stone_pickaxe": 1}
    assert "I did the recipe for stick 1 times" in result["chat"]
    assert result["observation"]["chests"] == {"4,64,4": {"raw_iron": 3}}


def test_run_reports_a_syntax_error_with_its_line(tmp_path: Path, capsys) -> None:
    """As JSON and as text, from the CLI called in this process (a second Python and Node start would add
    nothing: test_run_prints_one_json_object checks the command's own stdout)."""
    program = tmp_path / "broken.js"
    program.write_text("async function main(bot) {\n  await mineBlock(bot, 'iron_ore' 3);\n}\n")
    assert main(["program", "run", str(program), "--world", "double_vein", "--player", "Glitch", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["success"] is False and result["error_line"] == 2
    assert result["error"].startswith("SyntaxError: Unexpected token (line 2")
    assert main(["program", "run", str(program), "--world", "double_vein", "--player", "Glitch"]) == 1
    assert "SyntaxError: Unexpected token (line 2, column 35)" in capsys.readouterr().out


def test_text_output_says_the_seconds_are_simulated(capsys) -> None:
    """On the simulator a program's seconds are the world's clock, not the time it took to compute."""
    assert main(["program", "run", str(PARITY_PROGRAM), "--world", str(PARITY_WORLD), "--player", "Gizmo"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Gizmo: success after ") and first.endswith(" s simulated"), first


@pytest.mark.parametrize("args,message", [
    (["missing.js", "--world", "double_vein", "--player", "Gizmo"], "no program file missing.js"),
    ([str(PARITY_PROGRAM), "--world", "no_such_world", "--player", "Gizmo"], "no world named 'no_such_world'"),
    ([str(PARITY_PROGRAM), "--world", "double_vein", "--player", "Nobody"], "no player 'Nobody' in world double_vein (players: Gizmo, Glitch)"),
    ([str(PARITY_PROGRAM), "--player", "Gizmo"], "give --world WORLD (simulator) or --server HOST:PORT"),
    ([str(PARITY_PROGRAM), "--server", "nohost", "--player", "Gizmo"], "--server must be HOST:PORT"),
])
def test_bad_input_is_one_clear_message(capsys, args: list[str], message: str) -> None:
    assert main(["program", "run", *args]) == 1
    assert message in capsys.readouterr().err


def test_run_on_a_live_server_prints_the_bot_s_result(tmp_path: Path) -> None:
    """`--server`: the same command drives a mineflayer bot on a real (embedded) server of its own: on the
    session's shared one a new bot may spawn on a world an earlier test built there, and find no path."""
    from blockpact.bridge.live.embedded_server import EmbeddedServer

    program = tmp_path / "hello.js"
    program.write_text("async function hello(bot) {\n  bot.chat(`hello from ${bot.username}`);\n"
                       "  await moveTo(bot, new Vec3(3, 5, 3), 1);\n}\n")
    with EmbeddedServer() as server:
        done = blockpact("program", "run", str(program), "--server", f"127.0.0.1:{server.port}",
                         "--player", "Tester", "--budget", "30", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["success"] is True and result["error"] is None
    assert result["chat"] == ["hello from Tester"]
    x, _, z = result["observation"]["position"]
    assert abs(x - 3) <= 1.5 and abs(z - 3) <= 1.5, result["observation"]["position"]
    assert result["inventory"] == {}
