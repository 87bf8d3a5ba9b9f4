"""The Node runtime: one JSPyBridge process per Python process, started on first use.

Packages are required by absolute path from the project's `node_modules` (never through
JSPyBridge's own auto-install), and the Node process ends with Python: normal exit, exception,
SIGINT, SIGTERM, and — through `js/runtime/guard.js` — even when Python is killed outright.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import threading
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from blockpact.bridge.jspybridge import import_bridge
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


class NodeRuntime:
    """Handle to the running JSPyBridge process."""

    def __init__(self) -> None:
        check_node()
        self._js = import_bridge()  # starts the Node process, its output quiet and plain (jspybridge.py)
        self.pid: int = int(self.require(JS_DIR / "runtime" / "guard.js").install())
        self._closed = False
        atexit.register(self.close)
        _install_signal_handlers()

    def require(self, module: str | Path) -> Any:
        """A Node built-in (`node:net`), a package from the project's node_modules, or a JS file by absolute path."""
        if str(module).startswith("node:"):
            return self._js.require(str(module))
        path = Path(module)
        if not path.is_absolute():
            path = NODE_MODULES / str(module)
            if not path.exists():
                raise UserError(f"Node package {module!r} is not installed in {NODE_MODULES}: run `npm ci` in {PROJECT_ROOT}")
        return self._js.require(str(path))

    @property
    def alive(self) -> bool:
        return not self._closed and self._js.connection.is_alive()

    def close(self) -> None:
        """Stop the Node process (idempotent)."""
        if self._closed:
            return
        self._closed = True
        proc = getattr(self._js.connection, "proc", None)
        self._js.terminate()
        if proc is not None:
            try:
                proc.terminate()
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
            except ProcessLookupError:
                pass


_runtime: NodeRuntime | None = None
_lock = threading.Lock()


def runtime() -> NodeRuntime:
    """The process-wide runtime, started on first call."""
    global _runtime
    with _lock:
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
