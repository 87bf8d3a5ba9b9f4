"""A tree of 1 leader + 3 scripted workers collects logs with mineflayer bots on the embedded server
(`blockpact org run --backend minecraft`): the same task file, agents and outputs as on the
simulator; the server the run started is gone afterwards."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from blockpact.cli import main


def test_a_tree_collects_logs_on_the_embedded_server(tmp_path: Path, capsys) -> None:
    out = tmp_path / "live"
    code = main(["org", "run", "collect-logs", "--amount", "6", "--workers", "3", "--backend", "minecraft",
                 "--latency-scale", "0.05", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured
    pid = int(re.search(r"embedded Minecraft \S+ server at 127\.0\.0\.1:\d+ \(pid (\d+)\)", captured.err).group(1))
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["backend"] == "minecraft" and metrics["clock"] == "wall" and metrics["success"] is True
    run = metrics["conditions"]["toa-async"]["runs"][0]
    assert run["progress"] == [6, 6] and sum(run["items_per_agent"].values()) >= 6 and run["items_per_agent"]["Leader"] == 0
    assert all(run["items_per_agent"][w] > 0 for w in ("W1", "W2", "W3"))  # every worker mined its share
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "world" and e["data"]["kind"] == "inventory" and e["data"]["data"]["item"] == "oak_log" for e in events)
    assert "(live server)" in (out / "report.html").read_text()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError(f"the embedded server (pid {pid}) outlived the run")
