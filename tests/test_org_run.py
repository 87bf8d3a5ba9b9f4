"""Organizations on the simulator: a tree of 1 leader + 3 scripted workers collects 50 logs and
builds the shelter; collaboration modes; the CLI with its run directory and structure errors; LLM
agents against the local stub; and an agent in its own process commanded through a real broker."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockpact.agents.broker import LocalBroker
from blockpact.agents.testing.hourglass_responder import hourglass_reply
from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import load_task
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.cli import main
from blockpact.experiments.play.org.episode import run_episode
from blockpact.experiments.log.run_events import read_events

BLOCKPACT = [sys.executable, "-m", "blockpact.cli"]


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def emit(self, kind, data, coords=None):
        self.events.append((kind, data))

    def messages(self):
        return [d for k, d in self.events if k == "message"]


def episode(task: str, amount: int | None, structure: str = "tree", mode: str = "async", workers: int = 3):
    recorder = Recorder()
    result = asyncio.run(run_episode(load_task(task, amount), organization(structure, workers), mode, 0, writer=recorder))
    return result, recorder


def test_tree_of_one_leader_and_three_workers_mines_50_logs() -> None:
    result, recorder = episode("collect-logs", 50)
    assert result.success and result.progress == [50, 50] and result.time_cost_min > 0
    messages = recorder.messages()
    commands = [m for m in messages if m["kind"] == "command"]
    assert {m["sender"] for m in commands} == {"Leader"}  # workers never delegate
    assert sorted(m["body"]["job"]["count"] for m in commands) == [16, 17, 17]
    reports = [m["body"]["text"] for m in messages if m["kind"] == "report"]
    assert sum(r.startswith("I'll start the task: collect") for r in reports) == 3
    assert any(r.startswith("I finished the task") and "My inventory: oak_log:" in r for r in reports)
    assert set(result.prompt_times) == {"Leader", "W1", "W2", "W3"} and result.mean_prompt_times > 0


def test_tree_builds_the_shelter_stage_by_stage() -> None:
    result, recorder = episode("shelter", None)
    assert result.success and result.progress == [55, 55]
    commands = [m["body"]["job"] for m in recorder.messages() if m["kind"] == "command"]
    # Foundation (the stone holder) before walls and door (the plank holders) before the roof.
    assert [c["item"] for c in commands][0] == "stone" and commands[-1]["item"] == "stone"
    door = [m for m in recorder.messages() if m["kind"] == "report" and "oak_door" in m["body"]["text"]]
    assert any("I finished the task" in m["body"]["text"] for m in door)


def test_relay_keeps_one_worker_busy_and_is_slower_than_async() -> None:
    relay, recorder = episode("collect-logs", 12, mode="relay")
    fast, _ = episode("collect-logs", 12, mode="async")
    assert relay.success and fast.success and relay.time_cost_min > fast.time_cost_min
    busy = set()
    for m in recorder.messages():
        if m["kind"] == "command":
            assert not busy, f"{m['recipients']} commanded while {busy} still worked"
            busy.add(m["recipients"][0])
        elif m["kind"] == "report" and m["body"]["status"] in ("success", "fail"):
            busy.discard(m["sender"])


def test_rounds_wait_for_everyone_before_the_next_round() -> None:
    result, recorder = episode("collect-stone", 6, mode="rounds", workers=2)
    assert result.success
    gos = [m for m in recorder.messages() if m["kind"] == "signal"]
    rounds = sorted({m["body"]["round"] for m in gos})
    assert rounds == list(range(1, len(rounds) + 1)) and len(rounds) > 3  # one own action per round
    for number in rounds[1:]:
        start = next(i for i, m in enumerate(recorder.messages()) if m["kind"] == "signal" and m["body"]["round"] == number)
        before = [m for m in recorder.messages()[:start] if m["kind"] == "report" and m["body"].get("round") == number - 1]
        assert {m["sender"] for m in before} <= {"W1", "W2"}


def test_cli_writes_the_run_directory(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["org", "run", "collect-logs", "--amount", "9", "--workers", "3", "--mode", "async", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "time to completion" in printed and "LLM calls" in printed and "scripted" in printed
    metrics = json.loads((out / "metrics.json").read_text())
    condition = metrics["conditions"]["toa-async"]
    assert metrics["success"] is True and isinstance(condition["time_cost_min"]["mean"], float)
    assert isinstance(condition["mean_prompt_times"]["mean"], float) and metrics["agents"] == "scripted"
    kinds = [e.kind for e in read_events(out / "events.jsonl").events]
    assert kinds.count("message") == condition["runs"][0]["messages"] and "world" in kinds and "hourglass" in kinds
    assert (out / "report.html").is_file() and (out / "plots" / "time_to_completion.svg").is_file()


def test_cli_reports_in_degree_violations_and_command_cycles(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('structure = "tree"\nagents = ["Lead", "Mid", "A"]\n[commands]\nLead = ["Mid", "A"]\nMid = ["A"]\n')
    assert main(["org", "run", "collect-logs", "--org", str(bad), "--out", str(tmp_path / "x")]) == 1
    assert "in-degree <= 1" in capsys.readouterr().err and not (tmp_path / "x").exists()
    cyclic = tmp_path / "cyclic.toml"
    cyclic.write_text('structure = "graph"\nagents = ["Lead", "A", "B"]\n[commands]\nLead = ["A", "B"]\nA = ["B"]\nB = ["A"]\n')
    assert main(["org", "run", "collect-logs", "--amount", "4", "--org", str(cyclic), "--out", str(tmp_path / "y")]) == 0
    printed = capsys.readouterr().out
    assert "Command cycles: A -> B -> A" in printed and "cyclic-async     100%" in printed


def test_llm_agents_complete_an_org_run_against_the_local_stub(tmp_path: Path, capsys) -> None:
    with OpenAIStub(responder=hourglass_reply) as stub:
        code = main(["org", "run", "collect-logs", "--amount", "12", "--agents", "llm", "--out", str(tmp_path / "llm"),
                     "--llm-base-url", stub.base_url, "--llm-model", "stub-model", "--no-llm-cache"])
        calls = len(stub.chat_requests)
    assert code == 0, capsys.readouterr()
    metrics = json.loads((tmp_path / "llm" / "metrics.json").read_text())
    assert metrics["agents"] == "llm" and metrics["success"] is True
    condition = metrics["conditions"]["toa-async"]
    answered = condition["llm_tokens"]["calls"]  # a call still thinking when the task was done is cancelled
    assert 0 < answered <= calls and condition["llm_tokens"]["prompt_tokens"] > 0
    assert condition["mean_prompt_times"]["mean"] == pytest.approx(answered / 4)  # each answered call counted for its agent
    transcript = (tmp_path / "llm" / "transcripts" / "llm.jsonl").read_text().splitlines()
    assert len(transcript) == answered


def test_a_worker_in_its_own_process_is_commanded_through_a_broker() -> None:
    with LocalBroker() as broker:
        url = f"{broker.url}/org-test"
        leader = subprocess.Popen([*BLOCKPACT, "agent", "--role", "leader", "--name", "Leader", "--world", "collect-logs",
                                   "--amount", "4", "--workers", "W1", "--broker", url, "--idle-timeout", "30"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        worker = None
        try:
            time.sleep(1.0)  # the worker joins late: it reads its command from the pool's history
            worker = subprocess.Popen([*BLOCKPACT, "agent", "--role", "worker", "--name", "W1", "--world", "collect-logs",
                                       "--broker", url, "--idle-timeout", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            lead_out, lead_err = leader.communicate(timeout=60)
            out, err = worker.communicate(timeout=60)
        finally:
            for process in (leader, worker):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.wait()
    assert leader.returncode == 0, lead_err
    assert "Leader (leader, scripted): objective met" in lead_out
    assert worker.returncode == 0, err
    assert "W1 (worker, scripted): stopped by a stop message" in out and "'oak_log': 4" in out


def test_a_solo_agent_builds_the_shelter_one_job_at_a_time() -> None:
    # Stage 2 gives the one agent both the walls and the door: the second waits for the first.
    result, _ = episode("shelter", None, structure="solo")
    assert result.success and result.progress == [55, 55]
