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

from blockpact.agents.llm.accounting import Usage
from blockpact.agents.llm.errors import (
    LLMAuthError,
    LLMBadReply,
    LLMError,
    LLMNotFound,
    LLMRequestRejected,
)
from blockpact.agents.llm.settings import LLMSettings

# Sent when the endpoint needs no key (local servers): the `openai` package insists on one.
NO_KEY_PLACEHOLDER = "no-key"
# Statuses worth retrying besides 5xx: request timeout, conflict, rate limit.
RETRYABLE_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RawReply:
    """The parts of a chat completion the layer keeps (and caches)."""

    text: str
    model: str
    usage: Usage
    finish_reason: str | None
    response_id: str | None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "usage": asdict(self.usage)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RawReply:
        return cls(**{**data, "usage": Usage(**data["usage"])})


class TransientFailure(Exception):
    """A failure worth retrying; `unreachable` marks connection failures (no answer at all)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None,
                 unreachable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable


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
    return exc.message


class OpenAIBackend:
    """Sends requests with an `AsyncOpenAI` client bound to one event loop until `aclose`."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.redact = Redactor(settings.api_key.reveal())
        self._openai: openai.AsyncOpenAI | None = None
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

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

    async def chat(self, model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> RawReply:
        """One chat completion; raises TransientFailure, an LLMError or an LLMConfigError."""
        client, slots = self._client()
        async with slots:
            try:
                response = await client.chat.completions.create(model=model, messages=messages, **params)
            except Exception as exc:  # noqa: BLE001 - every failure is translated below
                raise self._translate(exc, model) from None
        return self._parse(response)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers; raises like `chat` (404 means it offers no list)."""
        client, slots = self._client()
        async with slots:
            try:
                page = await client.models.list()
            except Exception as exc:  # noqa: BLE001 - translated below
                raise self._translate(exc, None) from None
        return [m.id for m in page.data]

    def _parse(self, response: Any) -> RawReply:
        choices = getattr(response, "choices", None)
        if not choices:
            raise LLMBadReply(f"{self.settings.base_url} returned a completion without choices")
        choice = choices[0]
        text = getattr(getattr(choice, "message", None), "content", None)
        if not isinstance(text, str) or not text.strip():
            raise LLMBadReply(
                f"{self.settings.base_url} returned empty content (finish_reason={choice.finish_reason!r})"
            )
        usage = getattr(response, "usage", None)
        return RawReply(
            text=text,
            model=str(getattr(response, "model", None) or ""),
            usage=Usage(
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            ),
            finish_reason=choice.finish_reason,
            response_id=getattr(response, "id", None),
        )

    def _translate(self, exc: Exception, model: str | None) -> Exception:
        """The layer's error for an exception of the `openai` package, with the key redacted."""
        url = self.settings.base_url
        if isinstance(exc, openai.APITimeoutError):
            return TransientFailure(f"no answer from {url} within {self.settings.timeout_s:g} s")
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
