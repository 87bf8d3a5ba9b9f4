"""A run's LLM settings as recorded in its run_start event, and back: everything that shapes a request
(endpoint, models, sampling, the response cache) but never the key, only the name of the variable
holding it, so `blockpact resume` asks the same endpoint the same way and hits the same cache."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from blockpact.llm.settings import LLMSettings, Price, RetryPolicy, RoleSettings, Secret
from blockpact.errors import UserError


def settings_record(settings: LLMSettings) -> dict[str, Any]:
    return {
        "base_url": settings.base_url,
        "model": settings.model,
        "api_key_env": settings.api_key_env,
        "timeout_s": settings.timeout_s,
        "max_concurrent_requests": settings.max_concurrent_requests,
        "retry": dataclasses.asdict(settings.retry),
        "cache_dir": str(settings.cache_dir) if settings.cache_dir is not None else None,
        "roles": {name: {"model": r.model, "temperature": r.temperature, "params": dict(r.params),
                         "timeout_s": r.timeout_s}
                  for name, r in sorted(settings.roles.items())},
        "chat_format": settings.chat_format,
        "stream": settings.stream,
        "prices": {name: dataclasses.asdict(p) for name, p in sorted(settings.prices.items())},
        "sources": list(settings.sources),
    }


def settings_from_record(record: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> LLMSettings:
    """The recorded settings, with the key read again from the recorded variable."""
    env = os.environ if environ is None else environ
    try:
        key_env = str(record["api_key_env"])
        cache_dir = record["cache_dir"]
        return LLMSettings(
            base_url=str(record["base_url"]),
            model=str(record["model"]),
            api_key=Secret(env.get(key_env, "").strip()),
            api_key_env=key_env,
            timeout_s=float(record["timeout_s"]),
            max_concurrent_requests=int(record["max_concurrent_requests"]),
            retry=RetryPolicy(**record["retry"]),
            cache_dir=Path(cache_dir) if cache_dir is not None else None,
            roles={name: RoleSettings(r["model"], float(r["temperature"]), dict(r.get("params", {})), r.get("timeout_s"))
                   for name, r in record["roles"].items()},
            prices={name: Price(**p) for name, p in record["prices"].items()},
            sources=tuple(record.get("sources", ())),
            chat_format=str(record.get("chat_format", "auto")),
            stream=str(record.get("stream", "auto")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(f"run_start: the recorded LLM settings are unusable ({type(exc).__name__}: {exc})") from None
