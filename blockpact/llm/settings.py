"""LLM settings: package defaults (`llm.toml`) < user file < environment < command-line flags.

The API key is held in a `Secret` so that printing, logging or serializing settings can never
show it; only `Secret.reveal()` returns it, and only the HTTP backend calls that.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from blockpact.llm.errors import LLMConfigError, LLMNotConfigured
from blockpact.config import read_toml

DEFAULTS_FILE = Path(__file__).with_name("llm.toml")
CONFIG_ENV = "BLOCKPACT_LLM_CONFIG"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "OPENAI_MODEL"
OPENAI_API_URL = "https://api.openai.com/v1"

# Sampling parameters a role may set besides model and temperature, with their TOML types.
ROLE_PARAMS: dict[str, tuple[type, ...]] = {
    "model": (str,),
    "temperature": (int, float),
    "max_tokens": (int,),
    "top_p": (int, float),
    "seed": (int,),
    "stop": (str, list),
    "presence_penalty": (int, float),
    "frequency_penalty": (int, float),
    "timeout_seconds": (int, float),  # not sent: this role's per-call deadline (default: [endpoint])
}
# Role keys that configure the client rather than go into the request.
CLIENT_ROLE_KEYS = ("model", "temperature", "timeout_seconds")
CHAT_FORMATS = ("auto", "native", "merge_system")
STREAM_MODES = ("auto", "never", "always")

PRICE_PARAMS: dict[str, tuple[type, ...]] = {
    "prompt_per_million": (int, float),
    "completion_per_million": (int, float),
}
# Tables whose entries are named by the user (roles, models), each entry with a fixed schema.
OPEN_TABLES: dict[str, dict[str, tuple[type, ...]]] = {"roles": ROLE_PARAMS, "prices": PRICE_PARAMS}


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


def _type_ok(value: Any, allowed: tuple[type, ...]) -> bool:
    return isinstance(value, allowed) and (bool in allowed or not isinstance(value, bool))


def _merge(base: Mapping[str, Any], override: Mapping[str, Any], where: str, path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Deep-merge `override` into `base`, rejecting keys and types the defaults do not know."""
    merged = dict(base)
    for key, value in override.items():
        here = (*path, key)
        dotted = ".".join(here)
        if len(path) == 2 and path[0] in OPEN_TABLES:  # roles.<name>.<key>, prices.<model>.<key>
            allowed = OPEN_TABLES[path[0]].get(key)
            if allowed is None:
                known = ", ".join(OPEN_TABLES[path[0]])
                raise LLMConfigError(f"{where}: unknown key '{dotted}' (allowed: {known})")
            if not _type_ok(value, allowed):
                raise LLMConfigError(f"{where}: '{dotted}' must be {' or '.join(t.__name__ for t in allowed)}")
            merged[key] = value
        elif len(path) == 1 and path[0] in OPEN_TABLES:  # a new role or model name is fine
            if not isinstance(value, Mapping):
                raise LLMConfigError(f"{where}: '{dotted}' must be a table")
            merged[key] = _merge(base.get(key, {}), value, where, here)
        elif key not in base:
            raise LLMConfigError(f"{where}: unknown key '{dotted}'")
        elif isinstance(base[key], Mapping):
            if not isinstance(value, Mapping):
                raise LLMConfigError(f"{where}: '{dotted}' must be a table")
            merged[key] = _merge(base[key], value, where, here)
        else:
            default = base[key]
            allowed = (int, float) if isinstance(default, float) else (type(default),)
            if not _type_ok(value, allowed):
                raise LLMConfigError(f"{where}: '{dotted}' must be {type(default).__name__}, got {type(value).__name__}")
            merged[key] = value
    return merged


