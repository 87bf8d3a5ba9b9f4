"""A live run whose server dies mid-episode: the seed is `failed` with cause `server` (not `complete` with
0 errors), it has no welfare, the run exits 3 naming the cause, and the report says so. Real parts: the
embedded flying-squid server, mineflayer bots, killed with SIGKILL as a crash would."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from blockpact.experiments.log.records import read_run
from test_bridge_runtime import _gone
from test_run_live_cli import SERVER_LINE, LiveRun


def _wait_for_digging(events: Path, timeout: float = 180) -> None:
    _wait_for(events, '"old": "iron_ore"', "no bot started digging", timeout)


def _wait_for(events: Path, text: str, missing: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if events.exists() and text in events.read_text():
            return
        time.sleep(0.1)
    raise AssertionError(missing)


def test_a_seed_whose_server_died_is_failed_with_cause_server(tmp_path: Path) -> None:
    out = tmp_path / "dead"
    run = LiveRun("double_vein", "--seeds", "1", "--contract", "none", "--out", str(out))
    try:
        (server,) = run.wait_for(SERVER_LINE)
        _wait_for(out / "events.jsonl", '"kind": "program_start"', "no program started")  # mid-episode: killed at once
        os.kill(int(server.group(1)), signal.SIGKILL)
    finally:
        code, stdout, stderr = run.finish(timeout=240)
    assert code == 3, stderr
    assert "1 of 1 condition-seed units did not complete: 1 server" in stderr and "Traceback" not in stderr
    (seed,) = read_run(out / "events.jsonl").seeds
    assert seed.status == "failed" and seed.cause == "server"
    metrics = json.loads((out / "metrics.json").read_text())
    none = metrics["conditions"]["none"]
    assert none["runs"] == [] and none["welfare"]["mean"] is None and none["failures"]["server"]["count"] == 1
    assert "cause server" in (out / "report.html").read_text()


@pytest.mark.slow  # three live seeds: ~80 s (make test-all)
def test_a_dead_server_is_restarted_for_the_next_seed(tmp_path: Path) -> None:
    out = tmp_path / "restarted"
    run = LiveRun("double_vein", "--seeds", "3", "--contract", "none", "--out", str(out))
    try:
        (server,) = run.wait_for(SERVER_LINE, timeout=120)
        _wait_for_digging(out / "events.jsonl")
        os.kill(int(server.group(1)), signal.SIGKILL)
    except AssertionError as problem:
        run.proc.terminate()
        raise AssertionError(f"{problem}: {run.finish()[2][-3000:]}") from None
    code, stdout, stderr = run.finish(timeout=540)
    assert code == 3, stderr
    assert "1 of 3 condition-seed units did not complete: 1 server" in stderr and "Traceback" not in stderr
    assert f"the embedded server (pid {server.group(1)}) had exited" in stderr
    seeds = read_run(out / "events.jsonl").seeds
    assert [(s.status, s.cause) for s in seeds] == [("failed", "server"), ("completed", None), ("completed", None)]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    restarts = [e for e in events if e["kind"] == "world" and e["data"]["event"]["kind"] == "server_restart"]
    assert len(restarts) == 1 and restarts[0]["seed"] == seeds[1].seed
    assert restarts[0]["data"]["event"]["data"]["old_pid"] == int(server.group(1))
    assert json.loads((out / "metrics.json").read_text())["conditions"]["none"]["welfare"]["mean"] is not None


def _bridge_pid(parent: int) -> int:
    """The JSPyBridge Node process among `parent`'s children."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == parent and "bridge.js" in cmdline:
            return int(stat.parent.name)
    raise AssertionError(f"no bridge.js child of {parent}")


@pytest.mark.slow  # kills or stops the shared Node runtime; a later live test in the same session then hung once (make test-all)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "wedged"])
def test_a_dead_or_wedged_bridge_ends_the_run_within_15_s_with_cause_bridge(tmp_path: Path, how: signal.Signals) -> None:
    out = tmp_path / "bridge"
    run = LiveRun("double_vein", "--seeds", "1", "--contract", "none", "--out", str(out))
    try:
        run.wait_for(SERVER_LINE, timeout=120)
        _wait_for_digging(out / "events.jsonl")
        bridge = _bridge_pid(run.proc.pid)
        os.kill(bridge, how)  # SIGSTOP: alive but answering nothing
        hit = time.monotonic()
        run.proc.wait(60)
        took = time.monotonic() - hit
    finally:
        run.proc.kill() if run.proc.poll() is None else None
        code, stdout, stderr = run.finish(timeout=60)
    assert took < 15, (took, stderr)
    assert code == 3, stderr
    assert "1 of 1 condition-seed units did not complete: 1 bridge" in stderr and "Traceback" not in stderr
    (seed,) = read_run(out / "events.jsonl").seeds
    assert seed.status == "failed" and seed.cause == "bridge"
    assert _gone(bridge), "the wedged Node runtime outlived the run"
