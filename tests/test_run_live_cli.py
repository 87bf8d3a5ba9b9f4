"""`blockpact run --backend minecraft` as a user runs it: the embedded server starts for the run and is gone
after it (also after Ctrl-C), the viewer pages answer on 127.0.0.1 while the run lasts, and the negotiated
contract reaches the same welfare as on the simulator."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from harness.pace import scaled
from test_bridge_runtime import _gone
from test_run_cli import shell_env

SERVER_LINE = re.compile(r"embedded Minecraft \S+ server at 127\.0\.0\.1:\d+ \(pid (\d+)\)")
VIEWER_LINE = re.compile(r"viewer of (\w+): (http://127\.0\.0\.1:\d+/)")


class LiveRun:
    """`blockpact run ... --backend minecraft` in a child process, its stderr read as it comes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "blockpact.cli", "run", *args, "--backend", "minecraft"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**shell_env(), "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")), daemon=True)
        self.reader.start()

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 60) -> list[re.Match[str]]:
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline and self.proc.poll() is None:
            found = [m for line in list(self.lines) if (m := pattern.search(line))]
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern.pattern}: {''.join(self.lines)[-2000:]}")

    def finish(self, timeout: float = 120) -> tuple[int, str, str]:
        try:
            stdout = self.proc.stdout.read() if self.proc.stdout else ""
            self.proc.wait(scaled(timeout))
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(5)
        return self.proc.returncode, stdout, "".join(self.lines)


def _status(url: str) -> int | str:
    try:
        with urllib.request.urlopen(url, timeout=5) as page:
            return page.status
    except (urllib.error.URLError, ConnectionError) as exc:
        return str(exc)


@pytest.mark.slow  # a negotiated live episode through the CLI: 35 s; test_live_world plays the episode itself
def test_negotiated_double_vein_on_the_embedded_server_with_viewers(tmp_path: Path) -> None:
    out = tmp_path / "live"
    run = LiveRun("double_vein", "--seeds", "1", "--contract", "negotiate", "--out", str(out), "--viewer")
    (server,) = run.wait_for(SERVER_LINE)
    viewers = {m.group(1): m.group(2) for m in run.wait_for(VIEWER_LINE)}
    pages = {player: _status(url) for player, url in viewers.items()}
    code, stdout, stderr = run.finish()

    assert code == 0, stderr
    assert set(viewers) == {"Gizmo", "Glitch"} and set(pages.values()) == {200}, pages
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["conditions"]["negotiate"]["welfare"]["mean"] == 78
    assert "on minecraft" in stdout and (out / "report.html").is_file()
    assert _gone(int(server.group(1))), "the embedded server outlived the run"
    assert all(_status(url) != 200 for url in viewers.values()), "a viewer page still answers after the run"


def test_ctrl_c_stops_the_embedded_server(tmp_path: Path) -> None:
    run = LiveRun("double_vein", "--seeds", "1", "--contract", "none", "--out", str(tmp_path / "stopped"))
    (server,) = run.wait_for(SERVER_LINE)
    run.proc.send_signal(signal.SIGINT)
    code, _, stderr = run.finish()
    assert code == 130, stderr
    assert "Traceback" not in stderr
    assert _gone(int(server.group(1))), "the embedded server outlived the interrupted run"