def _number(table: Mapping[str, Any], key: str, where: str, minimum: float) -> float:
    value = table[key]
    if value < minimum:
        raise LLMConfigError(f"{where}: '{key}' must be at least {minimum}, got {value}")
    return float(value)


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
    raw = read_toml(DEFAULTS_FILE, LLMConfigError)
    sources = [str(DEFAULTS_FILE)]
    user_file = config_file or env.get(CONFIG_ENV)
    if user_file:
        path = Path(user_file).expanduser()
        raw = _merge(raw, read_toml(path, LLMConfigError), str(path))
        sources.append(str(path))
    where = sources[-1]
    endpoint, retry, cache = raw["endpoint"], raw["retry"], raw["cache"]

    key_env = api_key_env or endpoint["api_key_env"]
    api_key = Secret(env.get(key_env, "").strip())
    url = base_url or env.get(BASE_URL_ENV) or endpoint["base_url"] or (OPENAI_API_URL if api_key else "")
    default_model = model or env.get(MODEL_ENV) or endpoint["model"]

    roles = {
        name: RoleSettings(
            model=table.get("model") or default_model,
            temperature=float(table.get("temperature", raw["roles"]["default"]["temperature"])),
            params={k: v for k, v in table.items() if k not in CLIENT_ROLE_KEYS},
            timeout_s=float(table["timeout_seconds"]) if "timeout_seconds" in table else None,
        )
        for name, table in raw["roles"].items()
    }
    for name, role in roles.items():
        if not 0.0 <= role.temperature <= 2.0:
            raise LLMConfigError(f"{where}: 'roles.{name}.temperature' must be within 0..2, got {role.temperature}")
        if role.timeout_s is not None and role.timeout_s <= 0:
            raise LLMConfigError(f"{where}: 'roles.{name}.timeout_seconds' must be positive, got {role.timeout_s:g}")
        if int(role.params.get("max_tokens", 1)) < 1:
            raise LLMConfigError(f"{where}: 'roles.{name}.max_tokens' must be at least 1, got {role.params['max_tokens']}")
    for key, allowed in (("chat_format", CHAT_FORMATS), ("stream", STREAM_MODES)):
        if endpoint[key] not in allowed:
            raise LLMConfigError(f"{where}: 'endpoint.{key}' must be one of {', '.join(allowed)}, got {endpoint[key]!r}")
    prices = {
        name: Price(float(p.get("prompt_per_million", 0.0)), float(p.get("completion_per_million", 0.0)))
        for name, p in raw["prices"].items()
    }
    if no_cache:
        resolved_cache: Path | None = None
    elif cache_dir is not None:
        resolved_cache = Path(cache_dir)
    elif not cache["enabled"]:
        resolved_cache = None
    else:
        resolved_cache = Path(cache["dir"]).expanduser() if cache["dir"] else _default_cache_dir(env)

    return LLMSettings(
        base_url=url.rstrip("/"),
        model=default_model,
        api_key=api_key,
        api_key_env=key_env,
        timeout_s=_number(endpoint, "timeout_seconds", where, 0.001),
        max_concurrent_requests=int(_number(endpoint, "max_concurrent_requests", where, 1)),
        retry=RetryPolicy(
            max_retries=int(_number(retry, "max_retries", where, 0)),
            backoff_initial_s=_number(retry, "backoff_initial_seconds", where, 0.0),
            backoff_max_s=_number(retry, "backoff_max_seconds", where, 0.0),
            retry_after_max_s=_number(retry, "retry_after_max_seconds", where, 0.0),
            timeout_retries=int(_number(retry, "timeout_retries", where, 0)),
        ),
        cache_dir=resolved_cache,
        roles=roles,
        prices=prices,
        sources=tuple(sources),
        chat_format=endpoint["chat_format"],
        stream=endpoint["stream"],
    )


def llm_configured(settings: LLMSettings | None = None) -> bool:
    """Whether an LLM can be called; when not, commands use the scripted baseline agents."""
    try:
        return (settings or load_llm_settings()).configured
    except LLMConfigError:
        return False
