"""Processes as /proc shows them: which carry a test session's mark, which are still running."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")


def pids() -> set[int]:
    return {int(name) for name in os.listdir(PROC) if name.isdigit()}


def processes() -> dict[int, int | None]:
    """Each running pid with its start time (clock ticks since boot; None if it ended while being read): a pid
    and its start time name one process, a pid alone may be reused."""
    return {pid: _start_ticks(pid) for pid in pids()}


def _stat(pid: int) -> bytes | None:
    """/proc/PID/stat, or None if the process is gone. Read with os.open/os.read: every test reads it for every
    process on the machine twice (cleanup.py), and Path.read_text took 4x as long (~4.7 ms a snapshot of 80)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            return os.read(fd, 4096)
        finally:
            os.close(fd)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None


def _start_ticks(pid: int) -> int | None:
    stat = _stat(pid)
    return None if stat is None else int(stat.rsplit(b")", 1)[1].split()[19])


def running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has exited; it only waits for its parent to reap it)."""
    stat = _stat(pid)
    return stat is not None and stat.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")


def environ_value(pid: int, name: str) -> str | None:
    """`name` in the environment `pid` was started with, or None (gone, unreadable, not set)."""
    try:
        raw = (PROC / str(pid) / "environ").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    prefix = name.encode() + b"="
    for entry in raw.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode(errors="replace")
    return None


def command_line(pid: int) -> str:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()[:200] or "?"


def marked(candidates: set[int], name: str, value: str) -> set[int]:
    """The running processes among `candidates` started with `name=value` in their environment."""
    return {pid for pid in candidates if environ_value(pid, name) == value and running(pid)}


def wait_gone(procs: set[int], within: float) -> set[int]:
    """Those of `procs` still running after waiting up to `within` seconds for them to end."""
    deadline = time.monotonic() + within
    left = {p for p in procs if running(p)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p for p in left if running(p)}
    return left


def kill(procs: set[int]) -> None:
    for pid in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
