"""LLM settings aimed at an `OpenAIStub`, for tests of any layer that calls an LLM."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from blockpact.llm.settings import LLMSettings, load_llm_settings
from blockpact.agents.testing.openai_stub import OpenAIStub


def stub_settings(
    stub: OpenAIStub | str,
    *,
    model: str = "stub-model",
    cache_dir: Path | None = None,
    api_key: str | None = None,
    timeout_s: float = 5.0,
    max_retries: int = 2,
    backoff_s: float = 0.01,
) -> LLMSettings:
    """Package defaults pointed at `stub` (or a base URL), with fast retries, ignoring the user's
    environment and config file (so a developer's real key or endpoint never enters a test)."""
    base_url = stub if isinstance(stub, str) else stub.base_url
    environ = {"OPENAI_API_KEY": api_key} if api_key else {}
    settings = load_llm_settings(
        base_url=base_url, model=model, cache_dir=cache_dir, no_cache=cache_dir is None, environ=environ
    )
    retry = dataclasses.replace(
        settings.retry, max_retries=max_retries, backoff_initial_s=backoff_s, backoff_max_s=backoff_s * 8
    )
    return dataclasses.replace(settings, timeout_s=timeout_s, retry=retry)
