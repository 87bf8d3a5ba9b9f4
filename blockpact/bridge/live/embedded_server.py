"""Start and stop the embedded flying-squid server (`js/server/server.js`) and talk to its control channel.

The server is a child process of Python, not of the JSPyBridge runtime: it must be started before bots
connect, survive runtime restarts in tests, and die with Python. It stops when its stdin closes, so even
a Python process killed outright takes it down. Requests are JSON lines on stdin, answers JSON lines on
stdout (see `js/server/control.js`).
"""

from __future__ import annotations

import collections
import json
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.bridge.live.settings import live_settings
from blockpact.bridge.machine_load import stretched
from blockpact.bridge.runtime import JS_DIR, check_node, node_binary
from blockpact.config import PROJECT_ROOT
from blockpact.settings import default_mc_version
from blockpact.errors import UserError

SERVER_JS = JS_DIR / "server" / "server.js"
STDERR_LINES_KEPT = 200


class ServerError(UserError):
    """The server failed to start, died, or refused a request."""


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    reply: dict[str, Any] | None = None


class EmbeddedServer:
    """One flying-squid server on 127.0.0.1; `start()` returns once it accepts connections."""

    def __init__(self, *, port: int = 0, host: str = "127.0.0.1", version: str | None = None,
                 ops: tuple[str, ...] = (), everybody_op: bool = False, seed: int = 0,
                 world_dir: Path | None = None, verbose: bool = False, entity_range: int | None = None) -> None:
        self.requested_port = port
        self.host = host
        self.version = version or default_mc_version()
        self.ops = ops
        self.everybody_op = everybody_op
        self.seed = seed
        self.world_dir = world_dir
        self.verbose = verbose
        self.entity_range = entity_range  # None: live.toml's [server] entity_range
        self.port: int | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._ready_info: dict[str, Any] = {}
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._readers: list[threading.Thread] = []
        self.start_failure: str | None = None  # why the last start() failed; None once one succeeds

    def _reset(self) -> None:
        """Forget a process that has exited, before starting a new one."""
        self.port = None
        self._proc = None
        with self._lock:
            self._pending = {}
        self._ready = threading.Event()
        self._ready_info = {}

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def command_line(self) -> list[str]:
        settings = live_settings().server
        args = [node_binary(), str(SERVER_JS), "--port", str(self.requested_port), "--host", self.host,
                "--version", self.version, "--seed", str(self.seed), "--view-distance", str(settings.view_distance),
                "--max-entities", str(settings.max_entities),
                "--entity-range", str(settings.entity_range if self.entity_range is None else self.entity_range)]
        for op in self.ops:
            args += ["--op", op]
        if self.everybody_op:
            args.append("--everybody-op")
        if self.world_dir is not None:
            args += ["--world-dir", str(self.world_dir)]
        if self.verbose:
            args.append("--verbose")
        return args

    @property
    def exited(self) -> int | None:
        """The exit code of a server that was started and has since died (or was stopped); None otherwise."""
        return None if self._proc is None else self._proc.poll()

    def start(self) -> EmbeddedServer:
        """Start the server; a server whose process has exited (crashed, killed, stopped) starts afresh."""
        if self._proc is not None:
            if self._proc.poll() is None:
                raise ServerError("the server is already running")
            self.stop()  # reap the old process and its readers
            self._reset()
        check_node()
        self._proc = subprocess.Popen(self.command_line(), cwd=PROJECT_ROOT, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self._readers = [threading.Thread(target=self._read_stdout, name="squid-stdout", daemon=True),
                         threading.Thread(target=self._read_stderr, name="squid-stderr", daemon=True)]
        for reader in self._readers:
            reader.start()
        timeout = stretched(live_settings().server.start_timeout)  # a busy machine starts it slower
        if not self._ready.wait(timeout) or not self._ready_info:
            # ready without its line: stdout closed, the process is exiting
            problem = "exited" if self._ready.is_set() else f"did not accept connections within {timeout:g} s"
            self.stop()
            self.start_failure = f"the embedded Minecraft server {problem}: {self.stderr_tail() or 'no output'}"
            raise ServerError(self.start_failure)
        self.start_failure = None
        self.port = int(self._ready_info["port"])
        return self

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                self._stderr.append(f"[stdout] {line.rstrip()}")
                continue
            if message.get("ready"):
                self._ready_info = message
                self._ready.set()
                continue
            with self._lock:
                pending = self._pending.pop(message.get("id"), None)
            if pending is not None:
                pending.reply = message
                pending.done.set()
        # The server is gone: wake everyone waiting.
        self._ready.set()
        with self._lock:
            waiting, self._pending = list(self._pending.values()), {}
        for pending in waiting:
            pending.done.set()

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line.rstrip())

    def stderr_tail(self, lines: int = 20) -> str:
        return "\n".join(list(self._stderr)[-lines:])

    def request(self, op: str, timeout: float | None = None, **fields: Any) -> Any:
        """Send one control request; returns its result or raises `ServerError` with the server's message."""
        if not self.running or self._proc is None or self._proc.stdin is None:
            raise ServerError(f"the embedded server is not running (control request {op!r})")
        pending = _Pending()
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            self._pending[request_id] = pending
        try:
            self._proc.stdin.write(json.dumps({"id": request_id, "op": op, **fields}) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ServerError(f"the embedded server closed its control channel: {exc}") from None
        limit = live_settings().server.request_timeout if timeout is None else timeout
        if not pending.done.wait(limit):
            with self._lock:
                self._pending.pop(request_id, None)
            raise ServerError(f"control request {op!r} got no answer within {limit:g} s")
        reply = pending.reply
        if reply is None:
            try:  # its stdout has closed: the process is gone or going
                code = self._proc.wait(timeout=2) if self._proc is not None else None
            except subprocess.TimeoutExpired:
                code = None
            ended = "" if code is None else f" ({'killed by signal ' + str(-code) if code < 0 else f'exit code {code}'})"
            raise ServerError(f"the embedded server exited{ended} during control request {op!r}: "
                              f"{self.stderr_tail() or 'it wrote nothing on stderr'}")
        if not reply.get("ok"):
            raise ServerError(f"{op}: {reply.get('error')}")
        return reply.get("result")

    def command(self, text: str) -> list[str]:
        """Run an operator command (`fill ...`, `/give ...`); returns the server's answer lines."""
        return list(self.request("command", command=text) or [])

    def fit_view(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        """Fit the view distance of players who join from now on to a world's map box: the smallest that shows
        all of it from any of its cells (at least 2, at most live.toml's view_distance). Fewer chunks make a
        join cheaper. Returns the distance."""
        return int(self.request("viewDistance", **{"from": list(lo), "to": list(hi)}))

    def stop(self) -> int | None:
        """Close the control channel (the server stops itself); kill it if it does not go in time. Idempotent."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=live_settings().server.stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for reader in self._readers:
            reader.join(timeout=2)  # they end at EOF, now that the process is gone
        return proc.returncode

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
