"""The endpoint check an LLM run makes once, before any unit starts (what `blockpact llm check` does):
the endpoint answers, offers every model the roles use, and completes a one-word prompt with each.

An endpoint that is down or has no such model stops the run here, with a clear message and nothing
written, instead of failing every unit one after the other. A server that answers 429 a few times and
then recovers passes (the client's retry policy applies; each request waits at most `timeout_s`).
"""

from __future__ import annotations

import asyncio
import dataclasses

from blockpact.llm.errors import LLMConfigError, LLMError, LLMNotFound, LLMRequestRejected
from blockpact.llm.settings import LLMSettings
from blockpact.errors import UserError
from blockpact.experiments.plan.settings import run_settings

CHECK_PROMPT = "Reply with the single word OK."


def is_check_request(body: object) -> bool:
    """Whether a chat request body is the pre-flight check's (for counting a run's own requests)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return bool(messages) and messages[-1].get("content") == CHECK_PROMPT


class EndpointCheckFailed(UserError):
    """The LLM endpoint cannot serve the run."""


def role_models(settings: LLMSettings) -> dict[str, str]:
    """One role per distinct model the run's roles use (model -> role)."""
    out: dict[str, str] = {}
    for name in sorted(settings.roles):
        model = settings.role(name).model or settings.model
        if model:
            out.setdefault(model, name)
    return out


def check_endpoint(settings: LLMSettings, timeout_s: float | None = None) -> None:
    """Raises EndpointCheckFailed (a UserError: exit 1, no traceback) when the run could not play."""
    limit = float(timeout_s if timeout_s is not None else run_settings().preflight.timeout_seconds)
    bounded = dataclasses.replace(settings, timeout_s=min(settings.timeout_s, limit))
    asyncio.run(_check(bounded))


async def _check(settings: LLMSettings) -> None:
    from blockpact.llm.client import LLMClient  # imports `openai`: only for LLM runs

    where = settings.base_url
    async with LLMClient(settings, use_cache=False) as client:
        try:
            try:
                offered = await client.list_models()
            except (LLMNotFound, LLMRequestRejected):
                offered = []  # the endpoint lists no models: the completions below tell
            models = role_models(settings)
            missing = [m for m in models if offered and m not in offered]
            if missing:
                raise EndpointCheckFailed(
                    f"the LLM endpoint {where} has no model {', '.join(repr(m) for m in missing)} "
                    f"(offered: {', '.join(offered)}); set --llm-model or the roles' models in --llm-config")
            for model, role in models.items():
                await client.complete(role, [{"role": "user", "content": CHECK_PROMPT}], model=model)
        except (LLMError, LLMConfigError) as exc:
            raise EndpointCheckFailed(
                f"the LLM endpoint {where} cannot serve this run, nothing was run: {type(exc).__name__}: {exc}. "
                "Check it with `blockpact llm check`") from None
