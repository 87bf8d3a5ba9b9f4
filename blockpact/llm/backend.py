"""One HTTP request to an OpenAI-compatible endpoint through the `openai` package.

No retries and no cache here (the client does both, so it can log every attempt); this module
only sends, parses, and turns the package's exceptions into the layer's own error types.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import openai

from blockpact.llm.accounting import Usage
from blockpact.llm.errors import (
    LLMAuthError,
    LLMBadReply,
    LLMError,
    LLMNotFound,
    LLMRequestRejected,
)
from blockpact.llm.settings import LLMSettings
from blockpact.llm.wire import (
    Body,
    NotACompletion,
    completion_from_events,
    estimate_prompt_tokens,
    estimate_tokens,
    has_system,
    html_summary,
    merge_system,
    read_body,
    refuses_max_tokens,
    refuses_system_role,
    refuses_temperature,
    refuses_whole_replies,
)

# Sent when the endpoint needs no key (local servers): the `openai` package insists on one.
NO_KEY_PLACEHOLDER = "no-key"
# Statuses worth retrying besides 5xx: request timeout, conflict, rate limit.
RETRYABLE_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RawReply:
    """The parts of a chat completion the layer keeps (and caches), and how it was obtained."""

    text: str
    model: str
    usage: Usage
    finish_reason: str | None
    response_id: str | None
    streamed: bool = False  # read from an event stream
    merged_system: bool = False  # sent without a system message (the template has no system role)
    widened_cap: bool = False  # the first reply was cut at the token cap with no content: asked again with twice it

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "usage": asdict(self.usage)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RawReply:
        return cls(**{**data, "usage": Usage(**data["usage"])})


class TransientFailure(Exception):
    """A failure worth retrying; `unreachable` marks connection failures (no answer at all),
    `timed_out` a call that ran out of time (retried less often)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None,
                 unreachable: bool = False, timed_out: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable
        self.timed_out = timed_out


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds asked for by `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class Redactor:
    """Removes the API key from any text that may leave the process (messages, logs, files)."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def __call__(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        if isinstance(body.get("detail"), str):  # FastAPI servers (llama-cpp-python)
            return str(body["detail"])
    text = body if isinstance(body, str) else _response_text(exc)
    if text and (summary := html_summary(text)) is not None:
        return f"an HTML error page ({summary!r})"
    return exc.message


def _response_text(exc: openai.APIStatusError) -> str:
    try:
        return exc.response.text
    except Exception:  # noqa: BLE001 - a streamed body not read: no text to show
        return ""


def _doubled_cap(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """`params` with twice the token cap they set, or None when they set none (the server's own cap)."""
    for key in ("max_completion_tokens", "max_tokens"):
        if isinstance(params.get(key), int):
            return {**params, key: 2 * params[key]}
    return None


def _usage(body: Body, messages: Sequence[Mapping[str, Any]], text: str | None = None) -> Usage:
    """Tokens as the server reported them, or estimated from the text when it reported none."""
    estimated = body.prompt_tokens is None or body.completion_tokens is None
    return Usage(
        prompt_tokens=body.prompt_tokens if body.prompt_tokens is not None else estimate_prompt_tokens(messages),
        completion_tokens=(body.completion_tokens if body.completion_tokens is not None
                           else estimate_tokens(text if text is not None else body.text or "")),
        estimated=estimated,
    )


class OpenAIBackend:
    """Sends requests with an `AsyncOpenAI` client bound to one event loop until `aclose`."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.redact = Redactor(settings.api_key.reveal())
        self._openai: openai.AsyncOpenAI | None = None
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # How this endpoint is spoken to, learnt from its refusals (chat_format / stream "auto").
        self.merge_system = settings.chat_format == "merge_system"
        self.stream = settings.stream == "always"
        # Reasoning models (o-series, GPT-5) refuse `max_tokens` (they count hidden reasoning against
        # `max_completion_tokens`) and any temperature but their default: learnt from the first refusal.
        self.max_completion_tokens = False
        self.default_temperature = False

    def _client(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._loop is not None and self._loop is not loop:
            # Its connections belong to the other loop and cannot be closed from this one.
            raise RuntimeError(
                "LLMClient used from a second event loop while still open: use `async with client:` "
                "(or `await client.aclose()`) before the first loop ends, or `complete_sync`"
            )
        if self._openai is None or self._slots is None:
            self._openai = openai.AsyncOpenAI(
                api_key=self.settings.api_key.reveal() or NO_KEY_PLACEHOLDER,
                base_url=self.settings.base_url,
                timeout=self.settings.timeout_s,
                max_retries=0,  # retried (and logged) by LLMClient
            )
            self._slots = asyncio.Semaphore(self.settings.max_concurrent_requests)
            self._loop = loop
        return self._openai, self._slots

    async def aclose(self) -> None:
        if self._openai is not None and self._loop is asyncio.get_running_loop():
            await self._openai.close()
        self._openai = self._slots = self._loop = None

    async def chat(self, model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any],
                   timeout_s: float | None = None) -> RawReply:
        """One chat completion within `timeout_s` (from sending to the reply's last byte, queueing for a
        slot not included); raises TransientFailure, an LLMError or an LLMConfigError."""
        client, slots = self._client()
        timeout = timeout_s or self.settings.timeout_s
        async with slots:
            try:
                return await asyncio.wait_for(self._adapting(client, model, messages, params, timeout), timeout)
            except (asyncio.TimeoutError, openai.APITimeoutError):
                raise TransientFailure(f"no answer from {self.settings.base_url} within {timeout:g} s",
                                       timed_out=True) from None

    async def _adapting(self, client: openai.AsyncOpenAI, model: str, messages: Sequence[Mapping[str, Any]],
                        params: Mapping[str, Any], timeout: float) -> RawReply:
        """Send; when the server refuses a system message or a whole (non-streamed) reply, send again
        the way it accepts, and keep doing so for this endpoint (settings chat_format / stream: auto)."""
        cut: Body | None = None  # a reply cut at the cap before any content, asked again with twice the cap
        while True:
            merged = self.merge_system and has_system(messages)
            sent = merge_system(messages) if merged else list(messages)
            sent_params = self._adapted(params)
            try:
                if self.stream:
                    body = await self._streamed(client, model, sent, sent_params, timeout)
                else:
                    raw = await client.chat.completions.with_raw_response.create(
                        model=model, messages=sent, timeout=timeout, **sent_params)
                    body = read_body(raw.http_response.text)
            except openai.APIStatusError as exc:
                message = _server_message(exc)
                if "max_tokens" in sent_params and refuses_max_tokens(exc.status_code, message):
                    self.max_completion_tokens = True
                    continue
                if "temperature" in sent_params and refuses_temperature(exc.status_code, message):
                    self.default_temperature = True
                    continue
                if (self.settings.chat_format == "auto" and not merged and has_system(messages)
                        and refuses_system_role(exc.status_code, message)):
                    self.merge_system = True
                    continue
                if self.settings.stream == "auto" and not self.stream and refuses_whole_replies(exc.status_code, message):
                    self.stream = True
                    continue
                raise self._translate(exc, model) from None
            except NotACompletion as exc:
                raise LLMBadReply(f"{self.settings.base_url} returned {self.redact(str(exc))}") from None
            except Exception as exc:  # noqa: BLE001 - every failure is translated below
                raise self._translate(exc, model) from None
            if cut is None and body.finish_reason == "length" and not (body.text or "").strip() \
                    and (wider := _doubled_cap(params)) is not None:
                cut, params = body, wider
                continue
            return self._reply(body, sent, streamed=body.streamed, merged=merged, cut=cut)

    def _adapted(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """`params` as this endpoint takes them (what it refused so far renamed or left out)."""
        adapted = dict(params)
        if self.max_completion_tokens and "max_tokens" in adapted:
            cap = adapted.pop("max_tokens")
            adapted.setdefault("max_completion_tokens", cap)
        if self.default_temperature:
            adapted.pop("temperature", None)
        return adapted

    async def _streamed(self, client: openai.AsyncOpenAI, model: str, messages: Sequence[Mapping[str, Any]],
                        params: Mapping[str, Any], timeout: float) -> Body:
        stream = await client.chat.completions.create(model=model, messages=messages, stream=True, timeout=timeout,
                                                      **params)
        chunks = [chunk async for chunk in stream]
        return completion_from_events(chunks)

    def _reply(self, body: Body, messages: Sequence[Mapping[str, Any]], *, streamed: bool, merged: bool,
               cut: Body | None = None) -> RawReply:
        """The reply kept; its usage counts the tokens of a cut first reply too (they were spent)."""
        if body.text is None or not body.text.strip():
            again = " (also after asking again with twice the token cap)" if cut is not None else ""
            raise LLMBadReply(
                f"{self.settings.base_url} returned empty content (finish_reason={body.finish_reason!r}){again}"
            )
        usage = _usage(body, messages)
        if cut is not None:
            spent = _usage(cut, messages, text="")
            usage = Usage(usage.prompt_tokens + spent.prompt_tokens, usage.completion_tokens + spent.completion_tokens,
                          usage.estimated or spent.estimated)
        return RawReply(body.text, body.model, usage, body.finish_reason, body.response_id, streamed=streamed,
                        merged_system=merged, widened_cap=cut is not None)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers; raises like `chat` (404 means it offers no list)."""
        client, slots = self._client()
        async with slots:
            try:
                page = await asyncio.wait_for(client.models.list(), self.settings.timeout_s)
            except asyncio.TimeoutError:
                raise TransientFailure(f"no answer from {self.settings.base_url} within {self.settings.timeout_s:g} s",
                                       timed_out=True) from None
            except Exception as exc:  # noqa: BLE001 - translated below
                raise self._translate(exc, None) from None
        return [m.id for m in page.data]

    def _translate(self, exc: Exception, model: str | None) -> Exception:
        """The layer's error for an exception of the `openai` package, with the key redacted."""
        url = self.settings.base_url
        if isinstance(exc, openai.APITimeoutError):
            return TransientFailure(f"no answer from {url} within {self.settings.timeout_s:g} s", timed_out=True)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f": {self.redact(str(cause))}" if cause else ""
            return TransientFailure(f"cannot connect to {url}{detail}", unreachable=True)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = self.redact(_server_message(exc))
            if status >= 500 or status in RETRYABLE_STATUSES:
                return TransientFailure(
                    f"{url} answered {status}: {message}",
                    status=status,
                    retry_after_s=retry_after_seconds(exc.response.headers),
                )
            if status in (401, 403):
                key_hint = (
                    f"check the key in ${self.settings.api_key_env}"
                    if self.settings.api_key
                    else f"set ${self.settings.api_key_env} to an API key"
                )
                return LLMAuthError(f"{url} refused the API key ({status}: {message}); {key_hint}")
            if status == 404:
                what = f"model '{model}'" if model else "this path"
                return LLMNotFound(
                    f"{url} answered 404 for {what}: {message}. Check the model name and the base URL "
                    "(OpenAI-compatible servers usually end in /v1)"
                )
            return LLMRequestRejected(f"{url} rejected the request ({status}): {message}")
        if isinstance(exc, (openai.APIResponseValidationError, ValueError)):
            return LLMBadReply(f"{url} returned a malformed response body: {self.redact(str(exc))}")
        if isinstance(exc, openai.OpenAIError):
            return LLMError(self.redact(str(exc)))
        return exc
