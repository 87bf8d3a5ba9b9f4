"""Setup mistakes give clear messages, and the API key never leaves the HTTP header."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from blockpact.llm import LLMAuthError, LLMClient, LLMNotFound, LLMUnreachable
from blockpact.llm.settings import Secret
from blockpact.agents.testing.llm_settings import stub_settings
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply
from blockpact.errors import UserError

KEY = "sk-proj-SECRET-4f9a1c77e2"
HELLO = [{"role": "user", "content": "hello"}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_endpoint_is_a_user_error_naming_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    client = LLMClient(stub_settings(url, max_retries=1))
    with pytest.raises(LLMUnreachable) as exc:
        client.complete_sync("action", HELLO)
    assert isinstance(exc.value, UserError)
    message = str(exc.value)
    assert f"cannot connect to {url}" in message and "2 attempts" in message and "OPENAI_BASE_URL" in message


def test_refused_key_is_a_user_error_with_the_key_redacted(tmp_path: Path) -> None:
    with OpenAIStub(api_key="sk-the-right-one") as stub:  # the stub echoes the wrong key back
        client = LLMClient(stub_settings(stub, api_key=KEY), transcript=tmp_path / "t.jsonl")
        with pytest.raises(LLMAuthError) as exc:
            client.complete_sync("judge", HELLO)
        assert len(stub.chat_requests) == 1  # a refused key is not retried
    assert isinstance(exc.value, UserError)
    assert "refused the API key (401" in str(exc.value) and "$OPENAI_API_KEY" in str(exc.value)
    assert KEY not in str(exc.value) and KEY not in (tmp_path / "t.jsonl").read_text()


def test_forbidden_and_missing_key_say_what_to_do() -> None:
    with OpenAIStub([StubReply(status=403, error_message="project has no access")]) as stub:
        with pytest.raises(LLMAuthError, match=r"403: project has no access\); set \$OPENAI_API_KEY"):
            LLMClient(stub_settings(stub)).complete_sync("action", HELLO)


def test_unknown_model_points_at_the_model_and_url() -> None:
    with OpenAIStub([StubReply(status=404, error_message="model 'lama3' not found")]) as stub:
        with pytest.raises(LLMNotFound, match=r"404 for model 'lama3'.*base URL"):
            LLMClient(stub_settings(stub, model="lama3")).complete_sync("action", HELLO)


def test_the_key_is_sent_but_never_written_or_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the openai and HTTP libraries' debug logs included
    transcript = tmp_path / "run" / "llm.jsonl"
    cache = tmp_path / "cache"
    with OpenAIStub(["fine", StubReply.rate_limited("0"), StubReply.empty(), "later"], api_key=KEY) as stub:
        settings = stub_settings(stub, api_key=KEY, cache_dir=cache)
        client = LLMClient(settings, transcript=transcript)
        errors = []
        for messages in (HELLO, [{"role": "user", "content": "two"}]):
            try:
                client.complete_sync("negotiator", messages)
            except Exception as exc:  # noqa: BLE001 - collected to check their text
                errors.append(exc)
        client.complete_sync("negotiator", HELLO)  # a cache hit
        assert stub.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 2 and errors
    for text in [*written, *map(str, errors), caplog.text, repr(settings), repr(client.accounting.to_dict())]:
        assert KEY not in text
    assert isinstance(settings.api_key, Secret)
