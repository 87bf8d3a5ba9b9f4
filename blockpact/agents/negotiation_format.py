"""The negotiation reply format: `[thinking] ... [message] ...` then `[contract] ... [contract end]` or `[accept]`.

Everything before `[message]` is private thinking and is never shown to another player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG = re.compile(r"\[\s*(thinking|message|contract\s+end|/\s*contract|end\s+contract|contract|accept)\s*\]", re.IGNORECASE)
_NUMBERED = re.compile(r"^\s*\d+\s*[.)]", re.MULTILINE)


class FormatError(ValueError):
    """Why a reply breaks the format (sent back to the model)."""


@dataclass(frozen=True)
class ParsedReply:
    thinking: str
    message: str
    proposal: str | None
    accept: bool


def _kind(tag: str) -> str:
    name = " ".join(tag.lower().replace("/", "/ ").split())
    return "contract end" if name in ("contract end", "/ contract", "end contract") else name


NO_PROPOSAL = "there is no proposal from the previous round to accept; propose a contract instead"


def parse_reply(text: str, *, can_accept: bool, refusal: str = NO_PROPOSAL) -> ParsedReply:
    """The reply's parts, or FormatError; `can_accept` is false when no proposal stands (two players: the
    previous round proposed nothing); `refusal` is then the reason an [accept] is sent back."""
    tags = [(_kind(m.group(1)), m.start(), m.end()) for m in _TAG.finditer(text)]
    messages = [t for t in tags if t[0] == "message"]
    if len(messages) != 1:
        raise FormatError("the reply needs exactly one [message] section" if messages else "the reply has no [message] section")
    _, message_start, message_end = messages[0]
    private = text[:message_start]
    if any(kind != "thinking" for kind, start, _ in tags if start < message_start):
        raise FormatError("only [thinking] may come before [message]")
    if any(kind == "thinking" for kind, start, _ in tags if start > message_start):
        raise FormatError("[thinking] must come before [message]")
    thinking = _TAG.sub("", private).strip()
    public = [t for t in tags if t[1] > message_start]
    kinds = [kind for kind, _, _ in public]
    opens, ends, accepts = kinds.count("contract"), kinds.count("contract end"), kinds.count("accept")
    if opens > 1 or ends > 1:
        raise FormatError("propose at most one contract per reply")
    if opens and accepts:
        raise FormatError("either propose a contract or [accept], not both")
    if opens:
        (_, _, body_start), = [t for t in public if t[0] == "contract"]
        closing = [t for t in public if t[0] == "contract end"]
        if not closing or closing[0][1] < body_start:
            raise FormatError("the contract is not closed with [contract end]")
        body = text[body_start : closing[0][1]].strip()
        if not body:
            raise FormatError("the contract between [contract] and [contract end] is empty")
        if not _NUMBERED.search(body):
            raise FormatError("number the clauses of the contract (1. ..., 2. ...)")
        around = (text[message_end : public[0][1]], text[closing[0][2] :])
        message = " ".join(part.strip() for part in around if part.strip())
        return ParsedReply(thinking, message, body, False)
    if ends:
        raise FormatError("[contract end] without [contract]")
    if accepts > 1:
        raise FormatError("write [accept] once")
    if accepts:
        if not can_accept:
            raise FormatError(refusal)
        message = _TAG.sub("", text[message_end:]).strip()
        return ParsedReply(thinking, message, None, True)
    raise FormatError("the reply neither proposes a contract ([contract] ... [contract end]) nor accepts ([accept])")
