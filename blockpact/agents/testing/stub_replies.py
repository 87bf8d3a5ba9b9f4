"""What the OpenAI stub answers and what it records: scripted replies (with the failures they inject), the
responder type and its default, and the record of a received request. Apart from the server so that
responders (protocol_responder) can build replies without importing the server that may load them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from blockpact.agents.testing.stub_quirks import html_page
from blockpact.llm.wire import message_text


@dataclass(frozen=True)
class StubReply:
    """One scripted answer to a chat completion request.

    `raw_body` is sent verbatim (to inject malformed JSON); token counts default to a word count
    of the request's messages and of `content`.
    """

    content: str | None = "ok"
    status: int = 200
    retry_after: str | None = None
    delay_s: float = 0.0
    raw_body: bytes | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"
    model: str | None = None
    error_message: str | None = None
    content_type: str = "application/json"  # of raw_body
    stall: bool = False  # answer 200 and headers, then keep the connection alive without a reply

    @classmethod
    def html_error(cls, status: int = 502, title: str = "Bad Gateway") -> StubReply:
        """An HTML error page (a proxy or load balancer in front of the server); status 200 too."""
        return cls(status=status, raw_body=html_page(status, title), content_type="text/html")

    @classmethod
    def stalled(cls) -> StubReply:
        """Headers, then a keep-alive comment every 0.2 s and never a reply: only a deadline on the
        whole call ends it (a read timeout between bytes never fires)."""
        return cls(stall=True)

    @classmethod
    def rate_limited(cls, retry_after: str | None = "1") -> StubReply:
        return cls(status=429, retry_after=retry_after, error_message="Rate limit reached")

    @classmethod
    def server_error(cls, status: int = 500) -> StubReply:
        return cls(status=status, error_message="The server had an error while processing your request")

    @classmethod
    def slow(cls, delay_s: float, content: str = "late") -> StubReply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def malformed(cls) -> StubReply:
        return cls(raw_body=b'{"id": "chatcmpl-broken", "choices": [{"message": ')

    @classmethod
    def empty(cls) -> StubReply:
        return cls(content="")


Script = StubReply | str
Responder = Callable[[dict[str, Any]], Script]


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the stub received it (kept in memory only)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any = None
    received_at: float = field(default_factory=time.monotonic)


def echo_last_user_message(request: dict[str, Any]) -> Script:
    """Default responder: deterministic, and shows which prompt produced the reply."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    last = message_text(users[-1]) if users else ""
    return f"stub reply to: {last}"
