"""The Node runtime: one JSPyBridge process per Python process, started on first use.

Packages are required by absolute path from the project's `node_modules` (never through
JSPyBridge's own auto-install), and the Node process ends with Python: normal exit, exception,
SIGINT, SIGTERM, and — through `js/runtime/guard.js` — even when Python is killed outright.

A runtime that dies (or stops answering) is replaced: `runtime()` starts a new Node process when the
current one is gone, so the next program runs on a fresh one. Whoever finds the bridge broken raises
`BridgeBroken`; nothing waits on a dead runtime.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from blockpact.bridge.jspybridge import import_bridge, node_line, post
from blockpact.bridge.machine_load import node_held
from blockpact.config import NODE_MODULES, PROJECT_ROOT
from blockpact.errors import UserError

JS_DIR = Path(__file__).parent / "js"
MIN_NODE_MAJOR = 20
REQUIRED_PACKAGES = ("mineflayer", "ses", "minecraft-data", "flying-squid")


def node_binary() -> str:
    return os.environ.get("NODE_BIN", "node")


@cache
def check_node() -> str:
    """The Node version, or a `UserError` saying which command fixes the setup."""
    exe = shutil.which(node_binary())
    if exe is None:
        raise UserError(f"Node.js >= {MIN_NODE_MAJOR} is needed but `{node_binary()}` is not on PATH: apt-get install nodejs npm (or set NODE_BIN)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    major = int(version.lstrip("v").split(".")[0] or 0)
    if major < MIN_NODE_MAJOR:
        raise UserError(f"Node.js >= {MIN_NODE_MAJOR} is needed, found {version} at {exe}")
    missing = [p for p in REQUIRED_PACKAGES if not (NODE_MODULES / p / "package.json").exists()]
    if missing:
        raise UserError(f"Node packages missing from {NODE_MODULES} ({', '.join(missing)}): run `npm ci` in {PROJECT_ROOT} (or `make setup`)")
    return version


class BridgeBroken(RuntimeError):
    """The Node runtime died or the Python-Node bridge stopped answering: not the program's fault."""


NODE_TERM_GRACE_SECONDS = 10.0  # a SIGTERM sent to Node waits this long for us to close it, then ends it (guard.js)
STOPPED_KILL_SECONDS = 2.0  # a Node process stopped this long while a call waits on it is killed (NodeRuntime.call)
NODE_LINES_PER_MINUTE = 50  # Node's own diagnostics on stderr (not the bridge's protocol) beyond this are dropped


class _NodeDiagnostics:
    """What Node writes to its stderr besides the bridge protocol (e.g. V8's "Exception in
    PromiseRejectCallback" when a program recurses without end): JSPyBridge prints it on stdout, where it
    would corrupt `--json` output; it goes to stderr instead, at most NODE_LINES_PER_MINUTE lines a minute."""

    def __init__(self) -> None:
        self.window = 0.0
        self.lines = 0

    def __call__(self, *parts: Any, **_: Any) -> None:
        text = " ".join(str(p) for p in parts).rstrip()
        if not text.replace("[JSE]", "").strip():
            return  # the blank lines between the bridge's messages
        now = time.monotonic()
        if now - self.window > 60:
            self.window, self.lines = now, 0
        self.lines += 1
        if self.lines <= NODE_LINES_PER_MINUTE:
            node_line(text)
        elif self.lines == NODE_LINES_PER_MINUTE + 1:
            node_line("(more Node diagnostics this minute dropped)")


def _restart_bridge(javascript: Any) -> None:
    """JSPyBridge starts its Node process once, at import; after that process is gone, start a new one."""
    from javascript import config, connection

    connection.print = _NodeDiagnostics()  # the module's own `print` of non-protocol lines

    if config.event_loop is not None and connection.is_alive():
        return
    _stop_bridge(javascript)
    caller_force_color = os.environ.get("FORCE_COLOR")
    os.environ["FORCE_COLOR"] = "0"  # for the new Node child, as import_bridge does for the first
    try:
        javascript.init()
    finally:
        if caller_force_color is None:
            os.environ.pop("FORCE_COLOR", None)
        else:
            os.environ["FORCE_COLOR"] = caller_force_color


