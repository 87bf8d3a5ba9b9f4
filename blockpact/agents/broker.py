"""A local MQTT broker for the message pool: mosquitto if installed (Debian: apt-get install mosquitto), else amqtt.

The broker is a child process that never outlives Python: it is stopped on exit and on errors
(`stop`, context manager, atexit), and the kernel sends it SIGTERM if Python dies outright
(prctl PR_SET_PDEATHSIG, set between fork and exec). PDEATHSIG follows the thread that started the
child, so start brokers from a thread that lives as long as they should (normally the main thread).
"""

from __future__ import annotations

import atexit
import base64
import ctypes
import getpass
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from blockpact.agents.pool.settings import BrokerSettings, pool_settings
from blockpact.agents.pool.url import BrokerURL
from blockpact.errors import UserError

MOSQUITTO_PATHS = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
KINDS = ("auto", "mosquitto", "amqtt")
PR_SET_PDEATHSIG = 1
PBKDF2_ITERATIONS = 101  # what mosquitto_passwd uses


class BrokerError(UserError):
    """The broker could not be started (or died); the message includes the end of its log."""


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in MOSQUITTO_PATHS if os.access(p, os.X_OK)), None)


def amqtt_available() -> bool:
    try:
        import amqtt.broker  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_kind(kind: str) -> str:
    """'mosquitto' or 'amqtt' for `kind` (which may be 'auto'), or a BrokerError saying how to get one."""
    if kind not in KINDS:
        raise BrokerError(f"unknown broker kind {kind!r}: use one of {', '.join(KINDS)}")
    if kind in ("auto", "mosquitto") and mosquitto_binary():
        return "mosquitto"
    if kind == "mosquitto":
        raise BrokerError("mosquitto is not installed: apt-get install mosquitto (or use --kind amqtt)")
    if amqtt_available():
        return "amqtt"
    raise BrokerError("no MQTT broker available: apt-get install mosquitto, or pip install amqtt")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the brokers do: TIME_WAIT is no obstacle
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


# Loaded in the parent: the child between fork and exec should only make the one system call.
_LIBC = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    """Runs in the child between fork and exec: SIGTERM when the parent goes, even by SIGKILL."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.username or any(c in self.username for c in ":\n\r"):
            raise BrokerError(f"broker username {self.username!r} must be non-empty, without ':' or line breaks")
        if not self.password or any(c in self.password for c in "\n\r"):
            raise BrokerError("broker password must be non-empty, without line breaks")


class LocalBroker:
    """One broker process on host:port. `restart()` keeps the port and the persistence directory."""

    def __init__(
        self,
        host: str | None = None,
        port: int | None = None,
        *,
        kind: str | None = None,
        data_dir: Path | None = None,
        credentials: Credentials | None = None,
        settings: BrokerSettings | None = None,
    ) -> None:
        self.settings = settings or pool_settings().broker
        self.host = host or self.settings.host
        self.port = port if port is not None else free_port(self.host)
        self.kind = resolve_kind(kind or self.settings.kind)
        if credentials is not None and self.kind != "mosquitto":
            raise BrokerError("a username and password are supported with mosquitto only")
        self.credentials = credentials
        self._tempdir: tempfile.TemporaryDirectory[str] | None = None
        if data_dir is None:
            self._tempdir = tempfile.TemporaryDirectory(prefix="blockpact-broker-")
            data_dir = Path(self._tempdir.name)
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.data_dir / f"{self.kind}.log"
        self._process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    @property
    def url(self) -> str:
        """The URL clients use; the password is never in it."""
        user = self.credentials.username if self.credentials else None
        return str(BrokerURL(self.host, self.port, None, user, None))

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> LocalBroker:
        if self.running:
            return self
        if not port_free(self.host, self.port):
            raise BrokerError(f"cannot start {self.kind}: {self.host}:{self.port} is already in use (pick another --port)")
        command = self._mosquitto_command() if self.kind == "mosquitto" else self._amqtt_command()
        with open(self.log_path, "ab") as log_file:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
                start_new_session=True,  # Ctrl-C reaches Python, which stops the broker in order
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the broker (SIGTERM, so mosquitto saves its persistence file; SIGKILL if it hangs). Idempotent."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=self.settings.stop_timeout_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def wait(self) -> int:
        """Block until the broker process ends; its exit code."""
        if self._process is None:
            raise BrokerError("the broker is not running")
        return self._process.wait()

    def restart(self) -> LocalBroker:
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stop and remove the temporary data directory, if this broker made one."""
        self.stop()
        if self._tempdir is not None:
            self._tempdir.cleanup()
            self._tempdir = None
        atexit.unregister(self.close)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_seconds
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise BrokerError(
                    f"{self.kind} exited with code {self._process.returncode} on {self.host}:{self.port}:\n{self.log_tail()}"
                )
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    if self._process.poll() is None:
                        return
            except OSError:
                time.sleep(0.05)
        raise BrokerError(
            f"{self.kind} did not accept connections on {self.host}:{self.port} within "
            f"{self.settings.start_timeout_seconds:g} s:\n{self.log_tail()}"
        )

    def _mosquitto_command(self) -> list[str]:
        binary = mosquitto_binary()
        assert binary is not None
        lines = [
            f"listener {self.port} {self.host}",
            "persistence true",
            f"persistence_location {self.data_dir}/",
            f"max_queued_messages {self.settings.max_queued_messages}",
            "set_tcp_nodelay true",  # small packets, request-response: Nagle would add ~40 ms waits
            "log_dest stdout",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            # Run as whoever runs blockpact: as root mosquitto would switch to a user who cannot write data_dir.
            f"user {getpass.getuser()}",
        ]
        if self.credentials is None:
            lines.append("allow_anonymous true")
        else:
            lines += ["allow_anonymous false", f"password_file {self._password_file()}"]
        config = self.data_dir / "mosquitto.conf"
        config.write_text("\n".join(lines) + "\n")
        return [binary, "-c", str(config)]

    def _password_file(self) -> Path:
        """mosquitto's password file, hashed here (PBKDF2-SHA512, its `$7$` format) so the password never
        appears on a command line."""
        assert self.credentials is not None
        salt = os.urandom(12)
        digest = hashlib.pbkdf2_hmac("sha512", self.credentials.password.encode(), salt, PBKDF2_ITERATIONS)
        entry = f"{self.credentials.username}:$7${PBKDF2_ITERATIONS}${b64(salt)}${b64(digest)}\n"
        path = self.data_dir / "passwords"
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(entry)
        return path

    def _amqtt_command(self) -> list[str]:
        return [sys.executable, "-m", "blockpact.agents.pool.amqtt_server", "--host", self.host, "--port", str(self.port)]
