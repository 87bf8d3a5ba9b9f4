"""`blockpact run --agents llm` against a local server that behaves like OpenAI's reasoning models: it refuses
`max_tokens` and a temperature other than 1, and spends hidden reasoning tokens under the cap, answering a
cap it leaves no room under with empty content and finish_reason "length". The run still completes."""

from __future__ import annotations

import json
from pathlib import Path

from blockpact.llm import read_transcript
from blockpact.agents.testing.openai_stub import OpenAIStub
from blockpact.agents.testing.protocol_responder import ProtocolResponder
from blockpact.agents.testing.stub_quirks import ServerQuirks
from blockpact.experiments.plan.preflight import is_check_request
from blockpact.worlds.world_files import load_world
from test_run_llm import KEY, llm_env, run_against  # noqa: F401 - llm_env is a fixture

# More than the skill role's cap (192) and less than twice it: each skill reply is cut once, then answered.
REASONING_TOKENS = 250


def test_a_run_against_a_reasoning_model_completes(llm_env, tmp_path: Path) -> None:  # noqa: F811
    quirks = ServerQuirks(reasoning_model=True, reasoning_tokens=REASONING_TOKENS)
    with OpenAIStub(responder=ProtocolResponder(load_world("double_vein")), api_key=KEY, quirks=quirks) as stub:
        code = run_against(stub, "double_vein", tmp_path / "run", "--seeds", "1", "--episodes", "2")
        bodies = [r.body for r in stub.chat_requests if not is_check_request(r.body)]
    assert code == 0
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["status"] == "complete"
    assert all(c["seeds_finished"] == 1 for c in metrics["conditions"].values())
    answered = [b for b in bodies if "max_tokens" not in b and "temperature" not in b]
    refused = [b for b in bodies if b not in answered]
    assert refused and all(isinstance(b.get("max_completion_tokens"), int) for b in answered)
    records = read_transcript(tmp_path / "run" / "transcripts" / "llm.jsonl")
    assert records and all(r["reply"] for r in records)
    roles = {r["role"] for r in records}
    assert {"negotiator", "action", "critic", "skill", "judge"} <= roles
    # every skill call (cap 192) was cut by the reasoning and asked again with 384; the others fit their caps
    skill = [r for r in records if r["role"] == "skill"]
    assert all(r["widened_cap"] for r in skill) and not any(r["widened_cap"] for r in records if r["role"] != "skill")
    for record in skill:  # the cut reply's 192 tokens are counted with the kept one's reasoning and text
        assert record["usage"]["completion_tokens"] > 192 + REASONING_TOKENS
    # each call answered once, except those cut, answered twice
    assert len(answered) == len(records) + len(skill)
    caps = [b["max_completion_tokens"] for b in answered]
    assert caps.count(192) == len(skill) and caps.count(384) >= len(skill)  # (the critic's cap is 384 too)
