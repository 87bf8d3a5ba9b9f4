"""The suite's own guards (tests/harness): a process or temp directory that outlives the session is
removed and fails the run, named with the test that started it; processes a test starts
have default signal handling even when pytest was started with SIGINT ignored; a run stopped with
Ctrl-C or SIGTERM mid-test still tears its fixtures down and leaves nothing behind.

Each case runs a small pytest session of its own in a child process, with the harness plugins loaded.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import procfs
from harness.pace import scaled

TESTS = Path(__file__).parent

CONFTEST = f"""
import sys, threading
sys.path.insert(0, {str(TESTS)!r})
pytest_plugins = ["harness.cleanup", "harness.pace"]
session_over = threading.Event()  # a leaked thread waits for it: it is still there when the session's check runs

def pytest_unconfigure(config):
    session_over.set()
"""

LEAKY = """
import os, signal, subprocess, sys, tempfile, threading, time
from pathlib import Path
import pytest

OUT = Path(os.environ["HARNESS_OUT"])

def note(line):
    with open(OUT, "a") as f:
        f.write(line + "\\n")

@pytest.fixture(scope="session")
def forgotten_server():
    proc = subprocess.Popen(["sleep", "301"])
    note(f"session {proc.pid}")
    yield proc  # never stopped

def test_leaves_a_process():
    proc = subprocess.Popen(["sleep", "302"])
    note(f"test {proc.pid}")

def test_leaves_a_temp_directory():
    note(f"tmp {tempfile.mkdtemp(prefix='forgotten-')}")

def test_leaves_a_thread():
    from conftest import session_over
    threading.Thread(target=session_over.wait, args=(60,), name="forgotten-waiter").start()

def test_stops_what_it_starts(forgotten_server):
    proc = subprocess.Popen(["sleep", "303"])
    proc.terminate()
    proc.wait()

def test_children_start_with_default_signal_handling():
    status = subprocess.run(["grep", "SigIgn", "/proc/self/status"], capture_output=True, text=True).stdout
    ignored = int(status.split()[1], 16)
    assert not ignored & (1 << (signal.SIGINT - 1)), "SIGINT is ignored in the child"
    assert not ignored & (1 << (signal.SIGTERM - 1)), "SIGTERM is ignored in the child"
"""

INTERRUPTED = """
import os, subprocess, tempfile, time
from pathlib import Path
import pytest

OUT = Path(os.environ["HARNESS_OUT"])

@pytest.fixture
def helper():
    proc = subprocess.Popen(["sleep", "304"])
    scratch = tempfile.mkdtemp(prefix="scratch-")
    Path(OUT).write_text(f"{proc.pid} {scratch}\\n")
    yield proc
    proc.kill()
    proc.wait()
    os.rmdir(scratch)

def test_takes_long(helper):
    time.sleep(300)
"""


def _session(tmp_path: Path, tests: str, *, ignore_sigint: bool = False) -> tuple[subprocess.Popen[str], Path]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(tests)
    out = tmp_path / "out.txt"
    env = {**os.environ, "HARNESS_OUT": str(out), "PYTHONDONTWRITEBYTECODE": "1", "BLOCKPACT_TEST_GRACE_SECONDS": "1"}

    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell running a command in the background does

    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:asyncio", "-q", str(tmp_path)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=ignore if ignore_sigint else None)
    return proc, out


def _stop(proc: subprocess.Popen[str]) -> str:
    try:
        output, _ = proc.communicate(timeout=scaled(120))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return output


def test_leftovers_fail_the_session_are_removed_and_named_with_their_test(tmp_path: Path) -> None:
    proc, out = _session(tmp_path, LEAKY, ignore_sigint=True)
    output = _stop(proc)
    notes = dict(line.split(" ", 1) for line in out.read_text().splitlines())
    assert proc.returncode == 1, output
    assert "5 passed" in output, output
    report = output[output.index("left behind at the end of the session"):]
    assert re.search(r"sleep 302 \(started during test_inner.py::test_leaves_a_process\)", report), report
    assert re.search(r"forgotten-\w+ \(started during test_inner.py::test_leaves_a_temp_directory\)", report), report
    assert re.search(r"sleep 301 \(started by a fixture of wider scope", report), report
    assert "thread forgotten-waiter: it keeps this process from exiting" in report, report
    assert "sleep 303" not in report
    for key in ("test", "session"):
        assert not procfs.wait_gone({int(notes[key])}, scaled(5)), f"the {key} leftover still runs"
    assert not Path(notes["tmp"]).exists()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_mid_test_tears_down_and_leaves_nothing(tmp_path: Path, stop: signal.Signals) -> None:
    proc, out = _session(tmp_path, INTERRUPTED)
    deadline = time.monotonic() + scaled(60)
    while not (out.exists() and out.read_text().endswith("\n")):
        assert proc.poll() is None and time.monotonic() < deadline, _stop(proc)
        time.sleep(0.05)
    pid, scratch = out.read_text().split()
    proc.send_signal(stop)
    output = _stop(proc)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "left behind" not in output, output
    assert not procfs.wait_gone({int(pid)}, scaled(5)), "the fixture's process outlived the interrupted run"
    assert not Path(scratch).exists()
