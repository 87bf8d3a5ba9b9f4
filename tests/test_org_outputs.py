"""Organization runs write metrics.json, plots and report.html from events.jsonl alone, like
`blockpact run`; `blockpact report DIR` rebuilds them (also for a log cut short); several structures
and modes run as conditions of one run, with intervals over seeds; a seed that raises is recorded as
failed with its cause and the run goes on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest

from blockpact.cli import main
from blockpact.experiments.play.org.metrics import stat, wilson

SVG = "{http://www.w3.org/2000/svg}"
PLOTS = {"time_to_completion.svg", "items_per_agent.svg", "messages_per_agent.svg", "progress.svg"}


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("org") / "matrix"
    assert main(["org", "run", "collect-logs", "--amount", "6", "--workers", "2", "--structure", "toa,solo",
                 "--mode", "async,relay", "--seeds", "2", "--out", str(out)]) == 0
    return out


def test_a_matrix_run_writes_every_condition_with_intervals(matrix_run: Path) -> None:
    metrics = json.loads((matrix_run / "metrics.json").read_text())
    assert metrics["kind"] == "org" and metrics["status"] == "complete" and metrics["success"] is True
    assert list(metrics["conditions"]) == ["toa-async", "toa-relay", "solo-async", "solo-relay"]
    for c in metrics["conditions"].values():
        assert c["seeds_completed"] == 2 and c["success_rate"] == 1 and c["success_ci95"][1] == 1
        assert c["time_cost_min"]["n"] == 2 and c["time_cost_min"]["ci95"] is not None
        assert [r["seed"] for r in c["runs"]] == [0, 1] and all(r["status"] == "completed" for r in c["runs"])
    tree = metrics["conditions"]["toa-async"]
    assert sum(tree["items_per_agent"].values()) == 6  # what the agents hold is the task's item
    assert set(tree["messages_per_agent"]) == {"Leader", "W1", "W2"} and tree["messages_per_agent"]["Leader"] > 0
    assert metrics["conditions"]["solo-async"]["items_per_agent"] == {"Solo": 6.0}
    assert {p.name for p in (matrix_run / "plots").iterdir()} == PLOTS


def test_the_figures_show_every_condition_and_agent(matrix_run: Path) -> None:
    def texts(name: str) -> set[str | None]:
        return {t.text for t in ElementTree.parse(matrix_run / "plots" / name).iter(f"{SVG}text")}

    conditions = {"toa-async", "toa-relay", "solo-async", "solo-relay"}
    assert conditions | {"2/2"} <= texts("time_to_completion.svg")  # a name per bar, n/N succeeded above it
    assert conditions | {"Leader", "W1", "W2", "Solo"} <= texts("items_per_agent.svg") & texts("messages_per_agent.svg")
    assert conditions <= texts("progress.svg")  # the legend: one entry per condition, not per seed


def test_the_report_shows_the_comparison_and_embeds_the_plots(matrix_run: Path) -> None:
    html = (matrix_run / "report.html").read_text()
    assert "<h2>Comparison</h2>" in html and "toa-relay" in html and "solo-async" in html
    assert html.count("data:image/svg+xml;base64,") == len(PLOTS)
    assert "<script" not in html and "I&#39;ll start the task" in html  # messages are escaped text


def test_blockpact_report_rebuilds_an_org_run_dir(matrix_run: Path, tmp_path: Path, capsys) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(matrix_run, copy)
    for derived in ("metrics.json", "report.html"):
        (copy / derived).unlink()
    shutil.rmtree(copy / "plots")
    assert main(["report", str(copy)]) == 0
    printed = capsys.readouterr().out
    assert "toa-relay" in printed and "report:" in printed
    assert json.loads((copy / "metrics.json").read_text()) == json.loads((matrix_run / "metrics.json").read_text())
    assert (copy / "report.html").is_file() and {p.name for p in (copy / "plots").iterdir()} == PLOTS


def test_report_on_a_log_cut_short_marks_unfinished_seeds_interrupted(matrix_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "cut"
    copy.mkdir()
    lines = (matrix_run / "events.jsonl").read_text().splitlines()
    second_end = [i for i, line in enumerate(lines) if '"kind": "org_end"' in line][1]
    (copy / "events.jsonl").write_text("\n".join(lines[: second_end + 5]) + "\n")
    assert main(["report", str(copy)]) == 0
    metrics = json.loads((copy / "metrics.json").read_text())
    assert metrics["status"] == "unfinished" and metrics["success"] is False and metrics["all_completed"] is False
    tree = metrics["conditions"]["toa-async"]
    assert tree["seeds_completed"] == 2 and metrics["conditions"]["toa-relay"]["seeds_interrupted"] == 2
    assert metrics["conditions"]["toa-relay"]["time_cost_min"]["mean"] is None
    assert "interrupted" in (copy / "report.html").read_text()


def test_a_seed_that_raises_is_failed_with_its_cause_and_the_run_goes_on(tmp_path: Path, monkeypatch, capsys) -> None:
    from blockpact.llm.errors import LLMUnavailable
    from blockpact.experiments.play.org import run as org_run

    real = org_run.run_episode

    async def flaky(task, org, mode, seed, **kw):
        if seed == 1:
            raise LLMUnavailable("429 Too Many Requests after 3 retries")
        return await real(task, org, mode, seed, **kw)

    monkeypatch.setattr(org_run, "run_episode", flaky)
    out = tmp_path / "flaky"
    assert main(["org", "run", "collect-logs", "--amount", "4", "--workers", "1", "--seeds", "2", "--out", str(out)]) == 3
    assert "some seeds failed (endpoint)" in capsys.readouterr().err
    c = json.loads((out / "metrics.json").read_text())["conditions"]["toa-async"]
    assert c["seeds_completed"] == 1 and c["seeds_failed"] == 1 and c["time_cost_min"]["n"] == 1
    assert c["failures"]["endpoint"]["count"] == 1 and "429" in c["failures"]["endpoint"]["first"]
    assert "failed (endpoint)" in (out / "report.html").read_text()


def test_unknown_structures_and_modes_are_refused(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["org", "run", "collect-logs", "--structure", "toa,tower", "--out", str(tmp_path / "x")])
    assert "unknown structure tower" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["org", "run", "collect-logs", "--mode", "async,async", "--out", str(tmp_path / "x")])
    assert "listed twice" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_intervals() -> None:
    assert stat([]) == {"n": 0, "mean": None, "std": None, "ci95": None}
    assert stat([2.0])["ci95"] is None
    s = stat([1.0, 2.0, 3.0])
    assert s["mean"] == 2.0 and s["std"] == 1.0 and s["ci95"] == pytest.approx([2 - 4.303 / 3 ** 0.5, 2 + 4.303 / 3 ** 0.5], abs=1e-3)
    assert wilson(0, 0) is None and wilson(5, 5)[1] == 1.0 and 0.5 < wilson(5, 5)[0] < 0.6


def test_ctrl_c_leaves_a_valid_log_and_the_outputs_of_what_finished(tmp_path: Path, monkeypatch, capsys) -> None:
    from blockpact.experiments.play.org import run as org_run

    real = org_run.run_episode

    async def interrupted(task, org, mode, seed, **kw):
        if seed == 1:
            raise KeyboardInterrupt
        return await real(task, org, mode, seed, **kw)

    monkeypatch.setattr(org_run, "run_episode", interrupted)
    out = tmp_path / "stopped"
    assert main(["org", "run", "collect-logs", "--amount", "4", "--workers", "1", "--seeds", "3", "--out", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    metrics = json.loads((out / "metrics.json").read_text())
    c = metrics["conditions"]["toa-async"]
    assert metrics["status"] == "interrupted" and c["seeds_completed"] == 1 and c["seeds_interrupted"] == 2
    assert (out / "report.html").is_file()


def test_sigterm_stops_an_org_run_like_ctrl_c(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "terminated"
    process = subprocess.Popen([sys.executable, "-m", "blockpact.cli", "org", "run", "collect-logs", "--amount", "4",
                                "--workers", "1", "--seeds", "400", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (out / "events.jsonl").is_file() and '"org_end"' in (out / "events.jsonl").read_text():
                break
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143 and "interrupted (SIGTERM)" in err
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["status"] == "interrupted" and metrics["conditions"]["toa-async"]["seeds_completed"] >= 1
    assert (out / "report.html").is_file()


def test_an_endpoint_that_fails_mid_run_fails_the_org_seed_with_cause_endpoint(tmp_path, capsys) -> None:
    """The endpoint answers the pre-flight check, then 500 for good: the seed is `failed` (endpoint), not an
    organization that stopped thinking and was scored as not having finished its task."""
    from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
    from blockpact.experiments.plan.preflight import is_check_request

    def responder(request: dict) -> StubReply | str:
        return "ok" if is_check_request(request) else StubReply(status=500)

    out = tmp_path / "outage"
    no_retries = tmp_path / "llm.toml"
    no_retries.write_text("[retry]\nmax_retries = 0\n")  # the outage is for good: no back-off to wait through
    with OpenAIStub(responder=responder) as stub:
        code = main(["org", "run", "collect-logs", "--amount", "4", "--workers", "1", "--agents", "llm",
                     "--llm-base-url", stub.base_url, "--llm-model", "stub-model", "--no-llm-cache", "--out", str(out),
                     "--llm-config", str(no_retries)])
    assert code == 3
    assert "some seeds failed (endpoint)" in capsys.readouterr().err
    c = json.loads((out / "metrics.json").read_text())["conditions"]["toa-async"]
    assert c["seeds_failed"] == 1 and c["seeds_completed"] == 0 and "500" in c["failures"]["endpoint"]["first"]


def test_an_unreachable_endpoint_stops_an_org_run_before_anything_is_written(tmp_path, capsys) -> None:
    out = tmp_path / "nothing"
    no_retries = tmp_path / "llm.toml"
    no_retries.write_text("[retry]\nmax_retries = 0\n")  # nothing listens: no back-off to wait through
    code = main(["org", "run", "collect-logs", "--agents", "llm", "--llm-base-url", "http://127.0.0.1:9/v1",
                 "--llm-model", "m", "--out", str(out), "--llm-config", str(no_retries)])
    assert code == 1 and not out.exists()
    assert "127.0.0.1:9" in capsys.readouterr().err
