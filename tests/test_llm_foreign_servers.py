"""The real `openai` client against local servers that behave like real non-OpenAI ones: bounded
calls (max_tokens, stop, a deadline per call, few retries of a time-out), chat templates without a
system role, servers that only stream, HTML error pages, no usage reported, and `llm check --timeout`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from harness.pace import scaled

import blockpact.cli
from blockpact.llm import LLMBadReply, LLMClient, LLMUnavailable, read_transcript
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.agents.testing.stub_quirks import ServerQuirks

CONVERSATION = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}]


def ask(client: LLMClient, role: str = "critic", messages: list | None = None):
    return client.complete_sync(role, messages or CONVERSATION)


def test_every_role_is_bounded_by_default() -> None:
    with OpenAIStub() as stub:
        client = LLMClient(stub_settings(stub))
        for role in ("action", "critic", "skill", "judge", "negotiator", "planner", "anything_else"):
            ask(client, role)
        bodies = {r.body["max_tokens"] for r in stub.chat_requests}
        negotiator = stub.chat_requests[4].body
    assert bodies == {1024, 384, 192, 512, 768}
    assert negotiator["stop"] == ["\nRound "]  # a model writing the next round's turn itself is cut there


def test_a_stalled_server_is_abandoned_at_the_deadline_and_retried_once(tmp_path: Path) -> None:
    """The stub sends headers and keep-alive bytes forever: only a deadline on the whole call ends it."""
    with OpenAIStub([StubReply.stalled()] * 6) as stub:
        settings = stub_settings(stub, timeout_s=0.5, max_retries=4)
        client = LLMClient(settings, transcript=tmp_path / "t.jsonl")
        started = time.monotonic()
        with pytest.raises(LLMUnavailable, match=r"no answer from .* within 0.5 s \(2 attempts\)"):
            ask(client)
        elapsed = time.monotonic() - started
        deadline = time.monotonic() + scaled(2)  # a busy machine's stub may record the second request late
        while len(stub.chat_requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(stub.chat_requests) == 2  # timeout_retries = 1, although 4 retries are allowed for 5xx
    assert elapsed < scaled(3.0)
    [record] = read_transcript(tmp_path / "t.jsonl")
    assert len(record["failed_attempts"]) == 2


def test_server_errors_still_get_every_retry() -> None:
    with OpenAIStub([StubReply.server_error()] * 3 + ["back"]) as stub:
        assert ask(LLMClient(stub_settings(stub, max_retries=4))).text == "back"
        assert len(stub.chat_requests) == 4


def test_a_role_may_have_its_own_deadline(tmp_path: Path) -> None:
    config = tmp_path / "llm.toml"
    config.write_text("[roles.judge]\ntimeout_seconds = 0.3\n")
    judge_asks = [{"role": "user", "content": "Judge this."}]

    def answer(request: dict) -> StubReply:  # by what is asked, not by arrival: a busy machine may drop a timed-out request unread
        return StubReply.slow(1.0, "late" if request["messages"] == judge_asks else "in time")

    with OpenAIStub(responder=answer) as stub:
        from blockpact.llm import load_llm_settings

        settings = load_llm_settings(config, base_url=stub.base_url, model="m", no_cache=True, environ={})
        client = LLMClient(settings)
        with pytest.raises(LLMUnavailable, match="within 0.3 s"):
            ask(client, "judge", judge_asks)
        assert ask(client, "critic").text == "in time"  # the endpoint's 120 s


def test_a_template_without_a_system_role_gets_the_system_text_in_the_first_user_message(tmp_path: Path) -> None:
    with OpenAIStub(["hi", "again"], quirks=ServerQuirks(no_system_role=True)) as stub:
        client = LLMClient(stub_settings(stub), transcript=tmp_path / "t.jsonl")
        first, second = ask(client), ask(client, messages=[*CONVERSATION, {"role": "assistant", "content": "hi"},
                                                           {"role": "user", "content": "more"}])
        sent = [r.body["messages"] for r in stub.chat_requests]
    assert first.text == "hi" and second.text == "again" and first.merged_system and second.merged_system
    # refused once, then merged; the endpoint is remembered, so the second call is merged at once
    assert len(sent) == 3 and sent[0] == CONVERSATION
    assert sent[1] == [{"role": "user", "content": "You are terse.\n\nSay hi."}]
    assert [m["role"] for m in sent[2]] == ["user", "assistant", "user"]
    assert all(r["merged_system"] for r in read_transcript(tmp_path / "t.jsonl"))


def test_a_server_that_only_streams_is_read_as_a_stream_and_its_tokens_estimated(tmp_path: Path) -> None:
    with OpenAIStub(["a streamed reply of six words", "two"], quirks=ServerQuirks(stream_only=True)) as stub:
        client = LLMClient(stub_settings(stub), transcript=tmp_path / "t.jsonl")
        reply = ask(client)
        ask(client, messages=[{"role": "user", "content": "again"}])
        streamed = [r.body.get("stream") for r in stub.chat_requests]
    assert reply.text == "a streamed reply of six words" and reply.streamed
    assert streamed == [None, True, True]  # refused once; streaming from then on
    # no usage in the stream (none asked for): estimated from the text, and marked so
    assert reply.usage.estimated and reply.usage.completion_tokens == 8  # 29 characters / 4
    records = read_transcript(tmp_path / "t.jsonl")
    assert all(r["usage"]["estimated"] and r["streamed"] for r in records)
    assert client.accounting.by_role()["critic"].estimated_calls == 2


def test_an_event_stream_sent_unasked_is_read() -> None:
    with OpenAIStub(["streamed anyway"], quirks=ServerQuirks(always_stream=True)) as stub:
        reply = ask(LLMClient(stub_settings(stub)))
        assert stub.chat_requests[0].body.get("stream") is None
    assert reply.text == "streamed anyway" and reply.streamed and not reply.usage.estimated


def test_no_usage_reported_means_estimated_tokens() -> None:
    with OpenAIStub(["twelve characters"], quirks=ServerQuirks(report_usage=False)) as stub:
        reply = ask(LLMClient(stub_settings(stub)))
    # prompt: "You are terse." (14 chars -> 4) + "Say hi." (7 -> 2) + 4 per message; completion 17 chars -> 5
    assert reply.usage.estimated and (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (14, 5)


def test_an_html_error_page_is_named_as_such_and_retried_like_any_5xx() -> None:
    with OpenAIStub([StubReply.html_error(502, "Bad Gateway")] * 2) as stub:
        with pytest.raises(LLMUnavailable) as caught:
            ask(LLMClient(stub_settings(stub, max_retries=1)))
        assert len(stub.chat_requests) == 2
    message = str(caught.value)
    assert "answered 502: an HTML error page ('502 Bad Gateway" in message and "choices" not in message


def test_an_html_page_with_status_200_is_a_bad_reply_that_names_the_base_url() -> None:
    with OpenAIStub([StubReply.html_error(200, "Welcome")]) as stub:
        with pytest.raises(LLMBadReply, match=r"returned an HTML page \('200 Welcome.*base URL"):
            ask(LLMClient(stub_settings(stub)))


def test_added_latency_delays_every_call() -> None:
    with OpenAIStub(quirks=ServerQuirks(latency_s=0.3)) as stub:
        started = time.monotonic()
        ask(LLMClient(stub_settings(stub)))
        assert time.monotonic() - started >= 0.3


@pytest.fixture
def cli_only_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setattr(blockpact.cli, "COMMAND_GROUPS", ["blockpact.cli.llm"])


def test_llm_check_timeout_bounds_the_wait_on_a_stalled_server(cli_only_llm, capsys) -> None:
    with OpenAIStub([StubReply.stalled()] * 3) as stub:
        started = time.monotonic()
        code = blockpact.cli.main(["llm", "check", "--llm-base-url", stub.base_url, "--llm-model", "stub-model",
                                   "--timeout", "1"])
        elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 1 and elapsed < 5
    assert "(timeout 1 s)" in out and "no answer from" in err and "within 1 s" in err


REASONING = ServerQuirks(reasoning_model=True)


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature_and_the_endpoint_is_remembered(
        tmp_path: Path) -> None:
    with OpenAIStub(["thought it through", "again"], quirks=REASONING) as stub:
        client = LLMClient(stub_settings(stub), transcript=tmp_path / "t.jsonl")
        first, second = ask(client), ask(client, "action")
        bodies = [r.body for r in stub.chat_requests]
    assert first.text == "thought it through" and second.text == "again"
    # refused for max_tokens, then for temperature, then answered; the second call is sent right at once
    assert len(bodies) == 4
    assert "max_tokens" in bodies[0] and "temperature" in bodies[0]
    assert "max_tokens" not in bodies[1] and bodies[1]["max_completion_tokens"] == 384 and "temperature" in bodies[1]
    for body in bodies[2:]:
        assert "max_tokens" not in body and "temperature" not in body
    assert bodies[3]["max_completion_tokens"] == 1024  # the action role's own cap, renamed
    assert [r["reply"] for r in read_transcript(tmp_path / "t.jsonl")] == ["thought it through", "again"]


def test_an_ordinary_server_keeps_max_tokens_and_temperature() -> None:
    with OpenAIStub(["hi"]) as stub:
        ask(LLMClient(stub_settings(stub)))
        [body] = [r.body for r in stub.chat_requests]
    assert "max_tokens" in body and "temperature" in body and "max_completion_tokens" not in body


def test_a_reply_cut_by_hidden_reasoning_is_asked_again_once_with_twice_the_cap(tmp_path: Path) -> None:
    quirks = ServerQuirks(reasoning_model=True, reasoning_tokens=300)
    with OpenAIStub(responder=lambda _req: "four words of answer", quirks=quirks) as stub:
        client = LLMClient(stub_settings(stub), transcript=tmp_path / "t.jsonl")
        reply = ask(client, "skill")  # the skill role's cap, 192, is all spent on reasoning
        caps = [r.body.get("max_completion_tokens") for r in stub.chat_requests]
    assert reply.text == "four words of answer" and reply.finish_reason == "stop" and reply.widened_cap
    # max_tokens refused, then the temperature, then the reply cut, then the one with twice the cap
    assert caps == [None, 192, 192, 384]
    # both replies' tokens are counted: 192 spent on the cut one, 300 reasoning + 4 visible on the kept one
    assert reply.usage.completion_tokens == 192 + 304
    [record] = read_transcript(tmp_path / "t.jsonl")
    assert record["widened_cap"] is True


def test_a_reply_cut_again_at_twice_the_cap_is_a_bad_reply() -> None:
    quirks = ServerQuirks(reasoning_model=True, reasoning_tokens=5000)
    with OpenAIStub(responder=lambda _req: "never seen", quirks=quirks) as stub:
        with pytest.raises(LLMBadReply, match=r"empty content \(finish_reason='length'\) \(also after asking again "
                                              r"with twice the token cap\)"):
            ask(LLMClient(stub_settings(stub, max_retries=0)), "skill")
        caps = [r.body.get("max_completion_tokens") for r in stub.chat_requests]
    assert caps[-2:] == [192, 384]  # asked again once only
