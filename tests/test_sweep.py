"""`blockpact sweep`: units into their own run directories with one index, the same metrics with 1 or 2
local workers and on Ray, resumable after an interruption, LLM requests bounded per endpoint across workers."""

from __future__ import annotations

import json
import shutil
import tempfile
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.stub_quirks import ServerQuirks
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.cli import main
from blockpact.experiments.plan.scenario import ScenarioError
from blockpact.experiments.studies.study import load_study
from blockpact.worlds.world_files import load_world
from harness.pace import scaled

KEY = "sk-test-sweep-9e8d"
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG")


def write_study(folder: Path, seeds: int = 2, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dv.toml").write_text('[scenario]\nworld = "double_vein"\nseeds = 10\n')
    (folder / "cleanup.toml").write_text('[scenario]\nname = "cu"\nworld = "cleanup"\n')
    study = folder / "study.toml"
    study.write_text(f'[study]\nname = "t"\nscenarios = ["dv.toml", "cleanup.toml"]\nseeds = {seeds}\n{extra}')
    return study


def seed_metrics(root: Path) -> dict[tuple[str, str, int], tuple[float, float | None]]:
    """(world, condition, seed) -> (welfare, gini), from every unit's metrics.json."""
    out = {}
    for metrics in sorted(root.glob("units/**/metrics.json")):
        m = json.loads(metrics.read_text())
        for name, c in m["conditions"].items():
            for r in c["runs"]:
                out[(m["world"], name, r["seed"])] = (r["welfare"], r["gini"])
    return out


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("sweep")
    study = write_study(base / "study", seeds=1)  # one unit per worker: both run at once
    assert main(["sweep", str(study), "--workers", "2", "--out", str(base / "w2")]) == 0
    return base


def test_units_index_and_comparison(two_workers) -> None:
    root = two_workers / "w2"
    index = json.loads((root / "index.json").read_text())
    assert sorted(index["units"]) == ["cu/seed-0", "dv/seed-0"]
    for unit in index["units"].values():
        assert unit["status"] == "complete" and set(unit["welfare"]) == {"none", "negotiate"}
        assert unit["cpu_s"] > 0  # its worker's Python and Node runtime (bench/sweep_scaling.py reads it)
        run = root / unit["dir"]
        assert (run / "events.jsonl").is_file() and (run / "report.html").is_file()
        assert not list(run.glob("plots/*"))  # per-unit plots only with --plots
    assert len(seed_metrics(root)) == 4
    assert (root / "comparison" / "compare.csv").is_file()


def test_the_costliest_units_start_first(tmp_path) -> None:
    """The study's files alone (not `two_workers`: an xdist worker that runs only this test need not sweep)."""
    from blockpact.experiments.studies.sweep_backends import longest_first

    units = load_study(write_study(tmp_path / "study", seeds=1)).units(lambda scenario: None)
    assert [u.id for u in units] == ["dv/seed-0", "cu/seed-0"]  # the study's order
    assert [u.id for u in longest_first(units)] == ["cu/seed-0", "dv/seed-0"]  # 600 s > 300 s


def failed_programs(root: Path) -> list[str]:
    """Every program of every unit that did not succeed, with its error: what explains differing metrics."""
    out = []
    for events in sorted(root.glob("units/**/events.jsonl")):
        for line in events.read_text().splitlines():
            record = json.loads(line)
            event = record["data"].get("event", {}) if record["kind"] == "world" else {}
            if event.get("kind") == "program_end" and not event["data"]["success"]:
                out.append(f"{events.parent.name} {record['condition']} {event['agent']}: {event['data']['error']}")
    return out


@pytest.mark.slow  # one more worker start and both units played again: ~4 s of CPU (make test-all)
def test_one_worker_gives_the_same_metrics(two_workers, tmp_path) -> None:
    """Fast cover: test_interrupting_and_rerunning_skips_finished_units ends with both units played by one worker
    (cleanup before the Ctrl-C, double_vein on the re-run) and compares them with `two_workers`'s."""
    assert main(["sweep", str(two_workers / "study" / "study.toml"), "--workers", "1", "--out", str(tmp_path / "w1")]) == 0
    one, two = seed_metrics(tmp_path / "w1"), seed_metrics(two_workers / "w2")
    assert one == two, (failed_programs(tmp_path / "w1"), failed_programs(two_workers / "w2"))


def test_a_unit_cut_short_is_redone_and_finished_ones_are_skipped(two_workers, tmp_path, capsys) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(two_workers / "w2", root)
    unit = root / "units" / "dv" / "seed-0"
    (unit / "metrics.json").unlink()  # as if killed before its end
    lines = (unit / "events.jsonl").read_text().splitlines(keepends=True)
    (unit / "events.jsonl").write_text("".join(lines[: len(lines) // 2]))
    assert main(["sweep", str(two_workers / "study" / "study.toml"), "--workers", "1", "--out", str(root)]) == 0
    assert "2 units, 1 already finished, 1 to run" in capsys.readouterr().err
    assert seed_metrics(root) == seed_metrics(two_workers / "w2")


def test_interrupting_and_rerunning_skips_finished_units(two_workers, tmp_path, capsys) -> None:
    """Two units, one worker: Ctrl-C once the first (cleanup, the longest) is recorded, while the second runs.
    The re-run runs in this process (the Ctrl-C needs a process of its own, the re-run does not); both units,
    each played by one worker, end with the metrics of the sweep on two workers."""
    study = write_study(tmp_path / "study", seeds=1)
    out = tmp_path / "s"
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"}
    cmd = [sys.executable, "-m", "blockpact.cli", "sweep", str(study), "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            index = out / "index.json"
            if index.is_file() and json.loads(index.read_text())["units"]:
                break
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the driver and its workers
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    # what a re-run finds finished (a unit cut short has a valid log and metrics too, with status interrupted)
    finished = [m for m in out.glob("units/**/metrics.json") if json.loads(m.read_text())["status"] == "complete"]
    assert len(finished) == 1
    statuses = {u: r["status"] for u, r in json.loads((out / "index.json").read_text())["units"].items()}
    assert "complete" in statuses.values()
    capsys.readouterr()
    assert main(["sweep", str(study), "--workers", "1", "--out", str(out)]) == 0
    assert "2 units, 1 already finished, 1 to run" in capsys.readouterr().err
    assert seed_metrics(out) == seed_metrics(two_workers / "w2"), (failed_programs(out),
                                                                    failed_programs(two_workers / "w2"))
    index = json.loads((out / "index.json").read_text())["units"]
    assert len(index) == 2 and {r["status"] for r in index.values()} == {"complete"}


@contextmanager
def local_ray() -> Iterator[None]:
    """A local Ray instance (2 CPUs) whose session files (sockets, logs) are removed with it. Its own short
    temp dir: Ray's socket paths under it must stay within 107 bytes."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'blockpact[ray]')")
    temp = tempfile.mkdtemp(prefix="ray-")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    try:
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow  # a local Ray instance: ~15 s (make test-all)
def test_same_metrics_on_a_local_ray_instance(two_workers, tmp_path) -> None:
    with local_ray():
        assert main(["sweep", str(two_workers / "study" / "study.toml"), "--ray", "--out", str(tmp_path / "r")]) == 0
    assert seed_metrics(tmp_path / "r") == seed_metrics(two_workers / "w2")
    index = json.loads((tmp_path / "r" / "index.json").read_text())
    assert {u["status"] for u in index["units"].values()} == {"complete"}


def test_bad_study_files_name_file_line_and_key(tmp_path) -> None:
    study = write_study(tmp_path, extra='\n[llm]\nmax_concurrent_per_endpoint = 0\n')
    with pytest.raises(ScenarioError, match=r"study.toml:7: llm.max_concurrent_per_endpoint: expected a whole number"):
        load_study(study)
    study.write_text('[study]\nscenarios = ["missing.toml"]\n')
    with pytest.raises(ScenarioError, match=r"study.toml:2: study.scenarios\[0\]: no scenario file"):
        load_study(study)
    (tmp_path / "m.toml").write_text('[scenario]\nworld = "double_vein"\n[players]\nGizmo = "llm:{model}"\n')
    study.write_text('[study]\nscenarios = ["m.toml"]\n')
    with pytest.raises(ScenarioError, match=r"study.models: scenario 'm' has `llm:\{model\}` slots"):
        load_study(study)


@pytest.fixture
def llm_env() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        for name in LLM_ENV:
            mp.delenv(name, raising=False)
        mp.setenv("OPENAI_API_KEY", KEY)
        yield


@pytest.mark.parametrize("bound", [pytest.param(1, marks=pytest.mark.slow), 3])
def test_llm_requests_are_bounded_per_endpoint_across_workers(tmp_path, llm_env, bound) -> None:
    """Models fill `llm:{model}` slots; 3 workers share the endpoint, never more than `bound` requests at once.
    The stub's latency grows with the machine's load: workers that start seconds apart on a busy machine must
    still overlap (at load 30, 0.2 s answers left at most 2 requests in flight)."""
    world = load_world("double_vein")
    quirks = ServerQuirks(latency_s=scaled(0.2))
    with OpenAIStub(responder=ProtocolResponder(world), api_key=KEY, models=["m-a", "m-b"], quirks=quirks) as stub:
        (tmp_path / "focal.toml").write_text(
            '[scenario]\nworld = "double_vein"\nseeds = 3\n[[conditions]]\ncontract = "negotiate"\n'
            f'[players]\nGizmo = "llm:{{model}}"\nGlitch = "llm:{{model}}"\n[llm]\nbase_url = "{stub.base_url}"\n')
        (tmp_path / "study.toml").write_text(
            '[study]\nscenarios = ["focal.toml"]\nmodels = ["m-a", "m-b"]\nseeds = 2\n'
            f'[llm]\nmax_concurrent_per_endpoint = {bound}\n')
        out = tmp_path / "s"
        assert main(["sweep", str(tmp_path / "study.toml"), "--workers", "3", "--out", str(out), "--no-llm-cache"]) == 0
        assert stub.max_in_flight == bound
        models = {r.body["model"] for r in stub.chat_requests}
    assert models == {"m-a", "m-b"}
    index = json.loads((out / "index.json").read_text())
    assert sorted(index["units"]) == ["focal/m-a/seed-0", "focal/m-a/seed-1", "focal/m-b/seed-0", "focal/m-b/seed-1"]
    assert {u["status"] for u in index["units"].values()} == {"complete"}
    assert KEY not in "".join(p.read_text() for p in out.glob("units/**/events.jsonl"))


def test_a_failing_unit_is_recorded_with_its_cause_and_the_exit_code_says_so(tmp_path, llm_env, capsys) -> None:
    from blockpact.agents.testing.openai_stub import StubReply

    (tmp_path / "llm.toml").write_text("[retry]\nmax_retries = 0\n")
    with OpenAIStub(responder=lambda request: StubReply.server_error(), api_key=KEY) as stub:
        (tmp_path / "down.toml").write_text(
            '[scenario]\nworld = "double_vein"\n[[conditions]]\ncontract = "negotiate"\n'
            f'[players]\nGizmo = "llm:stub-model"\n[llm]\nbase_url = "{stub.base_url}"\nconfig = "llm.toml"\n')
        (tmp_path / "study.toml").write_text('[study]\nscenarios = ["down.toml"]\nseeds = 1\n')
        out = tmp_path / "s"
        assert main(["sweep", str(tmp_path / "study.toml"), "--workers", "1", "--out", str(out), "--no-llm-cache"]) == 3
        unit = json.loads((out / "index.json").read_text())["units"]["down/seed-0"]
        assert unit["status"] == "error" and unit["welfare"] == {"negotiate": None}
        assert unit["error"].startswith("negotiate: endpoint (seeds 0): ") and "500" in unit["error"]
        assert f"unit down/seed-0: error: {unit['error']}" in capsys.readouterr().err  # the cause, where the user looks
        metrics = json.loads((out / unit["dir"] / "metrics.json").read_text())
        assert "500" in metrics["conditions"]["negotiate"]["errors"][0]["error"]
        capsys.readouterr()
        # a re-run keeps the recorded failure (it is a result) unless asked to retry it
        assert main(["sweep", str(tmp_path / "study.toml"), "--workers", "1", "--out", str(out), "--no-llm-cache"]) == 3
        assert "1 units, 1 already finished, 0 to run" in capsys.readouterr().err
        assert main(["sweep", str(tmp_path / "study.toml"), "--workers", "1", "--out", str(out), "--no-llm-cache",
                     "--retry-errors"]) == 3
        assert "1 units, 0 already finished, 1 to run" in capsys.readouterr().err


def test_the_readme_example_files_load() -> None:
    root = Path(__file__).resolve().parents[1] / "examples" / "study"
    study = load_study(root / "study.toml")
    units = study.units(lambda scenario: None)
    assert len(units) == 20 and {u.scenario.name for u in units} == {"double_vein", "cleanup"}
    from blockpact.experiments.plan.scenario import load_scenario

    focal = load_scenario(root / "focal_llm.toml").with_model("m")
    assert focal.slots == {"Gizmo": "llm:m", "Glitch": "scripted:greedy"} and focal.judge_model == "m"


@pytest.mark.slow  # a local Ray instance: ~15 s (make test-all)
def test_llm_requests_are_bounded_per_endpoint_on_ray(tmp_path, llm_env) -> None:
    world = load_world("double_vein")
    with OpenAIStub(responder=ProtocolResponder(world), api_key=KEY, quirks=ServerQuirks(latency_s=0.2)) as stub:
        (tmp_path / "focal.toml").write_text(
            '[scenario]\nworld = "double_vein"\n[[conditions]]\ncontract = "negotiate"\n'
            f'[players]\nGizmo = "llm:stub-model"\nGlitch = "llm:stub-model"\n[llm]\nbase_url = "{stub.base_url}"\n')
        (tmp_path / "study.toml").write_text('[study]\nscenarios = ["focal.toml"]\nseeds = 3\n'
                                             '[llm]\nmax_concurrent_per_endpoint = 1\n')
        with local_ray():
            assert main(["sweep", str(tmp_path / "study.toml"), "--ray", "--out", str(tmp_path / "s"),
                         "--no-llm-cache"]) == 0
        assert stub.max_in_flight == 1 and len(stub.chat_requests) > 3
    index = json.loads((tmp_path / "s" / "index.json").read_text())["units"]
    assert len(index) == 3 and {u["status"] for u in index.values()} == {"complete"}


def test_a_unit_whose_worker_fails_after_its_metrics_is_an_error_not_complete(tmp_path, monkeypatch) -> None:
    """The report failing after metrics.json was written: the unit reads as an error (the sweep's exit status, a
    re-run with --retry-errors redoes it), not as complete from the metrics it left."""
    from blockpact.experiments.outputs import report
    from blockpact.experiments.studies.sweep import UNIT_ERROR, play_unit, unit_status

    def broken_report(*args, **kwargs):
        raise RuntimeError("the report template could not be rendered")

    monkeypatch.setattr(report, "write_report", broken_report)
    unit = load_study(write_study(tmp_path / "study", seeds=1)).units(lambda scenario: None)[0]
    run_root = tmp_path / "unit"
    result = play_unit(unit, run_root)
    assert result.status == "failed" and result.error.startswith("RuntimeError: the report template")
    assert (run_root / "metrics.json").is_file() and (run_root / UNIT_ERROR).is_file()
    assert unit_status(run_root) == "error"
