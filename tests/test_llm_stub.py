"""The OpenAI-compatible stub speaks the real protocol: the real `openai` client talks to it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import openai
import pytest

from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from harness.pace import scaled


def client_for(stub: OpenAIStub, **kwargs: object) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-stub", base_url=stub.base_url, max_retries=0, **kwargs)


def test_chat_completion_has_the_real_shape_and_usage() -> None:
    with OpenAIStub(["the answer"]) as stub:
        reply = client_for(stub).chat.completions.create(
            model="some-model", messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": "a b c"}]
        )
    assert reply.object == "chat.completion"
    assert reply.id.startswith("chatcmpl-")
    assert reply.model == "some-model"
    assert reply.choices[0].message.role == "assistant"
    assert reply.choices[0].message.content == "the answer"
    assert reply.choices[0].finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (5, 2, 7)


def test_models_are_listed() -> None:
    with OpenAIStub(models=["alpha", "beta"]) as stub:
        assert [m.id for m in client_for(stub).models.list()] == ["alpha", "beta"]


def test_queue_then_responder_and_requests_are_recorded() -> None:
    def responder(request: dict) -> str:
        return f"t={request['temperature']}"

    with OpenAIStub(["first"], responder=responder) as stub:
        client = client_for(stub)
        texts = [
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}], temperature=t)
            .choices[0]
            .message.content
            for t in (0.1, 0.7)
        ]
        assert texts == ["first", "t=0.7"]
        assert [r.body["temperature"] for r in stub.chat_requests] == [0.1, 0.7]
        assert stub.chat_requests[0].headers["authorization"] == "Bearer sk-stub"


def test_injected_failures_arrive_as_the_real_api_sends_them() -> None:
    with OpenAIStub([StubReply.rate_limited("7"), StubReply.server_error(503), StubReply.slow(3.0)]) as stub:
        client = client_for(stub, timeout=scaled(5))  # the two errors come at once; a busy machine may take seconds
        messages = [{"role": "user", "content": "x"}]
        with pytest.raises(openai.RateLimitError) as rate:
            client.chat.completions.create(model="m", messages=messages)
        assert rate.value.response.headers["retry-after"] == "7"
        with pytest.raises(openai.InternalServerError) as server:
            client.chat.completions.create(model="m", messages=messages)
        assert server.value.status_code == 503
        with pytest.raises(openai.APITimeoutError):  # the reply is 3 s late: a 0.3 s timeout ends the wait, however busy
            client.with_options(timeout=0.3).chat.completions.create(model="m", messages=messages)


def test_required_key_is_checked() -> None:
    with OpenAIStub(api_key="sk-right") as stub:
        with pytest.raises(openai.AuthenticationError):
            client_for(stub).models.list()


def test_stop_frees_the_port_even_with_a_delayed_reply_pending() -> None:
    stub = OpenAIStub([StubReply.slow(30.0)]).start()
    port = stub.port
    client = client_for(stub, timeout=0.2)
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    stub.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_runs_from_the_command_line() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "blockpact.agents.testing.openai_stub", "--reply", "pong", "--model", "manual"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        base_url = first.split()[-1]
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        client = openai.OpenAI(api_key="x", base_url=base_url, max_retries=0, timeout=5)
        reply = client.chat.completions.create(model="manual", messages=[{"role": "user", "content": "ping"}])
        assert reply.choices[0].message.content == "pong"
    finally:
        os.kill(proc.pid, signal.SIGINT)
        proc.wait(timeout=10)
    assert proc.returncode == 0
