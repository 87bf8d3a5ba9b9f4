"""Wall time of `blockpact run --agents llm --parallel N` when every LLM call takes `--latency` seconds.

    .venv/bin/python bench/llm_parallel.py --latency 2 --seeds 10 --parallel 8

The local OpenAI stub plays every role (as `blockpact.agents.testing.protocol_responder` does) and adds
`--latency` seconds to each call (ServerQuirks.latency_s); each run goes through the real CLI in a child
process, so the figures include start-up. Measured: one seed of both conditions one unit at a time (the
baseline), then `--seeds` seeds of both conditions `--parallel` units at a time. The conditions' metrics
of the two runs' common seed are compared (parallel runs must not change outcomes). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.agents.testing.stub_quirks import ServerQuirks
from blockpact.worlds.world_files import load_world

ROOT = Path(__file__).resolve().parents[1]


def timed_run(stub: OpenAIStub, out: Path, seeds: int, parallel: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and k != "BLOCKPACT_LLM_CONFIG"}
    command = [str(Path(sys.executable).with_name("blockpact")), "run", "double_vein", "--agents", "llm", "--seeds", str(seeds),
               "--parallel", str(parallel), "--out", str(out), "--llm-base-url", stub.base_url,
               "--llm-model", "stub-model", "--no-llm-cache"]
    before = len(stub.chat_requests)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    metrics = json.loads((out / "metrics.json").read_text())
    return {"seeds": seeds, "parallel": parallel, "units": 2 * seeds, "wall_s": round(wall, 2),
            "llm_calls": len(stub.chat_requests) - before, "metrics": metrics}


def seed0(metrics: dict[str, Any]) -> dict[str, Any]:
    return {name: next(r for r in c["runs"] if r["seed"] == 0) for name, c in metrics["conditions"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=2.0, help="seconds added to every LLM call (default 2)")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--parallel", type=int, default=8)
    args = parser.parse_args()
    quirks = ServerQuirks(latency_s=args.latency)
    with tempfile.TemporaryDirectory() as tmp, \
            OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), quirks=quirks) as stub:
        one = timed_run(stub, Path(tmp) / "one", 1, 1)
        many = timed_run(stub, Path(tmp) / "many", args.seeds, args.parallel)
    same = seed0(one["metrics"]) == seed0(many["metrics"])
    result = {
        "latency_s": args.latency,
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "one_seed": {k: v for k, v in one.items() if k != "metrics"},
        "parallel": {k: v for k, v in many.items() if k != "metrics"},
        "ratio": round(many["wall_s"] / one["wall_s"], 2),
        "seed0_outcome_identical": same,
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
