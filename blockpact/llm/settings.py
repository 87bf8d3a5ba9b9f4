"""LLM settings: package defaults (`llm.toml`) < user file < environment < command-line flags.

The API key is held in a `Secret` so that printing, logging or serializing settings can never
show it; only `Secret.reveal()` returns it, and only the HTTP backend calls that.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from blockpact.llm.errors import LLMConfigError, LLMNotConfigured
from blockpact.llm.settings_file import LLMFile, RoleTable
from blockpact.settings import SettingsError, load_settings

DEFAULTS_FILE = Path(__file__).with_name("llm.toml")
CONFIG_ENV = "BLOCKPACT_LLM_CONFIG"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "OPENAI_MODEL"
OPENAI_API_URL = "https://api.openai.com/v1"

# Role keys that configure the client rather than go into the request.
CLIENT_ROLE_KEYS = ("model", "temperature", "timeout_seconds")


class Secret:
    """A string that never shows itself in str(), repr() or f-strings."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__


@dataclass(frozen=True)
class RoleSettings:
    """How one role (action, critic, negotiator, judge, ...) samples."""

    model: str
    temperature: float
    params: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float | None = None  # None: the endpoint's timeout_s


@dataclass(frozen=True)
class Price:
    prompt_per_million: float
    completion_per_million: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt_per_million + completion_tokens * self.completion_per_million) / 1e6


@dataclass(frozen=True)
class RetryPolicy:
    """429/5xx/network failures are retried `max_retries` times with backoff; a call that ran out of
    time only `timeout_retries` times (a slow local model would otherwise take 5x its time)."""

    max_retries: int
    backoff_initial_s: float
    backoff_max_s: float
    retry_after_max_s: float
    timeout_retries: int = 1

    def delay(self, retry_number: int, retry_after_s: float | None) -> float:
        """Seconds to wait before retry `retry_number` (0-based); the server's Retry-After wins."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.retry_after_max_s)
        return min(self.backoff_initial_s * 2**retry_number, self.backoff_max_s)


@dataclass(frozen=True)
class LLMSettings:
    """Everything the LLM layer needs, resolved from all configuration sources."""

    base_url: str
    model: str
    api_key: Secret
    api_key_env: str
    timeout_s: float
    max_concurrent_requests: int
    retry: RetryPolicy
    cache_dir: Path | None
    roles: Mapping[str, RoleSettings]
    prices: Mapping[str, Price]
    sources: tuple[str, ...] = ()  # config files read, lowest precedence first
    chat_format: str = "auto"  # auto | native | merge_system (no system role: merged into the first user message)
    stream: str = "auto"  # auto | never | always

    def role(self, name: str) -> RoleSettings:
        """Settings of `name`, or of the default role when the name is not configured."""
        return self.roles.get(name) or self.roles["default"]

    def timeout_for(self, role: str) -> float:
        """Seconds one call of `role` may take, from sending to the last byte of the reply."""
        own = self.role(role).timeout_s
        return own if own is not None else self.timeout_s

    def with_timeout(self, seconds: float) -> LLMSettings:
        """Every role bounded by `seconds` (for `llm check --timeout`)."""
        roles = {name: replace(r, timeout_s=seconds) for name, r in self.roles.items()}
        return replace(self, timeout_s=seconds, roles=roles)

    def endpoint_problem(self) -> str | None:
        if self.base_url:
            return None
        return (
            f"no LLM endpoint configured: set {BASE_URL_ENV} (for a local server) or "
            f"{self.api_key_env} (for the OpenAI API), or pass --llm-base-url"
        )

    def model_problem(self, role: str | None = None) -> str | None:
        """Why `role` (or some role, when None) has no model."""
        roles = [self.role(role)] if role is not None else list(self.roles.values())
        if all(r.model for r in roles):
            return None
        return f"no LLM model configured: set {MODEL_ENV}, [endpoint] model in --llm-config, or pass --llm-model"

    def problem(self) -> str | None:
        """Why no LLM can be called with these settings, or None when one can."""
        return self.endpoint_problem() or self.model_problem()

    @property
    def configured(self) -> bool:
        return self.problem() is None

    def require_endpoint(self) -> None:
        if (problem := self.endpoint_problem()) is not None:
            raise LLMNotConfigured(problem)


def _default_cache_dir(environ: Mapping[str, str]) -> Path:
    root = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "blockpact" / "llm"


def load_llm_settings(
    config_file: str | Path | None = None,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    cache_dir: str | Path | None = None,
    no_cache: bool = False,
    environ: Mapping[str, str] | None = None,
) -> LLMSettings:
    """Resolve settings from every source; keyword arguments are the command-line flags."""
    env = os.environ if environ is None else environ
    sources = [DEFAULTS_FILE]
    user_file = config_file or env.get(CONFIG_ENV)
    if user_file:
        sources.append(Path(user_file).expanduser())
    try:
        file = load_settings(DEFAULTS_FILE, LLMFile, *sources[1:])
    except SettingsError as exc:
        raise LLMConfigError(str(exc)) from None
    endpoint, retry, cache = file.endpoint, file.retry, file.cache

    key_env = api_key_env or endpoint.api_key_env
    api_key = Secret(env.get(key_env, "").strip())
    url = base_url or env.get(BASE_URL_ENV) or endpoint.base_url or (OPENAI_API_URL if api_key else "")
    default_model = model or env.get(MODEL_ENV) or endpoint.model
    default_temperature = file.roles["default"].temperature
    assert default_temperature is not None  # LLMFile.settings_problems
    roles = {name: _role(table, default_model, default_temperature) for name, table in file.roles.items()}
    prices = {name: Price(p.prompt_per_million, p.completion_per_million) for name, p in file.prices.items()}
    if no_cache:
        resolved_cache: Path | None = None
    elif cache_dir is not None:
        resolved_cache = Path(cache_dir)
    elif not cache.enabled:
        resolved_cache = None
    else:
        resolved_cache = Path(cache.dir).expanduser() if cache.dir else _default_cache_dir(env)

    return LLMSettings(
        base_url=url.rstrip("/"),
        model=default_model,
        api_key=api_key,
        api_key_env=key_env,
        timeout_s=endpoint.timeout_seconds,
        max_concurrent_requests=endpoint.max_concurrent_requests,
        retry=RetryPolicy(
            max_retries=retry.max_retries,
            backoff_initial_s=retry.backoff_initial_seconds,
            backoff_max_s=retry.backoff_max_seconds,
            retry_after_max_s=retry.retry_after_max_seconds,
            timeout_retries=retry.timeout_retries,
        ),
        cache_dir=resolved_cache,
        roles=roles,
        prices=prices,
        sources=tuple(str(p) for p in sources),
        chat_format=endpoint.chat_format,
        stream=endpoint.stream,
    )


def _role(table: RoleTable, default_model: str, default_temperature: float) -> RoleSettings:
    """A role's settings: what it leaves out comes from the endpoint's model and [roles.default]'s temperature."""
    sent = {k: v for k, v in dataclasses.asdict(table).items() if v is not None and k not in CLIENT_ROLE_KEYS}
    return RoleSettings(model=table.model or default_model,
                        temperature=table.temperature if table.temperature is not None else default_temperature,
                        params=sent, timeout_s=table.timeout_seconds)


def llm_configured(settings: LLMSettings | None = None) -> bool:
    """Whether an LLM can be called; when not, commands use the scripted baseline agents."""
    try:
        return (settings or load_llm_settings()).configured
    except LLMConfigError:
        return False
