"""The program in an LLM reply: fenced code blocks, parsed by acorn in the Node runtime.

A real parser decides, so a reply is accepted exactly when the sandbox could run it; what is
wrong with a rejected reply (no code block, a syntax error at line:column, no async function
taking `bot`) is said precisely enough to be put back into the prompt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from blockpact.bridge.runtime import JS_DIR, NodeRuntime, runtime

# ```javascript / ```js / ``` (an untagged block counts: models often omit the tag).
_FENCE = re.compile(r"```[ \t]*(javascript|js|jsx|typescript|ts)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_SECTION = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(Explain|Plan|Code)(?:\*\*)?[ \t]*(?::|$)(?:\*\*)?", re.IGNORECASE | re.MULTILINE
)


class CodeExtractionError(Exception):
    """A reply with no runnable program; `kind` is "no_code", "syntax" or "no_entry"."""

    def __init__(self, kind: str, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f" at line {line}, column {column} of the code" if line is not None else ""
        super().__init__(f"{message}{where}")
        self.kind = kind
        self.line = line
        self.column = column


@dataclass(frozen=True)
class ExtractedProgram:
    code: str  # what the body runs: helpers first, the entry function last
    function_name: str
    helpers: tuple[str, ...]
    dropped: tuple[str, ...]  # top-level calls removed (the runner calls the entry itself)


def code_blocks(reply: str) -> list[str]:
    """The JavaScript code blocks of a reply, in order."""
    return [body for _lang, body in _FENCE.findall(reply)]


def reply_sections(reply: str) -> dict[str, str]:
    """The Explain / Plan / Code sections of a reply ("" for a missing one)."""
    sections = {"explain": "", "plan": "", "code": ""}
    marks = list(_SECTION.finditer(reply))
    for mark, following in zip(marks, [*marks[1:], None]):
        end = following.start() if following else len(reply)
        sections[mark.group(1).lower()] = reply[mark.end() : end].strip()
    return sections


@cache
def _extractor(node: NodeRuntime) -> Any:
    """One extractor per runtime (a restarted runtime gets a new one)."""
    return node.require(JS_DIR / "parse" / "extract.js").createExtractor(node.require("acorn"))


def parse_program(source: str) -> ExtractedProgram:
    """Check a program's source with acorn; raises CodeExtractionError."""
    result = json.loads(_extractor(runtime()).extract(source))
    if not result["ok"]:
        raise CodeExtractionError(result["kind"], result["message"], result["line"], result["column"])
    return ExtractedProgram(result["code"], result["entry"], tuple(result["helpers"]), tuple(result["dropped"]))


def extract_program(reply: str) -> ExtractedProgram:
    """The program in an LLM reply (all its code blocks joined); raises CodeExtractionError."""
    blocks = code_blocks(reply)
    if not blocks:
        raise CodeExtractionError("no_code", "the reply has no ```javascript code block")
    return parse_program("\n".join(block.rstrip() for block in blocks) + "\n")
