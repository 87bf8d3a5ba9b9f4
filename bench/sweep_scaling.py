"""Wall time of `blockpact sweep` with 1 worker and with N workers, on the same study; prints JSON.

scripted: Double-Vein and Cleanup × (none, negotiate) × 8 seeds with the scripted agents (CPU-bound:
          the figure is how well units spread over cores).
llm:      Double-Vein × (none, negotiate) × 8 seeds with LLM players against the local OpenAI stub
          adding a fixed latency to every call (latency-bound, like a hosted model).

Both runs must give the same per-seed metrics; the script says whether they did. Besides wall time it
records CPU seconds (the whole sweep's, and each unit's from index.json) and the load average before and
after each run: on a shared machine the wall-time ratio depends on what else runs, the CPU figures less so.

    .venv/bin/python bench/sweep_scaling.py scripted --workers 1 2
    .venv/bin/python bench/sweep_scaling.py llm --workers 1 8 --latency 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCENARIO = '[scenario]\nname = "{name}"\nworld = "{world}"\nseeds = {seeds}\n{extra}'
LLM_SLOTS = '[players]\nGizmo = "llm:{{model}}"\nGlitch = "llm:{{model}}"\n[llm]\nbase_url = "{url}"\n'


def write_study(folder: Path, mode: str, seeds: int, url: str | None, workers: int) -> Path:
    if mode == "scripted":
        worlds = ["double_vein", "cleanup"]
        extra = ""
        study_extra = ""
    else:
        worlds = ["double_vein"]
        extra = LLM_SLOTS.format(url=url)
        study_extra = f'models = ["stub-model"]\n[llm]\nmax_concurrent_per_endpoint = {max(8, 2 * workers)}\n'
    for world in worlds:
        (folder / f"{world}.toml").write_text(SCENARIO.format(name=world, world=world, seeds=seeds, extra=extra))
    study = folder / "study.toml"
    names = ", ".join(f'"{w}.toml"' for w in worlds)
    study.write_text(f'[study]\nname = "bench"\nscenarios = [{names}]\n{study_extra}')
    return study


def seed_metrics(root: Path) -> dict[str, list[float | None]]:
    out = {}
    for metrics in sorted(root.glob("units/**/metrics.json")):
        m = json.loads(metrics.read_text())
        for name, c in m["conditions"].items():
            for r in c["runs"]:
                out[f"{m['world']}/{name}/{r['seed']}"] = [r["welfare"], r["gini"]]
    return out


def unit_cpu(root: Path) -> list[float]:
    """CPU seconds of every unit (its worker's Python and Node), as the sweep's index.json records them."""
    units = json.loads((root / "index.json").read_text())["units"].values()
    return [u["cpu_s"] for u in units if u.get("cpu_s") is not None]


def sweep(study: Path, out: Path, workers: int, mode: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole sweep: driver, workers and their Node runtimes)."""
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    env["OPENAI_API_KEY"] = "sk-bench"
    cmd = [sys.executable, "-m", "blockpact.cli", "sweep", str(study), "--workers", str(workers), "--out", str(out)]
    if mode == "llm":
        cmd.append("--no-llm-cache")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"sweep failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("scripted", "llm"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--latency", type=float, default=2.0, help="seconds the stub adds to every call (llm)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds over the worker counts, interleaved, so a "
                        "change in the machine's load hits each count alike; the median counts")
    args = parser.parse_args()
    stub = None
    if args.mode == "llm":
        from blockpact.agents.testing.openai_stub import OpenAIStub
        from blockpact.agents.testing.stub_quirks import ServerQuirks
        from blockpact.agents.testing.protocol_responder import ProtocolResponder
        from blockpact.worlds.world_files import load_world

        stub = OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), quirks=ServerQuirks(latency_s=args.latency)).start()
    try:
        with tempfile.TemporaryDirectory(prefix="blockpact-bench-sweep-") as tmp:
            runs: dict[int, list[dict]] = {w: [] for w in args.workers}
            reference = None
            for round_ in range(args.repeats):
                for workers in args.workers:
                    folder = Path(tmp) / f"r{round_}-w{workers}"
                    folder.mkdir()
                    study = write_study(folder, args.mode, args.seeds, stub.base_url if stub else None,
                                        max(args.workers))
                    calls_before = len(stub.chat_requests) if stub else 0
                    load_before = os.getloadavg()[0]
                    wall, cpu = sweep(study, folder / "out", workers, args.mode)
                    metrics = seed_metrics(folder / "out")
                    reference = reference or metrics
                    runs[workers].append({"wall_s": wall, "cpu_s": cpu, "unit_cpu_s": unit_cpu(folder / "out"),
                                          "load_before": load_before,
                                          "seed_results": len(metrics), "same": metrics == reference,
                                          "llm_calls": (len(stub.chat_requests) - calls_before) if stub else 0,
                                          "load_avg_1m": os.getloadavg()[0]})
            results = [{"workers": w, "wall_s": round(statistics.median(r["wall_s"] for r in rs), 2),
                        "wall_s_each": [round(r["wall_s"], 2) for r in rs],
                        "sweep_cpu_s_each": [round(r["cpu_s"], 2) for r in rs],
                        "unit_cpu_s_median": round(statistics.median(c for r in rs for c in r["unit_cpu_s"]), 3),
                        "unit_cpu_s_total_each": [round(sum(r["unit_cpu_s"]), 2) for r in rs],
                        "load_avg_1m_before_each": [round(r["load_before"], 2) for r in rs],
                        "load_avg_1m_after_each": [round(r["load_avg_1m"], 2) for r in rs],
                        "seed_results": rs[0]["seed_results"], "same_metrics_as_first": all(r["same"] for r in rs),
                        "llm_calls": rs[0]["llm_calls"]} for w, rs in runs.items()]
        base = results[0]["wall_s"]
        for r in results:
            r["speedup_vs_first"] = round(base / r["wall_s"], 2)
        print(json.dumps({"bench": "sweep_scaling", "mode": args.mode, "seeds": args.seeds, "cpus": os.cpu_count(),
                          "latency_s": args.latency if stub else None, "repeats": args.repeats,
                          "results": results}, indent=2))
    finally:
        if stub is not None:
            stub.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
