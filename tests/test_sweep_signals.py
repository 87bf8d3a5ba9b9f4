"""A sweep's driver stopped by SIGTERM, SIGINT, or SIGINT then SIGTERM (sent to the driver alone, as `kill PID` or a
scheduler does) leaves none of its pool workers (multiprocessing's spawn_main) and none of their Node bridges
running, exits with the signal's status, and keeps the units that finished recorded for the re-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from test_sweep import write_study

# the signals, and the exit statuses that may follow (a SIGTERM that comes once the stop is over finds no driver, or
# one on its way out, which it ends: -SIGTERM)
STOPS = {
    "SIGTERM": ([signal.SIGTERM], {143}),
    "SIGINT then SIGTERM": ([signal.SIGINT, signal.SIGTERM], {130, 143, -signal.SIGTERM}),
    "SIGINT": ([signal.SIGINT], {130}),
    # nothing in the driver runs: each worker is sent SIGTERM by the kernel (PR_SET_PDEATHSIG) and ends by itself
    "SIGKILL": ([signal.SIGKILL], {-signal.SIGKILL}),
}


def _tree(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _names(procs: list[psutil.Process]) -> list[str]:
    out = []
    for p in procs:
        try:
            out.append(" ".join(p.cmdline())[:160])
        except psutil.Error:
            pass
    return out


def _running(procs: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


def _in_session(sid: int) -> list[psutil.Process]:
    """Every process of the driver's session (it was started in a new one): what its tree held, reparented or not."""
    found = []
    for p in psutil.process_iter():
        try:
            if p.pid != sid and os.getsid(p.pid) == sid and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (psutil.Error, OSError):
            pass
    return found


def _command(which: str, tmp_path: Path, out: Path) -> list[str]:
    if which == "sweep":
        study = write_study(tmp_path / "study", seeds=1)  # two units: cleanup (the longest, first), then double_vein
        return ["sweep", str(study), "--workers", "1", "--out", str(out)]
    return ["suite", "run", "--agents", "greedy", "--worlds", "stag_hunt", "--seeds", "20", "--workers", "1",
            "--out", str(out)]  # units of about a second each: many, so the run still goes on at the signal


@pytest.mark.parametrize("which,stop", [*(("sweep", stop) for stop in STOPS), ("suite run", "SIGTERM")])
def test_stopping_the_driver_leaves_no_worker_or_bridge(tmp_path: Path, which: str, stop: str) -> None:
    """`blockpact sweep` and `blockpact suite run` share the local pool (sweep_backends.local_results)."""
    signals, status = STOPS[stop]
    out = tmp_path / "s"
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    cmd = [sys.executable, "-m", "blockpact.cli", *_command(which, tmp_path, out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    tree: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            index = out / "index.json"
            tree = _tree(proc.pid)
            names = _names(tree)
            if (index.is_file() and json.loads(index.read_text())["units"]
                    and any("spawn_main" in n for n in names) and any("bridge.js" in n for n in names)):
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        names = _names(tree)
        assert any("bridge.js" in n for n in names), names  # the second unit plays on the worker's Node bridge
        for sig in signals:
            proc.send_signal(sig)  # the driver alone, not its process group
            time.sleep(0.2)  # the second while the first's stop goes on
        _, err = proc.communicate(timeout=120)
        left = [p for p in _running(tree) if p.pid != proc.pid]
        # what the driver stopped may take a moment to be reaped; a worker without its driver ends within its
        # WORKER_STOP_SECONDS, its bridge with it
        deadline = time.monotonic() + (45 if stop == "SIGKILL" else 10)
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = _running(left)
        assert not left, f"left running after {stop}: {_names(left)}\n{err}"
        assert not _in_session(proc.pid), _names(_in_session(proc.pid))
    finally:
        for p in _running(tree) + _in_session(proc.pid):
            try:
                p.kill()
            except psutil.Error:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode in status, err
    units = json.loads((out / "index.json").read_text())["units"]
    assert "complete" in {u["status"] for u in units.values()}, units
    finished = [m for m in out.glob("units/**/metrics.json") if json.loads(m.read_text())["status"] == "complete"]
    assert finished
