"""CPU cost of the everyday commands: what a run, a report, a comparison and a small sweep cost a user (and
`make test`, which runs many of them).

    .venv/bin/python bench/run_cost.py --repeats 3

Each command runs as its own `blockpact` process, `--repeats` times; the figure is the median of the CPU
time (user + sys, the process and the children it waited for) it took, from the kernel's rusage, so other
load on the machine slows it down but does not count. Wall time is printed beside it. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCKPACT = [sys.executable, "-m", "blockpact.cli"]
STUDY = '[study]\nname = "cost"\nscenarios = ["dv.toml", "cleanup.toml"]\nseeds = 2\n'


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one `blockpact ARGS` process; a failing command stops the bench."""
    cpu, wall = _children_cpu(), time.perf_counter()
    subprocess.run([*BLOCKPACT, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return _children_cpu() - cpu, time.perf_counter() - wall


def commands(root: Path, n: int) -> dict[str, list[str]]:
    """The commands, each writing into its own fresh directory for repeat `n`."""
    study = root / "study"
    study.mkdir(exist_ok=True)
    (study / "dv.toml").write_text('[scenario]\nworld = "double_vein"\n')
    (study / "cleanup.toml").write_text('[scenario]\nname = "cu"\nworld = "cleanup"\n')
    (study / "study.toml").write_text(STUDY)
    return {
        "run double_vein": ["run", "double_vein", "--out", str(root / f"dv{n}")],
        "run commons": ["run", "commons", "--out", str(root / f"commons{n}")],
        "report (commons run)": ["report", str(root / f"commons{n}")],
        "compare (2 runs)": ["compare", str(root / f"dv{n}"), str(root / f"commons{n}"), "--out", str(root / f"cmp{n}")],
        "sweep (2 scenarios x 2 seeds, 1 worker)": ["sweep", str(study / "study.toml"), "--workers", "1",
                                                    "--out", str(root / f"sweep{n}")],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    samples: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="blockpact-run-cost-") as tmp:
        for n in range(args.repeats):  # in order: report and compare read the runs of the same repeat
            for name, argv in commands(Path(tmp), n).items():
                samples.setdefault(name, []).append(measure(argv))
    print(json.dumps({
        name: {"cpu_s_median": round(statistics.median(c for c, _ in runs), 2),
               "cpu_s": [round(c, 2) for c, _ in runs], "wall_s": [round(w, 2) for _, w in runs]}
        for name, runs in samples.items()
    }, indent=2))


if __name__ == "__main__":
    main()
