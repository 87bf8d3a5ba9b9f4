"""`blockpact llm check` through the real CLI entry point, against the stub."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import blockpact.cli
from blockpact.agents.testing.openai_stub import OpenAIStub, StubReply

KEY = "sk-cli-SECRET-91b2"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only what a test sets: never the developer's real endpoint, key or config file."""
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "BLOCKPACT_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    # Only this command group, so the test does not depend on the others being importable.
    monkeypatch.setattr(blockpact.cli, "COMMAND_GROUPS", ["blockpact.cli.llm"])


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = blockpact.cli.main(["llm", "check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_reports_models_and_a_reply(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIStub(["OK"], models=["llama3", "qwen"], api_key=KEY) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        code, out, err = check(capsys, "--llm-model", "qwen")
        [request] = stub.chat_requests
    assert code == 0, err
    assert f"endpoint: {stub.base_url}" in out and "models:   llama3, qwen" in out
    assert "'OK' from qwen" in out and "OK: the LLM endpoint answers" in out
    assert request.body["model"] == "qwen"
    assert KEY not in out + err


def test_endpoint_without_model_list_still_checks(capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAIStub(["OK"], models=None) as stub:
        code, out, _ = check(capsys, "--llm-base-url", stub.base_url, "--llm-model", "m")
    assert code == 0 and "models:   the endpoint does not list models" in out and "'OK' from m" in out


def test_no_endpoint_says_so_and_mentions_the_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys)
    assert code == 1 and out == ""
    assert "no LLM endpoint configured" in err and "scripted baseline agents unless told otherwise" in err
    assert "never falling back" in err
    assert "Traceback" not in err


def test_missing_model_lists_the_offered_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAIStub(models=["llama3"]) as stub:
        code, _, err = check(capsys, "--llm-base-url", stub.base_url)
        assert stub.chat_requests == []
    assert code == 1 and "no LLM model configured" in err and "(offered: llama3)" in err


def test_refused_key(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIStub(api_key="sk-another") as stub:
        code, out, err = check(capsys, "--llm-base-url", stub.base_url, "--llm-model", "m")
    assert code == 1
    assert err.startswith("blockpact: ") and "refused the API key (401" in err and "Traceback" not in err
    assert KEY not in out + err


def test_unreachable_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = check(capsys, "--llm-base-url", f"http://127.0.0.1:{port}/v1", "--llm-model", "m")
    assert code == 1 and f"cannot connect to http://127.0.0.1:{port}/v1" in err and "Traceback" not in err


def test_a_failing_completion_fails_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAIStub([StubReply.server_error(503)] * 2) as stub:
        code, _, err = check(capsys, "--llm-base-url", stub.base_url, "--llm-model", "m", "--retries", "1")
        assert len(stub.chat_requests) == 2
    assert code == 1 and "answered 503" in err
