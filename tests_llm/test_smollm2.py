"""`make test-llm`: the whole LLM pipeline with a real model, SmolLM2-135M-Instruct on llama.cpp's
OpenAI-compatible server (127.0.0.1, a free port), never part of `make test`.

A 135M model rarely follows the formats; what is tested is that blockpact copes honestly: the run
finishes in bounded time, every reply it could not use is recorded as that agent's failure with the
reply's text, the report names the model with calls and tokens per role, and a re-run against the
same server on another port is answered from the cache. Figures go to tests_llm/last_run.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness.pace import slowdown

from blockpact.agents.critic import Critic, CriticError
from blockpact.agents.reflection import LLMReflector, Recollection, ReflectionError
from blockpact.llm import LLMClient, load_llm_settings, read_transcript
from blockpact.agents.testing.llama_server import PYTHON_ENV, LlamaServer
from blockpact.bridge.protocols import ProgramResult
from blockpact.experiments.log.records import read_run
from blockpact.worlds.world_files import load_world

BLOCKPACT = str(Path(sys.executable).with_name("blockpact"))
FIGURES = Path(__file__).with_name("last_run.json")
CONFIG = Path(__file__).with_name("llama_cpp.toml")  # one request at a time, as the server answers
RUN_LIMIT_S = 600  # the acceptance bound: both conditions of one seed in under 10 minutes on 2 idle cores

pytestmark = [
    pytest.mark.skipif(not os.environ.get(PYTHON_ENV), reason=f"needs {PYTHON_ENV} (run `make test-llm`)"),
    pytest.mark.timeout(RUN_LIMIT_S * 4 + 600),  # a whole run with a real model (the suite's default is 300 s)
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("smollm2")


@pytest.fixture(scope="module")
def server(workdir: Path) -> Iterator[LlamaServer]:
    with LlamaServer(log=workdir / "server-1.log") as running:
        yield running


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and k != "BLOCKPACT_LLM_CONFIG"}


def run(server: LlamaServer, out: Path, cache: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], float]:
    command = [BLOCKPACT, "run", "double_vein", "--agents", "llm", "--seeds", "1", "--out", str(out),
               "--llm-base-url", server.base_url, "--llm-model", server.model, "--llm-cache-dir", str(cache), "--llm-config", str(CONFIG), *flags]
    started = time.monotonic()
    done = subprocess.run(command, env=clean_env(), capture_output=True, text=True, timeout=RUN_LIMIT_S * 4 + 300)
    return done, time.monotonic() - started


def run_limit(load_before: float) -> float:
    """The wall bound of a run, stretched by how busy the machine was (the worse of before and after it): 10
    minutes on idle cores, not a failure when other jobs share them (pace.slowdown, at most 4x)."""
    return RUN_LIMIT_S * max(load_before, slowdown(refresh_after=0.0))


@pytest.fixture(scope="module")
def first_run(server: LlamaServer, workdir: Path) -> tuple[Path, float, subprocess.CompletedProcess[str], float]:
    out = workdir / "run"
    load_before = slowdown(refresh_after=0.0)
    done, wall = run(server, out, workdir / "cache")
    return out, wall, done, run_limit(load_before)


def test_double_vein_finishes_in_bounded_time_and_names_the_model(first_run, server: LlamaServer) -> None:
    out, wall, done, limit = first_run
    assert (out / "metrics.json").is_file(), done.stderr[-3000:]
    metrics = json.loads((out / "metrics.json").read_text())
    llm = metrics["llm"]
    FIGURES.write_text(json.dumps({"wall_s": round(wall, 1), "wall_bound_s": round(limit), "exit_status": done.returncode,
                                   "status": metrics["status"], "llm": llm,
                                   "conditions": {n: {k: c[k] for k in ("welfare", "gini", "seeds_finished")}
                                                  for n, c in metrics["conditions"].items()}}, indent=1) + "\n")
    assert wall < limit, f"{wall:.0f} s, bound {limit:.0f} s"
    assert metrics["status"] == "complete" and set(metrics["conditions"]) == {"none", "negotiate"}
    assert llm["model"] == server.model and llm["endpoint"] == server.base_url
    assert {"negotiator", "action"} <= set(llm["roles"])
    assert llm["total"]["calls"] > 0 and llm["total"]["completion_tokens"] > 0
    html = (out / "report.html").read_text()
    assert "<h2>LLM calls</h2>" in html and server.model in html
    assert "LLM calls: smollm2" in done.stdout


def test_every_unusable_reply_is_the_agents_failure_with_its_text(first_run) -> None:
    out, _, _, _ = first_run
    run_record = read_run(out / "events.jsonl")
    replies = {r.get("reply") for r in read_transcript(out / "transcripts" / "llm.jsonl")}
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    for event in events:
        data = event["data"]
        if event["kind"] == "program_result" and data.get("code") is None:
            assert data["error"].startswith("no runnable program in ") and data.get("replies") is not None
            assert all(reply in replies for reply in data["replies"])  # the texts the model wrote
        if event["kind"] == "negotiation_turn" and data.get("error"):
            assert data["raw"] in replies or data["raw"] == ""
        if event["kind"] == "judgment" and data["source"] == "llm" and not data["valid"]:
            assert data["error"] and data["problems"]
    for seed in run_record.seeds:
        assert seed.finished


def test_a_rerun_on_another_port_sends_no_request(first_run, workdir: Path) -> None:
    out, _, _, _ = first_run
    with LlamaServer(log=workdir / "server-2.log") as other:
        done, _ = run(other, workdir / "rerun", workdir / "cache")
    assert done.returncode == 0, done.stderr[-3000:]
    # the pre-flight check's one completion (never cached: it checks the server answers now) and no other
    assert (workdir / "server-2.log").read_text().count("POST /v1/chat/completions") == 1
    records = read_transcript(workdir / "rerun" / "transcripts" / "llm.jsonl")
    assert records and all(r["cached"] for r in records)
    first = json.loads((out / "metrics.json").read_text())["conditions"]
    again = json.loads((workdir / "rerun" / "metrics.json").read_text())["conditions"]
    assert again == first


async def reflect(settings: object) -> list[str] | ReflectionError:
    """A player's reflection after an episode, asked of the real model: lessons, or the error with its replies."""
    recollection = Recollection("Gizmo", "1. Gizmo mines all iron_ore.", "async function mine(bot) {}",
                                "Your inventory at the end: raw_iron: 3 (worth 9 emeralds to you).", "None.", (), ())
    async with LLMClient(settings) as client:
        try:
            return await LLMReflector(client, load_world("double_vein")).reflect(recollection)
        except ReflectionError as exc:
            return exc


