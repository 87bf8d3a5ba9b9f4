"""Nothing a test starts outlives it, and every process starts with default signal handling.

- Every process the session starts carries `BLOCKPACT_TEST_SESSION=<pytest pid>-<random>` in its
  environment (inherited), so the session finds its own processes, also orphaned ones, and never
  another checkout's on the same machine.
- Temporary files go to a directory of this pytest session (`TMPDIR`), so a temp directory left behind is
  seen without looking at anybody else's; pytest's own `tmp_path` stays where pytest keeps it.
- After each test, the processes and temp entries it started that still exist are noted with the
  test's name (not removed: a module-scoped resource may be started lazily by a test's fixture).
- At the end of the session (after every fixture is torn down and the Node runtime closed): any
  process of the session still running, or anything left in its temp directory, is removed, listed
  with the test that started it, and fails the run.
- A shell that ignores SIGINT (`nohup`, `&` in a non-interactive shell) would pass that on to every
  child, and Ctrl-C tests then fail: the session resets SIGINT to Python's default handler, and makes
  SIGTERM interrupt the run like Ctrl-C, so fixtures still tear down and children start with defaults.
- Leftovers of an earlier pytest session of the same checkout that was killed outright (its pytest pid gone)
  are removed at start; other checkouts' sessions are never touched.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType

import pytest

from harness import procfs

MARK = "BLOCKPACT_TEST_SESSION"
CHECKOUT = hashlib.sha1(str(Path(__file__).resolve().parents[2]).encode()).hexdigest()[:8]
# Short: programs put Unix sockets under TMPDIR (Ray: .../ray/session_<time>_<pid>/sockets/plasma_store), and a
# socket path may not exceed 107 bytes.
TMP_PREFIX = "bpt-"
# A process told to stop may still be tearing down (Node under load: seconds); only leftovers wait this long.
GRACE_SECONDS = float(os.environ.get("BLOCKPACT_TEST_GRACE_SECONDS", "10"))


class Session:
    """This session's mark, its temp directory and what it found left behind."""

    def __init__(self) -> None:
        self.token = f"{os.getpid()}-{CHECKOUT}-{secrets.token_hex(4)}"
        self.root = Path(tempfile.gettempdir())
        self.tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-{CHECKOUT}-", dir=self.root))
        self.leftovers: list[str] = []
        self.origins: dict[str, str] = {}  # "pid 123" / a temp entry's name -> the test during which it appeared


_session: Session | None = None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _default_signals() -> None:
    """Children inherit an ignored signal but not a handler: give both signals tests send a handler."""
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _interrupt)


def _dead_session(token: str | None) -> bool:
    """A session of this checkout (`<pid>-<checkout>-...`) whose pytest is gone."""
    owner, _, rest = (token or "").partition("-")
    return owner.isdigit() and rest.startswith(f"{CHECKOUT}-") and not procfs.running(int(owner))


def _remove_stale(root: Path) -> list[str]:
    """Processes and temp directories of earlier pytest sessions of this checkout whose pytest is gone."""
    removed = []
    orphans = {pid for pid in procfs.pids() if _dead_session(procfs.environ_value(pid, MARK))}
    removed += [f"process {pid} ({procfs.command_line(pid)})" for pid in orphans]
    procfs.kill(orphans)
    for path in root.glob(f"{TMP_PREFIX}*"):
        if _dead_session(path.name[len(TMP_PREFIX):]):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(f"temp directory {path}")
    return removed


def pytest_configure(config: pytest.Config) -> None:
    global _session
    if not sys.platform.startswith("linux") or _session is not None:
        return
    _default_signals()
    stale = _remove_stale(Path(tempfile.gettempdir()))
    if stale:
        print(f"removed what an earlier, killed test session left: {'; '.join(stale)}", file=sys.stderr)
    _session = Session()
    os.environ[MARK] = _session.token
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(_session.root))  # tmp_path where pytest keeps it
    os.environ["TMPDIR"] = str(_session.tmp)
    tempfile.tempdir = str(_session.tmp)


def _runtime_pid() -> int | None:
    """The Node runtime (JSPyBridge) lives for the whole session once a test starts it."""
    connection = sys.modules.get("javascript.connection")
    proc = getattr(connection, "proc", None)
    return proc.pid if proc is not None else None


@pytest.fixture(autouse=True)
def _note_what_each_test_starts(request: pytest.FixtureRequest):
    """Which test started each process and temp entry still there after it (for the session-end report)."""
    if _session is None:
        yield
        return
    # Pids with their start times: with pid_max 32768 a busy machine wraps its pids, and a pid seen before the
    # test may belong to a new process by its end (that process was then not named).
    before, tmp_before = procfs.processes(), set(os.listdir(_session.tmp))
    yield
    new = {pid for pid, started in procfs.processes().items() if before.get(pid) != started}
    started = procfs.marked(new, MARK, _session.token) - {_runtime_pid(), _resource_tracker_pid()}
    for pid in started:
        _session.origins.setdefault(f"pid {pid}", request.node.nodeid)
    for name in set(os.listdir(_session.tmp)) - tmp_before:
        _session.origins.setdefault(name, request.node.nodeid)


def _resource_tracker_pid() -> int | None:
    """multiprocessing's resource tracker (started by the first spawn-context semaphore, e.g. a sweep's
    per-endpoint gate) serves this process until it exits: not a leak."""
    tracker = sys.modules.get("multiprocessing.resource_tracker")
    return getattr(getattr(tracker, "_resource_tracker", None), "_pid", None)


def _close_node_runtime() -> None:
    runtime = sys.modules.get("blockpact.bridge.runtime")
    if runtime is not None and getattr(runtime, "_runtime", None) is not None:
        runtime._runtime.close()


def _lingering_threads(within: float) -> list[str]:
    """Non-daemon threads still running after `within` seconds: Python waits for them at exit, so a test
    that leaves one (e.g. a call into a runtime that was replaced) silently holds the whole run."""
    deadline = time.monotonic() + within
    while True:
        alive = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
        if not alive or time.monotonic() > deadline:
            return [t.name for t in alive]
        time.sleep(0.1)


def _origin(key: str) -> str:
    test = _session.origins.get(key) if _session is not None else None
    return f" (started during {test})" if test else " (started by a fixture of wider scope than a test, or outside the tests)"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After the runner tore every fixture down (also after Ctrl-C): the session must have left nothing."""
    if _session is None:
        return
    _close_node_runtime()
    mine = procfs.marked(procfs.pids() - {os.getpid(), _resource_tracker_pid()}, MARK, _session.token)
    left = procfs.wait_gone(mine, GRACE_SECONDS)
    _session.leftovers += [f"process {pid}: {procfs.command_line(pid)}{_origin(f'pid {pid}')}" for pid in sorted(left)]
    procfs.kill(left)
    _session.leftovers += [f"temp entry {path}{_origin(path.name)}" for path in sorted(_session.tmp.iterdir())]
    _session.leftovers += [f"thread {name}: it keeps this process from exiting" for name in _lingering_threads(GRACE_SECONDS)]
    shutil.rmtree(_session.tmp, ignore_errors=True)
    if _session.leftovers and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _session is not None and _session.leftovers:
        terminalreporter.section("left behind at the end of the session (removed; the run fails)", sep="=", red=True)
        for line in _session.leftovers:
            terminalreporter.line(line, red=True)
