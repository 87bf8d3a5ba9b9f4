"""A tree of 1 leader + 2 scripted workers collects logs with mineflayer bots on the embedded server
(`blockpact org run --backend minecraft`): the same task file, agents and outputs as on the
simulator; the server the run started is gone afterwards."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from blockpact.cli import main


def test_a_tree_collects_logs_on_the_embedded_server(tmp_path: Path, capsys) -> None:
    out = tmp_path / "live"
    code = main(["org", "run", "collect-logs", "--amount", "2", "--workers", "2", "--backend", "minecraft",
                 "--latency-scale", "0.05", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured
    pid = int(re.search(r"embedded Minecraft \S+ server at 127\.0\.0\.1:\d+ \(pid (\d+)\)", captured.err).group(1))
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["backend"] == "minecraft" and metrics["clock"] == "wall" and metrics["success"] is True
    run = metrics["conditions"]["toa-async"]["runs"][0]
    assert run["progress"] == [2, 2] and sum(run["items_per_agent"].values()) >= 2 and run["items_per_agent"]["Leader"] == 0
    # The leader delegated to every worker and each reported back; who mined how many of the 2 logs is a race
    # on a live server (a busy worker's share can be taken by another), so that is not asserted.
    assert all(run["messages_per_agent"][w] > 0 for w in ("W1", "W2")), run["messages_per_agent"]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "world" and e["data"]["kind"] == "inventory" and e["data"]["data"]["item"] == "oak_log" for e in events)
    assert "(live server)" in (out / "report.html").read_text()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError(f"the embedded server (pid {pid}) outlived the run")


@pytest.mark.slow  # a broker, three agent processes and a live server: ~25 s (make test-all)
def test_agents_in_separate_processes_share_a_live_server_through_a_broker(tmp_path: Path) -> None:
    """`blockpact agent --server`: a leader and two workers, each its own process with its own bot on
    one server (`blockpact server --world forest`), talking only through the MQTT pool."""
    import signal
    import subprocess
    import sys
    import time

    from blockpact.agents.broker import LocalBroker

    blockpact = [sys.executable, "-m", "blockpact.cli"]
    server = subprocess.Popen([*blockpact, "server", "--world", "forest", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    agents: list[subprocess.Popen] = []
    try:
        address = None
        deadline = time.monotonic() + 90
        while address is None and time.monotonic() < deadline:
            line = server.stdout.readline()  # type: ignore[union-attr]
            if not line:
                break
            found = re.search(r"server \(flying-squid\) at (127\.0\.0\.1:\d+)", line)
            address = found.group(1) if found else None
        assert address is not None, "the server did not come up"
        with LocalBroker() as broker:
            url = f"{broker.url}/live-org"
            common = ["--world", "collect-logs", "--broker", url, "--server", address, "--latency-scale", "0.1",
                      "--idle-timeout", "60"]
            agents = [subprocess.Popen([*blockpact, "agent", "--role", "leader", "--name", "Leader", "--amount", "4",
                                        "--workers", "W1,W2", *common], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
            agents += [subprocess.Popen([*blockpact, "agent", "--role", "worker", "--name", w, *common],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in ("W1", "W2")]
            outputs = [a.communicate(timeout=180) for a in agents]
    finally:
        for process in [*agents, server]:
            if process.poll() is None:
                process.send_signal(signal.SIGINT if process is server else signal.SIGKILL)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    assert [a.returncode for a in agents] == [0, 0, 0], outputs
    leader, w1, w2 = (out for out, _ in outputs)
    assert "Leader (leader, scripted, bot on" in leader and "objective met" in leader
    for worker in (w1, w2):
        assert "stopped by a stop message" in worker and "'oak_log': 2" in worker