def _stop_bridge(javascript: Any) -> None:
    from javascript import config

    old = config.event_loop
    javascript.terminate()
    if old is not None:  # let the old loop's threads end instead of waiting forever
        # JSPyBridge's own exit hook sleeps 0.4-0.8 s "for final IO" on a bridge already stopped here: it
        # made every process that used Node (each sweep worker, each CLI run) take that much longer to end.
        atexit.unregister(old.on_exit)
        old.active = False
        old.callbackExecutor.running = False
        old.queue.put("exit")
    config.event_loop = None


class NodeRuntime:
    """Handle to the running JSPyBridge process."""

    def __init__(self) -> None:
        check_node()
        javascript = import_bridge()  # starts the Node process, its output quiet and plain (jspybridge.py)
        _restart_bridge(javascript)  # a new Node process when an earlier one died
        self._js = javascript
        self._proc = javascript.connection.proc
        self._required: dict[str, Any] = {}  # module -> its exports, for this process (require)
        guard = self.require(JS_DIR / "runtime" / "guard.js")
        self.pid: int = int(guard.install({"termGraceMs": int(NODE_TERM_GRACE_SECONDS * 1000)}))
        self._closed = False
        self._waiting = 0  # calls waiting on Node now (from any thread)
        self._waiting_lock = threading.Lock()
        self._stopped_kill = False  # killed by the guard below for being stopped while calls waited
        if not node_held():  # BLOCKPACT_NODE_DEBUG: a debugger may stop it (machine_load.py)
            threading.Thread(target=self._kill_if_stopped_while_called, name="node-stopped-guard", daemon=True).start()
        atexit.register(self.close)
        _install_signal_handlers()

    def _kill_if_stopped_while_called(self) -> None:
        """Kill the process once it has been stopped (SIGSTOP, a debugger) for STOPPED_KILL_SECONDS while a call
        waits on it: the waiting thread is often the event loop's (a world master's drainJournal), where the
        watchdog that would kill a stopped runtime also runs, so nothing else could end the wait before its bound
        (~30 s on a loaded machine; issue 18 asks 10). The killed process's end then wakes the call
        (jspybridge._wake_waiting_calls), which fails as BridgeBroken."""
        since: float | None = None
        ran = -1  # Node's CPU time when it was first seen stopped: a process that runs in between (cpulimit stops
        # and resumes it in turn) is throttled, not stopped, and its time starts again
        while not self._closed and self._proc.poll() is None:
            time.sleep(STOPPED_KILL_SECONDS / 4)
            fields = self._stat() if self._waiting else []
            if not (fields and fields[0] in (b"T", b"t")):
                since = None
            elif since is None or _cpu_ticks(fields) != ran:
                since, ran = time.monotonic(), _cpu_ticks(fields)
            elif time.monotonic() - since >= STOPPED_KILL_SECONDS:
                self._stopped_kill = True
                self._proc.kill()
                return


    def require(self, module: str | Path) -> Any:
        """A Node built-in (`node:net`), a package from the project's node_modules, or a JS file by absolute path.

        Kept per runtime: Node caches modules itself, but each bridge require is still a round trip (a crowd of
        bodies asking for the same modules spent seconds on them)."""
        key = str(module)
        cached = self._required.get(key)
        if cached is not None:
            return cached
        if key.startswith("node:"):
            found = self._js.require(key)
        else:
            path = Path(module)
            if not path.is_absolute():
                path = NODE_MODULES / key
                if not path.exists():
                    raise UserError(f"Node package {module!r} is not installed in {NODE_MODULES}: run `npm ci` in {PROJECT_ROOT}")
            found = self._js.require(str(path))
        self._required[key] = found
        return found

    @property
    def alive(self) -> bool:
        from javascript import config

        return not self._closed and config.event_loop is not None and self._js.connection.proc is self._proc and self._proc.poll() is None

    @property
    def stopped(self) -> bool:
        """Whether the process is stopped (SIGSTOP, a debugger): alive, and certain to answer nothing until resumed.
        False where /proc cannot say."""
        fields = self._stat()
        return bool(fields) and fields[0] in (b"T", b"t")

    def _stat(self) -> list[bytes]:
        """The fields of /proc/PID/stat after the command name (state first; empty where /proc cannot say). Read
        before every call: os-level, ~20 us less than open()."""
        try:
            fd = os.open(f"/proc/{self._proc.pid}/stat", os.O_RDONLY)
            try:
                return os.read(fd, 1024).rpartition(b")")[2].split()
            finally:
                os.close(fd)
        except OSError:
            return []

    @property
    def end(self) -> str:
        """How the process ended, for the message of whoever finds it gone: its exit code or signal (Node prints
        why on its stderr, copied to ours), or that the bridge to it was closed while it ran."""
        code = self._proc.poll()
        if code is None:
            return "its process still runs; the bridge to it was stopped"
        if self._stopped_kill:
            return f"it was stopped while a call waited, and killed after {STOPPED_KILL_SECONDS:g} s"
        if code >= 0:
            return f"exited with code {code}"
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"

    def call(self, what: str, fn: Any, *args: Any) -> Any:
        """`fn(*args)`, a call into Node; any failure of the bridge itself becomes `BridgeBroken`."""
        if not self.alive:
            raise BridgeBroken(f"the Node runtime (pid {self.pid}) is gone ({what}; {self.end})")
        if self.stopped and not node_held():  # it would answer nothing, and the caller would block for the call's whole bound
            raise BridgeBroken(f"the Node runtime (pid {self.pid}) is stopped ({what})")
        with self._waiting_lock:
            self._waiting += 1
        try:
            return fn(*args)
        except Exception as exc:  # JSPyBridge raises bare Exceptions for a crashed or timed-out bridge
            if not self.alive:  # woken without an answer (jspybridge._wake_waiting_calls), or timed out meanwhile
                raise BridgeBroken(f"the Node runtime (pid {self.pid}) is gone ({what}; {self.end})") from exc
            raise BridgeBroken(f"the Node bridge failed during {what} (Node still running): {type(exc).__name__}: {exc}") from exc
        finally:
            with self._waiting_lock:
                self._waiting -= 1

    def post(self, what: str, method: Any, *args: Any) -> None:
        """`method(*args)` (JSON arguments) sent to Node without waiting for its answer (jspybridge.post), for a
        caller that needs none; failures as for `call`."""
        self.call(what, post, method, *args)

    def kill(self) -> None:
        """Kill a Node process that stopped answering at once (SIGKILL), then close as usual."""
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._proc.kill()
            except ProcessLookupError:
                pass
        self.close()

    def close(self) -> None:
        """Stop the Node process (idempotent)."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        proc = self._proc
        if getattr(self._js.connection, "proc", None) is proc:  # not a newer runtime's process
            _stop_bridge(self._js)
        if proc is not None:
            try:
                proc.stdin.close()  # guard.js ends Node on its stdin's end (it leaves group signals to us)
                proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                try:
                    proc.kill()
                    proc.wait(timeout=5)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass


def _cpu_ticks(stat: list[bytes]) -> int:
    """User + system CPU time in clock ticks from NodeRuntime._stat's fields (14 and 15 of stat(5)); -1 if absent."""
    try:
        return int(stat[11]) + int(stat[12])
    except (IndexError, ValueError):
        return -1


_runtime: NodeRuntime | None = None
_lock = threading.Lock()


def runtime() -> NodeRuntime:
    """The process-wide runtime, started on first call."""
    global _runtime
    with _lock:
        if _runtime is not None and not _runtime.alive:
            _runtime.close()  # died or was given up on: a fresh one for whatever comes next
        if _runtime is None or _runtime._closed:
            _runtime = NodeRuntime()
        return _runtime


def _install_signal_handlers() -> None:
    """SIGTERM becomes SystemExit so atexit handlers (and the runtime's close) run, as on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)
