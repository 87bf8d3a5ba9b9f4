"""`LLMClient`: the one interface every role (action, critic, negotiator, judge, planners) calls.

A call resolves the role's model and sampling parameters, answers from the on-disk cache when it
can, otherwise sends the request with retries and exponential backoff, then records tokens and
cost and appends the call to the run's transcript.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from blockpact.llm.accounting import Accounting, Usage, cost_usd
from blockpact.llm.budget import Budget, LLMBudgetSpent
from blockpact.llm.backend import OpenAIBackend, RawReply, TransientFailure
from blockpact.llm.cache import ResponseCache
from blockpact.llm.errors import LLMNotConfigured, LLMUnavailable, LLMUnreachable
from blockpact.llm.gate import gated
from blockpact.llm.settings import BASE_URL_ENV, LLMSettings, load_llm_settings
from blockpact.llm.transcript import Transcript

Message = Mapping[str, Any]
T = TypeVar("T")


@dataclass(frozen=True)
class Completion:
    """A reply and what it cost. `cached` replies cost no HTTP request and no money.

    `usage` is the endpoint's (a cache hit keeps the original's); `attempts` counts HTTP requests
    made, retries included (0 for a cache hit).
    """

    text: str
    role: str
    model: str
    usage: Usage
    cost_usd: float
    cached: bool
    latency_s: float
    finish_reason: str | None = None
    response_id: str | None = None
    attempts: int = 1
    streamed: bool = False  # the server's reply was read from an event stream
    merged_system: bool = False  # sent with the system message merged into the first user message
    widened_cap: bool = False  # the first reply was cut at the token cap before any content: asked with twice it


@dataclass
class _Call:
    """What is known about one call while it runs, for the transcript."""

    role: str
    request: dict[str, Any]
    started: float = field(default_factory=time.monotonic)
    failures: list[dict[str, Any]] = field(default_factory=list)


class LLMClient:
    """Async chat completions for all roles of one run; `complete_sync` for synchronous callers.

    One client per run: it owns the run's accounting and transcript. Its HTTP connections belong
    to one event loop: use `async with client:` inside each `asyncio.run`. Raises `LLMNotConfigured`
    when no endpoint is configured (and, at call time, when the role has no model).
    """

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        transcript: str | Path | None = None,
        use_cache: bool = True,
        budget: Budget | None = None,
    ) -> None:
        self.settings = settings or load_llm_settings()
        self.budget = budget
        # Called with a summary of every call (role, model, endpoint, tokens, cost, latency, error):
        # how a run puts its LLM accounting into its event log.
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self.settings.require_endpoint()
        self._backend = OpenAIBackend(self.settings)
        cache_dir = self.settings.cache_dir
        self.cache = ResponseCache(cache_dir) if use_cache and cache_dir is not None else None
        self.transcript = Transcript(transcript) if transcript is not None else None
        self.accounting = Accounting()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close HTTP connections (of the running event loop)."""
        await self._backend.aclose()

    def _request_for(self, role: str, messages: Sequence[Message], overrides: Mapping[str, Any]) -> dict[str, Any]:
        """The full request a call sends: also its cache key and its transcript entry."""
        settings = self.settings.role(role)
        params: dict[str, Any] = {"temperature": settings.temperature, **settings.params, **overrides}
        model = params.pop("model", None) or settings.model
        if not model:
            raise LLMNotConfigured(self.settings.model_problem(role) or "no LLM model configured")
        # A JSON round trip normalizes tuples and fails early on values the API could not take.
        # No base URL: the same model answers the same on any port or host, so the cache is shared.
        normalized = json.loads(json.dumps({"messages": list(messages), "params": params}))
        return {"model": model, **normalized}

    async def complete(self, role: str, messages: Sequence[Message], **overrides: Any) -> Completion:
        """Ask the role's model; `overrides` (model, temperature, seed, max_tokens, ...) win over the role's.

        Raises `LLMBadReply`, `LLMUnavailable` or `LLMRequestRejected` (agents may handle these)
        and `LLMConfigError` subclasses for setup mistakes.
        """
        call = _Call(role, self._request_for(role, messages, overrides))
        if self.cache is not None and (hit := self.cache.get(call.request)) is not None:
            return self._finish(call, RawReply.from_json(hit), cached=True)
        request = call.request
        timeout = self.settings.timeout_for(role)
        try:
            self._check_budget()
            reply = await self._with_retries(
                lambda: gated(self.settings.base_url,  # a sweep's bound per endpoint across processes (gate.py)
                              lambda: self._backend.chat(request["model"], request["messages"], request["params"],
                                                         timeout)),
                call.failures,
            )
        except Exception as exc:
            self.accounting.record_failure(role, time.monotonic() - call.started)
            self._log(call, error=exc)
            self._tell(call, error=exc)
            raise
        if self.cache is not None:
            self.cache.put(call.request, reply.to_json())
        return self._finish(call, reply, cached=False)

    def _check_budget(self) -> None:
        if self.budget is None:
            return
        total = self.accounting.total()
        spent = self.budget.spent(total.sent_tokens, total.cost_usd)
        if spent >= self.budget.amount:
            raise LLMBudgetSpent(f"the LLM budget of {self.budget.describe()} is spent "
                                 f"({self.budget.describe(spent)} used); no further request is sent")

    def complete_sync(self, role: str, messages: Sequence[Message], **overrides: Any) -> Completion:
        """`complete` for code that runs no event loop (scripts, notebooks without a loop)."""

        async def once() -> Completion:
            try:
                return await self.complete(role, messages, **overrides)
            finally:
                await self.aclose()

        return asyncio.run(once())

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers (raises `LLMNotFound` if it has no /models)."""
        return await self._with_retries(self._backend.list_models, [])

    async def _with_retries(self, send: Callable[[], Awaitable[T]], failures: list[dict[str, Any]]) -> T:
        """`send()`, retried with backoff on transient failures, each logged into `failures`."""
        policy = self.settings.retry
        retry = timeouts = 0
        while True:
            try:
                return await send()
            except TransientFailure as failure:
                if failure.timed_out:
                    timeouts += 1
                if retry == policy.max_retries or timeouts > policy.timeout_retries:
                    failures.append({"error": str(failure), "status": failure.status, "retry_in_s": None})
                    tries = f"{retry + 1} attempt{'s' if retry else ''}"
                    if failure.unreachable:
                        raise LLMUnreachable(
                            f"{failure} ({tries}). Is the server running and the base URL right? "
                            f"(set {BASE_URL_ENV} or --llm-base-url)"
                        ) from None
                    raise LLMUnavailable(f"{failure} ({tries})") from None
                wait = policy.delay(retry, failure.retry_after_s)
                failures.append({"error": str(failure), "status": failure.status, "retry_in_s": round(wait, 3)})
                await asyncio.sleep(wait)
                retry += 1

    def _finish(self, call: _Call, reply: RawReply, *, cached: bool) -> Completion:
        cost = cost_usd(self.settings.prices, reply.usage, reply.model, call.request["model"])
        completion = Completion(
            text=reply.text,
            role=call.role,
            model=reply.model or call.request["model"],
            usage=reply.usage,
            cost_usd=cost,
            cached=cached,
            latency_s=time.monotonic() - call.started,
            finish_reason=reply.finish_reason,
            response_id=reply.response_id,
            attempts=len(call.failures) + (0 if cached else 1),
            streamed=reply.streamed,
            merged_system=reply.merged_system,
            widened_cap=reply.widened_cap,
        )
        self.accounting.record(call.role, reply.usage, cost, cached, completion.latency_s)
        self._log(call, completion=completion)
        self._tell(call, completion=completion)
        return completion

    def _tell(self, call: _Call, *, completion: Completion | None = None, error: Exception | None = None) -> None:
        """Every listener gets the call's accounting (never the messages, never the key)."""
        if not self.listeners:
            return
        usage = completion.usage if completion is not None else None
        record = {
            "role": call.role,
            "model": call.request["model"],
            "reply_model": completion.model if completion is not None else None,
            "base_url": self.settings.base_url,
            "prompt_tokens": usage.prompt_tokens if usage else 0,
            "completion_tokens": usage.completion_tokens if usage else 0,
            "estimated": usage.estimated if usage else False,
            "cost_usd": completion.cost_usd if completion is not None else 0.0,
            "cached": completion.cached if completion is not None else False,
            "latency_s": round(time.monotonic() - call.started, 4),
            "attempts": completion.attempts if completion is not None else len(call.failures),
            "finish_reason": completion.finish_reason if completion is not None else None,
            "error": f"{type(error).__name__}: {self._backend.redact(str(error))}" if error is not None else None,
        }
        for listener in self.listeners:
            listener(record)

    def _log(self, call: _Call, *, completion: Completion | None = None, error: Exception | None = None) -> None:
        if self.transcript is None:
            return
        record: dict[str, Any] = {
            "time": time.time(),
            "role": call.role,
            "base_url": self.settings.base_url,
            "request": call.request,
            "failed_attempts": call.failures,
            "latency_s": round(time.monotonic() - call.started, 4),
        }
        if completion is not None:
            record |= {
                "reply": completion.text,
                "model": completion.model,
                "usage": {"prompt_tokens": completion.usage.prompt_tokens,
                          "completion_tokens": completion.usage.completion_tokens,
                          "estimated": completion.usage.estimated},
                "streamed": completion.streamed,
                "merged_system": completion.merged_system,
                "widened_cap": completion.widened_cap,
                "cost_usd": completion.cost_usd,
                "cached": completion.cached,
                "finish_reason": completion.finish_reason,
                "response_id": completion.response_id,
            }
        if error is not None:
            record |= {"cached": False, "error": {"type": type(error).__name__, "message": self._backend.redact(str(error))}}
        self.transcript.append(record)
