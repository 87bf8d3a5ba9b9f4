"""The schema of `llm.toml` and of a user's override file (any subset of the same keys; new roles and
prices may be added). `settings.py` resolves it, with the environment and flags, into LLMSettings."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from blockpact.settings import bounds


@dataclass(frozen=True)
class EndpointTable:
    base_url: str  # empty: OPENAI_BASE_URL, else the OpenAI API when a key is set
    model: str  # empty: OPENAI_MODEL
    api_key_env: str  # the variable holding the key (the key itself is never in a file)
    timeout_seconds: float = bounds(ge=0.001)
    max_concurrent_requests: int = bounds(ge=1)
    chat_format: Literal["auto", "native", "merge_system"]
    stream: Literal["auto", "never", "always"]


@dataclass(frozen=True)
class RetryTable:
    max_retries: int = bounds(ge=0)
    timeout_retries: int = bounds(ge=0)
    backoff_initial_seconds: float = bounds(ge=0)
    backoff_max_seconds: float = bounds(ge=0)
    retry_after_max_seconds: float = bounds(ge=0)


@dataclass(frozen=True)
class CacheTable:
    enabled: bool
    dir: str  # empty: $XDG_CACHE_HOME/blockpact/llm, else ~/.cache/blockpact/llm


@dataclass(frozen=True)
class RoleTable:
    """One role's sampling; keys left out come from the endpoint (model) and [roles.default] (temperature).
    Besides model, temperature and timeout_seconds, every key set is sent with the request as it is."""

    model: str | None = None
    temperature: float | None = bounds(ge=0, le=2, default=None)
    timeout_seconds: float | None = bounds(gt=0, default=None)  # this role's per-call deadline
    max_tokens: int | None = bounds(ge=1, default=None)
    top_p: int | float | None = None
    seed: int | None = None
    stop: str | list[str] | None = None
    presence_penalty: int | float | None = None
    frequency_penalty: int | float | None = None


@dataclass(frozen=True)
class PriceTable:
    prompt_per_million: float = 0.0
    completion_per_million: float = 0.0


@dataclass(frozen=True)
class LLMFile:
    endpoint: EndpointTable
    retry: RetryTable
    cache: CacheTable
    roles: dict[str, RoleTable]
    prices: dict[str, PriceTable]

    def settings_problems(self) -> Iterator[tuple[str, str]]:
        if "default" not in self.roles or self.roles["default"].temperature is None:
            yield "roles.default.temperature", "missing (roles that set no temperature use it)"