def test_the_critic_and_the_judge_ask_the_real_model(server: LlamaServer, workdir: Path) -> None:
    """The critic is asked only about programs that ran to their end, which a 135M model rarely writes:
    ask it directly, and the reflection too (asked only between episodes). The judge runs in a run with a given
    contract."""
    settings = load_llm_settings(base_url=server.base_url, model=server.model, no_cache=True, environ={})
    result = ProgramResult("Gizmo", True, None, None, None, observation={"inventory": {"raw_iron": 3}, "time": 40.0})

    async def critique():
        async with LLMClient(settings) as client:
            try:
                return await Critic(client).critique("Mine 3 iron ore.", result)
            except CriticError as exc:
                return exc

    outcome = asyncio.run(critique())
    reflected = asyncio.run(reflect(settings))
    if isinstance(reflected, ReflectionError):
        assert reflected.replies and "no lesson" in str(reflected)
    else:
        assert 1 <= len(reflected) <= 5 and all(isinstance(lesson, str) and lesson for lesson in reflected)
    if isinstance(outcome, CriticError):
        assert outcome.replies and "no usable verdict" in str(outcome)
    else:
        assert outcome.source == "llm" and isinstance(outcome.success, bool)
    contract = "1. Gizmo mines all iron_ore.\n2. At the end of the scenario Gizmo transfers 9 emeralds to Glitch."
    done, _ = run(server, workdir / "judged", workdir / "cache", "--contract", contract)
    assert (workdir / "judged" / "metrics.json").is_file(), done.stderr[-3000:]
    (seed,) = read_run(workdir / "judged" / "events.jsonl").seeds
    llm_judgment = next(j for ep in seed.episodes for j in ep.judgments if j.source == "llm")
    assert llm_judgment.valid or (llm_judgment.error and llm_judgment.problems)
