"""Stopping a local pool's workers when the sweep's driver is interrupted: none outlives it, nor its Node bridge.

Each worker is sent SIGTERM (sweep_backends._on_stop): it ends its unit as interrupted, which leaves the unit's
log and metrics valid, and exits, closing its Node bridge. One still running after STOP_GRACE_SECONDS, or when a
second signal says to hurry, is killed, and so is whatever still runs under it (its bridge, which ends by itself
once its stdin closes, and the bridge's sandbox processes); a second signal leaves it HURRY_SECONDS. What a killed
worker leaves in its temporary directory goes with the pool's (sweep_backends.local_results). Before this, a driver stopped by SIGTERM left its
workers running their units and then waiting forever for more, each with its bridge.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable
from multiprocessing.process import BaseProcess
from pathlib import Path

STOP_GRACE_SECONDS = 20.0  # for a worker to end its unit (its outputs written) and exit
HURRY_SECONDS = 3.0  # what is left of that grace once a second signal says to hurry
KILL_WAIT_SECONDS = 5.0  # for what ran under a killed worker to end by itself before it is killed too


def _stat(pid: int) -> list[bytes]:
    """The fields of /proc/PID/stat after the command name (empty when the process is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
    except OSError:
        return []


def _running(proc: tuple[int, bytes]) -> bool:
    """Whether (pid, start time) still runs: the same process (a pid may be reused), not a zombie."""
    fields = _stat(proc[0])
    return len(fields) > 19 and fields[19] == proc[1] and fields[0] not in (b"Z", b"X")


def descendants(pids: Iterable[int]) -> list[tuple[int, bytes]]:
    """Every process under `pids` (children, theirs, ...) as (pid, start time), from /proc."""
    children: dict[int, list[int]] = {}
    starts: dict[int, bytes] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(int(name))
            if len(fields) > 19:
                children.setdefault(int(fields[1]), []).append(int(name))
                starts[int(name)] = fields[19]
    found: list[tuple[int, bytes]] = []
    todo = list(pids)
    while todo:
        for child in children.get(todo.pop(), []):
            found.append((child, starts[child]))
            todo.append(child)
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_workers(workers: list[BaseProcess], hurry: Callable[[], bool], grace: float = STOP_GRACE_SECONDS) -> None:
    """Ask every live worker to stop; kill those that have not within `grace` (sooner once `hurry()`), then
    whatever still runs under them."""
    live = [w for w in workers if w.is_alive()]
    for worker in live:
        _signal(worker.pid, signal.SIGTERM)  # type: ignore[arg-type]
    deadline = time.monotonic() + grace
    hurried = False
    while live and time.monotonic() < deadline:
        if hurry() and not hurried:
            hurried, deadline = True, min(deadline, time.monotonic() + HURRY_SECONDS)
        live[0].join(0.05)
        live = [w for w in live if w.is_alive()]
    if not live:
        return
    under = descendants(w.pid for w in live if w.pid is not None)
    for worker in live:
        worker.kill()
    for worker in live:
        worker.join(KILL_WAIT_SECONDS)
    deadline = time.monotonic() + KILL_WAIT_SECONDS
    while any(_running(p) for p in under) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid, _ in [p for p in under if _running(p)]:
        _signal(pid, signal.SIGKILL)
