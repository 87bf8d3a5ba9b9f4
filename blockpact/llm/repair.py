"""One repair loop for every role (action, critic, negotiator, judge, planners): ask, parse, and when a
reply is unusable ask again, up to the role's number of attempts, which counts every kind of unusable
reply the same way: a body with no text (LLMBadReply: asked again as it was), or a text that does not
parse (sent back with the reason). Small models produce both; no role gives up after the first. When
no attempt got any text at all, the endpoint failed, not the agent: the last LLMBadReply is raised.

Also the tolerant JSON reader the JSON roles share: models wrap their object in prose or fences.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from blockpact.llm.errors import LLMBadReply

T = TypeVar("T")
_FENCED = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)(?:```|$)", re.DOTALL)
CUT_OFF = " (the reply was cut off at the length limit: answer shorter)"


@dataclass
class Asked(Generic[T]):
    """The outcome of asking: `value` None when no reply was usable; `problems` say why each
    unusable one was not (one per failed attempt, in order)."""

    value: T | None
    attempts: int
    replies: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def last_problem(self) -> str:
        return self.problems[-1] if self.problems else ""


async def ask_until_usable(client: Any, role: str, messages: Sequence[Mapping[str, Any]], parse: Callable[[str], T],
                           retry: Callable[[str], Mapping[str, Any]], attempts: int,
                           errors: tuple[type[Exception], ...] = (ValueError,)) -> Asked[T]:
    """`parse(text)` raises one of `errors` for an unusable text; `retry(reason)` is the user message
    that sends the reason back. Other LLM errors (unavailable, rejected) propagate, and so does the
    last LLMBadReply when every attempt was one (no text ever came back)."""
    conversation = list(messages)
    asked: Asked[T] = Asked(None, 0)
    bad: LLMBadReply | None = None
    for attempt in range(1, attempts + 1):
        asked.attempts = attempt
        try:
            completion = await client.complete(role, conversation)
        except LLMBadReply as exc:
            asked.problems.append(str(exc))
            bad = exc
            continue
        asked.replies.append(completion.text)
        try:
            asked.value = parse(completion.text)
            return asked
        except errors as exc:
            reason = str(exc) + (CUT_OFF if getattr(completion, "finish_reason", None) == "length" else "")
            asked.problems.append(reason)
            conversation = [*conversation, {"role": "assistant", "content": completion.text}, retry(reason)]
    if not asked.replies and bad is not None:
        raise bad
    return asked


def find_json_object(text: str, required: str | None = None) -> dict[str, Any]:
    """The first JSON object in `text` (holding the key `required`, when given): inside a fence or
    anywhere in prose. Raises ValueError saying what is wrong."""
    candidates = [m.group(1) for m in _FENCED.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    first_error: json.JSONDecodeError | None = None
    found_other = False
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError as exc:
                first_error = first_error or exc
                continue
            if isinstance(value, dict) and (required is None or required in value):
                return value
            found_other = True
    if found_other and required is not None:
        raise ValueError(f"no JSON object with \"{required}\" in the reply")
    if first_error is not None:
        raise ValueError(f"invalid JSON ({first_error.msg} at line {first_error.lineno}, column {first_error.colno})")
    raise ValueError("no JSON object in the reply")
