"""What goes over the wire to servers that are not OpenAI's: bodies read whatever their content type
(JSON, an event stream sent although none was asked for, an HTML error page), chat templates without
a system role, and token counts estimated when a server reports none.

Pure functions, no I/O: the backend sends, this module reads and reshapes.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Documented approximation when a server reports no usage: OpenAI's rule of thumb of ~4 characters
# of English text per token, plus a few tokens of chat-template framing per message. Counts made
# this way are marked `estimated` wherever they are shown.
CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
# What servers say when a chat template has no system role (vLLM/HF "System role not supported",
# llama.cpp "... only user and assistant roles are supported", Ollama/LM Studio variants).
_NO_SYSTEM = re.compile(r"system.{0,40}(not supported|unsupported|not allowed|invalid|unknown)|"
                        r"(only|must).{0,40}(user|assistant).{0,40}(roles?|alternate)|roles must alternate",
                        re.IGNORECASE | re.DOTALL)
_STREAM_ONLY = re.compile(r"stream", re.IGNORECASE)
# What OpenAI's reasoning models (o-series, GPT-5) answer to `max_tokens` and to a temperature other than the
# default: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens'
# instead." and "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1)
# value is supported."
_REFUSED = r"(not supported|unsupported|does not support|only the default|not allowed|invalid)"
_NO_MAX_TOKENS = re.compile(r"\bmax_tokens\b.{0,80}" + _REFUSED + r"|" + _REFUSED + r".{0,80}\bmax_tokens\b|"
                            r"\buse\W+max_completion_tokens", re.IGNORECASE | re.DOTALL)
_NO_TEMPERATURE = re.compile(r"\btemperature\b.{0,80}" + _REFUSED + r"|" + _REFUSED + r".{0,80}\btemperature\b",
                             re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Body:
    """A chat completion as read from a body: text None when there was none."""

    text: str | None
    model: str
    finish_reason: str | None
    response_id: str | None
    prompt_tokens: int | None  # None: the server reported no usage
    completion_tokens: int | None
    streamed: bool = False  # read from an event stream


class NotACompletion(ValueError):
    """The body is no chat completion; the message says what it is instead."""


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content or "")


def estimate_prompt_tokens(messages: Iterable[Mapping[str, Any]]) -> int:
    return sum(estimate_tokens(message_text(m)) + TOKENS_PER_MESSAGE for m in messages)


def has_system(messages: Sequence[Mapping[str, Any]]) -> bool:
    return any(m.get("role") == "system" for m in messages)


def merge_system(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The conversation without system messages: their text opens the first user message, and
    consecutive messages of one role are joined, so templates that demand user/assistant
    alternation accept it too."""
    system = "\n\n".join(message_text(m) for m in messages if m.get("role") == "system")
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "system":
            continue
        text = message_text(message)
        if system and message.get("role") == "user":
            text, system = f"{system}\n\n{text}", ""
        if out and out[-1]["role"] == message.get("role"):
            out[-1]["content"] += f"\n\n{text}"
        else:
            out.append({"role": message.get("role", "user"), "content": text})
    if system:  # no user message at all
        out.insert(0, {"role": "user", "content": system})
    return out


def refuses_system_role(status: int, message: str) -> bool:
    return status in (400, 422, 500) and bool(_NO_SYSTEM.search(message))


def refuses_max_tokens(status: int, message: str) -> bool:
    """A reasoning model that wants `max_completion_tokens` instead of `max_tokens`."""
    return status in (400, 422) and bool(_NO_MAX_TOKENS.search(message))


def refuses_temperature(status: int, message: str) -> bool:
    """A reasoning model that takes only its default temperature."""
    return status in (400, 422) and bool(_NO_TEMPERATURE.search(message))


def refuses_whole_replies(status: int, message: str) -> bool:
    """A server that streams only, refusing `stream: false`."""
    return status in (400, 422, 501) and bool(_STREAM_ONLY.search(message))


def html_summary(text: str, limit: int = 120) -> str | None:
    """'Title: first words' of an HTML page, or None when `text` is no HTML."""
    head = text.lstrip()[:512].lower()
    if not (head.startswith("<!doctype html") or head.startswith("<html") or "<body" in head or "<title" in head):
        return None
    title = _TITLE.search(text)
    words = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", _TITLE.sub(" ", text)))).strip()
    parts = [_SPACE.sub(" ", html.unescape(title.group(1))).strip() if title else "", words]
    summary = ": ".join(p for p in parts if p)
    return summary[:limit] + ("…" if len(summary) > limit else "")


def read_body(text: str) -> Body:
    """A chat completion from a response body: JSON, or an event stream; raises NotACompletion."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise NotACompletion(f"a malformed response body (JSON: {exc.msg} at line {exc.lineno}, column {exc.colno})") from None
        return completion_from_json(data)
    if stripped.startswith("data:") or "\ndata:" in stripped[:2048]:
        return completion_from_events(_sse_payloads(text))
    if (summary := html_summary(text)) is not None:
        raise NotACompletion(f"an HTML page ({summary!r}), not a chat completion: is the base URL the API's "
                             "(OpenAI-compatible servers usually end in /v1)?")
    preview = _SPACE.sub(" ", stripped[:80])
    raise NotACompletion(f"a body that is neither JSON nor an event stream ({preview!r})" if preview else "an empty body")


def _sse_payloads(text: str) -> list[dict[str, Any]]:
    payloads = []
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            payloads.append(json.loads(data))
        except json.JSONDecodeError as exc:
            raise NotACompletion(f"an event stream with a malformed event ({exc.msg}: {data[:60]!r})") from None
    return payloads


def completion_from_json(data: Any) -> Body:
    if not isinstance(data, Mapping):
        raise NotACompletion("a JSON value that is not an object")
    if "error" in data and "choices" not in data:
        error = data["error"]
        detail = error.get("message") if isinstance(error, Mapping) else error
        raise NotACompletion(f"an error object with status 200 ({detail})")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise NotACompletion("a completion without choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), Mapping) else {}
    content = message.get("content", choice.get("text"))
    usage = data.get("usage") if isinstance(data.get("usage"), Mapping) else {}
    return Body(content if isinstance(content, str) else None, str(data.get("model") or ""), choice.get("finish_reason"),
                data.get("id"), _count(usage, "prompt_tokens"), _count(usage, "completion_tokens"))


def completion_from_events(chunks: Iterable[Any]) -> Body:
    """One completion from the chunks of a stream (dicts, or the openai package's chunk objects)."""
    parts: list[str] = []
    model, finish, response_id = "", None, None
    prompt = completion = None
    seen = False
    for chunk in chunks:
        data = chunk if isinstance(chunk, Mapping) else chunk.model_dump()
        seen = True
        model = str(data.get("model") or model)
        response_id = data.get("id") or response_id
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                parts.append(delta["content"])
            finish = choice.get("finish_reason") or finish
        usage = data.get("usage")
        if isinstance(usage, Mapping):
            prompt, completion = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
    if not seen:
        raise NotACompletion("an event stream without events")
    return Body("".join(parts), model, finish, response_id, prompt, completion, streamed=True)


def _count(usage: Mapping[str, Any], key: str) -> int | None:
    value = usage.get(key)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None
