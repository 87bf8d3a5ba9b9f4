"""The response cache: a re-run costs zero HTTP requests, and any change to the request misses."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from blockpact.llm import LLMClient, read_transcript
from blockpact.llm.cache import ResponseCache, request_key
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply

MESSAGES = [{"role": "system", "content": "you mine"}, {"role": "user", "content": "what next?"}]


def run_experiment(stub: OpenAIStub, cache_dir: Path, transcript: Path) -> list[str]:
    client = LLMClient(stub_settings(stub, cache_dir=cache_dir), transcript=transcript)
    return [
        client.complete_sync("negotiator", MESSAGES).text,
        client.complete_sync("judge", MESSAGES).text,
        client.complete_sync("judge", MESSAGES, seed=3).text,
    ]


def test_rerun_is_answered_from_cache_with_zero_http_requests(tmp_path: Path) -> None:
    with OpenAIStub(["n1", "j1", "j2", "never", "never", "never"]) as stub:
        first = run_experiment(stub, tmp_path / "cache", tmp_path / "run1.jsonl")
        sent = len(stub.chat_requests)
        second = run_experiment(stub, tmp_path / "cache", tmp_path / "run2.jsonl")
        assert len(stub.chat_requests) == sent == 3
    assert second == first == ["n1", "j1", "j2"]
    rerun = read_transcript(tmp_path / "run2.jsonl")
    assert [r["cached"] for r in rerun] == [True, True, True]
    assert [r["usage"] for r in rerun] == [r["usage"] for r in read_transcript(tmp_path / "run1.jsonl")]


def test_cached_replies_cost_nothing_but_keep_their_tokens(tmp_path: Path) -> None:
    with OpenAIStub([StubReply("x", prompt_tokens=100, completion_tokens=10, model="gpt-4o")]) as stub:
        settings = stub_settings(stub, cache_dir=tmp_path)
        paid = LLMClient(settings).complete_sync("action", MESSAGES)
        rerun = LLMClient(settings)
        hit = rerun.complete_sync("action", MESSAGES)
    assert not paid.cached and hit.cached and hit.attempts == 0
    totals = rerun.accounting.by_role()["action"]
    assert (totals.calls, totals.cached_calls, totals.prompt_tokens, totals.cost_usd) == (1, 1, 100, 0.0)
    assert totals.cached_cost_usd == pytest.approx(paid.cost_usd) and paid.cost_usd > 0


@pytest.mark.parametrize(
    "change",
    [
        {"temperature": 0.5},
        {"seed": 1},
        {"max_tokens": 10},
        {"top_p": 0.9},
        {"model": "another"},
        {"messages": [{"role": "user", "content": "something else"}]},
    ],
)
def test_anything_that_shapes_the_reply_is_part_of_the_key(change: dict, tmp_path: Path) -> None:
    with OpenAIStub() as stub:
        client = LLMClient(stub_settings(stub, cache_dir=tmp_path))
        client.complete_sync("action", MESSAGES)
        overrides = {k: v for k, v in change.items() if k != "messages"}
        again = client.complete_sync("action", change.get("messages", MESSAGES), **overrides)
        assert not again.cached and len(stub.chat_requests) == 2


def test_the_same_model_on_another_port_is_answered_from_the_cache(tmp_path: Path) -> None:
    """The key is what determines the reply (model, messages, sampling), not where the server listens."""
    with OpenAIStub(["from A"]) as a, OpenAIStub(["from B"]) as b:
        assert LLMClient(stub_settings(a, cache_dir=tmp_path)).complete_sync("action", MESSAGES).text == "from A"
        again = LLMClient(stub_settings(b, cache_dir=tmp_path)).complete_sync("action", MESSAGES)
        assert again.text == "from A" and again.cached and b.chat_requests == []


def test_entries_describe_their_request(tmp_path: Path) -> None:
    with OpenAIStub(["stored"]) as stub:
        LLMClient(stub_settings(stub, cache_dir=tmp_path)).complete_sync("critic", MESSAGES)
    [entry_file] = tmp_path.rglob("*.json")
    entry = json.loads(entry_file.read_text())
    assert entry["request"]["messages"] == MESSAGES and entry["request"]["params"] == {"temperature": 0.1, "max_tokens": 384}
    assert "base_url" not in entry["request"]
    assert entry["reply"]["text"] == "stored"
    assert entry_file.stem == request_key(entry["request"])


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    request = {"base_url": "http://x/v1", "model": "m", "messages": MESSAGES, "params": {}}
    big = "y" * 200_000  # large enough that a non-atomic write would be seen half done
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(20):
                cache.put(request, {"text": f"{n}-{i}-{big}"})
                seen = cache.get(request)
                assert seen is not None and seen["text"].endswith(big)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{request_key(request)}.json"]
