"""`blockpact run --parallel N`: units (condition, seed) play at once against the stub over HTTP, and the
outcome is the one of a run that plays them one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.agents.testing.stub_quirks import ServerQuirks
from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.experiments.log.run_events import read_events
from blockpact.worlds.world_files import load_world


@pytest.fixture(autouse=True)
def llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def llm_run(out: Path, *flags: str) -> int:
    with OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), quirks=ServerQuirks(latency_s=0.05)) as stub:
        return main(["run", "double_vein", "--agents", "llm", "--out", str(out), "--llm-base-url", stub.base_url,
                     "--llm-model", "stub-model", "--no-llm-cache", "--seeds", "2", *flags])


def test_a_parallel_run_has_the_outcome_of_a_sequential_one(tmp_path: Path) -> None:
    assert llm_run(tmp_path / "seq") == 0
    assert llm_run(tmp_path / "par", "--parallel", "4") == 0
    seq, par = (json.loads((tmp_path / d / "metrics.json").read_text()) for d in ("seq", "par"))
    assert par["conditions"] == seq["conditions"] and par["status"] == "complete"
    for key in ("calls", "prompt_tokens", "completion_tokens"):
        assert par["llm"]["total"][key] == seq["llm"]["total"][key]
    # the units really overlapped: a second unit started before the first one ended
    events = read_events(tmp_path / "par" / "events.jsonl").events
    order = [(e.kind, e.coords.condition, e.coords.seed) for e in events if e.kind in ("seed_start", "seed_end")]
    assert [k for k, _, _ in order[:2]] == ["seed_start", "seed_start"]
    # every call is logged under its own unit
    run = read_run(tmp_path / "par" / "events.jsonl")
    assert all(len(s.llm_calls) > 0 for s in run.seeds) and len(run.seeds) == 4


def test_parallel_must_be_positive(tmp_path: Path, capsys) -> None:
    assert main(["run", "double_vein", "--parallel", "0", "--out", str(tmp_path / "x")]) == 1
    assert "--parallel must be at least 1" in capsys.readouterr().err
