"""How real OpenAI-compatible servers differ from OpenAI's, for `OpenAIStub`: servers that add
latency to every call, stream only (or stream although asked not to), run chat templates without a
system role, report no token usage, answer with an HTML page, or serve a reasoning model (refusing
`max_tokens` and temperatures, and spending hidden reasoning tokens under the cap). Each quirk is what a real server
sends on the wire (status, headers, body), so the real `openai` client meets it over real HTTP.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# What vLLM answers when a model's chat template raises on a system message (top-level message, not
# OpenAI's {"error": {...}} envelope).
NO_SYSTEM_ROLE_BODY = {"object": "error", "message": "System role not supported", "type": "BadRequestError",
                       "param": None, "code": 400}
STREAM_ONLY_BODY = {"error": {"message": "This server only supports streaming: set stream to true",
                              "type": "invalid_request_error", "param": "stream", "code": None}}

# What OpenAI answers a reasoning model's request that sets `max_tokens`, or a temperature other than 1.
MAX_TOKENS_REFUSED_BODY = {"error": {
    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
               "Use 'max_completion_tokens' instead.",
    "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}


def temperature_refused_body(value: object) -> dict[str, Any]:
    return {"error": {
        "message": f"Unsupported value: 'temperature' does not support {value} with this model. "
                   "Only the default (1) value is supported.",
        "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}


@dataclass(frozen=True)
class ServerQuirks:
    """`latency_s` is added to every chat completion; `stream_only` refuses requests without
    `stream: true`; `always_stream` answers an event stream even when none was asked for;
    `no_system_role` refuses any request with a system message; `report_usage` False sends no usage;
    `reasoning_model` refuses `max_tokens` and a temperature other than 1, as OpenAI's o-series and GPT-5 do;
    `reasoning_tokens` are spent, hidden, before the visible reply and count against `max_completion_tokens`:
    a cap they leave no room under gets empty content and finish_reason "length", as such models answer."""

    latency_s: float = 0.0
    stream_only: bool = False
    always_stream: bool = False
    no_system_role: bool = False
    report_usage: bool = True
    reasoning_model: bool = False
    reasoning_tokens: int = 0

    def refusal(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """(status, JSON body) when this server refuses `request` before generating anything."""
        if self.reasoning_model and "max_tokens" in request:
            return 400, MAX_TOKENS_REFUSED_BODY
        if self.reasoning_model and request.get("temperature") not in (None, 1, 1.0):
            return 400, temperature_refused_body(request["temperature"])
        if self.no_system_role and any(m.get("role") == "system" for m in request.get("messages", [])):
            return 400, NO_SYSTEM_ROLE_BODY
        if self.stream_only and request.get("stream") is not True:
            return 400, STREAM_ONLY_BODY
        return None

    def streams(self, request: dict[str, Any]) -> bool:
        return self.always_stream or request.get("stream") is True

    def shape(self, completion: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
        if self.reasoning_tokens:
            completion = self._with_reasoning(completion, request)
        if not self.report_usage:
            completion = {k: v for k, v in completion.items() if k != "usage"}
        return completion

    def _with_reasoning(self, completion: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
        """The completion after `reasoning_tokens` of hidden reasoning under the request's cap."""
        cap = request.get("max_completion_tokens", request.get("max_tokens"))
        usage = dict(completion["usage"])
        visible = usage["completion_tokens"]
        choice = dict(completion["choices"][0])
        if isinstance(cap, int) and self.reasoning_tokens + visible > cap:
            reasoning, visible = min(self.reasoning_tokens, cap), max(cap - self.reasoning_tokens, 0)
            words = (choice["message"]["content"] or "").split(" ")[:visible] if visible else []
            choice = {**choice, "message": {**choice["message"], "content": " ".join(words)},
                      "finish_reason": "length"}
        else:
            reasoning = self.reasoning_tokens
        usage.update(completion_tokens=reasoning + visible, total_tokens=usage["prompt_tokens"] + reasoning + visible,
                     completion_tokens_details={"reasoning_tokens": reasoning})
        return {**completion, "choices": [choice], "usage": usage}


def event_stream(completion: dict[str, Any], include_usage: bool) -> bytes:
    """A chat completion as the `data:` events of a streamed one: a role chunk, one chunk per word,
    a finish chunk, a usage chunk (when the request asked for it, or always when there is usage and
    the server streams unasked, as some do), then `[DONE]`."""
    choice = completion["choices"][0]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
            "model": completion["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    content = choice["message"]["content"] or ""
    words = content.split(" ")
    pieces = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)] if content else []
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces]
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage and "usage" in completion:
        events.append({**base, "choices": [], "usage": completion["usage"]})
    lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def html_page(status: int, title: str) -> bytes:
    """An error page as nginx or a cloud load balancer sends it."""
    return (f"<html>\r\n<head><title>{status} {title}</title></head>\r\n<body>\r\n<center><h1>{status} {title}</h1>"
            "</center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n").encode()
