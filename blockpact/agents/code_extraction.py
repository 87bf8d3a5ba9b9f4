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
_ANY_FENCE = re.compile(r"```[ \t]*([^\n`]*)\n(.*?)```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```[^\n`]*\n((?:(?!```).)*)\Z", re.DOTALL)  # the last block, never closed
_BARE_START = re.compile(r"^[ \t]*(?:async[ \t]+function|function)\b", re.MULTILINE)
_CLOSING_LINE = re.compile(r"^\}[ \t]*;?[ \t]*$", re.MULTILINE)
_SECTION = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(Explain|Plan|Code)(?:\*\*)?[ \t]*(?::|$)(?:\*\*)?", re.IGNORECASE | re.MULTILINE
)


class CodeExtractionError(Exception):
    """A reply with no runnable program; `kind` is "no_code", "syntax", "no_entry" or "empty"."""

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
    empty: bool = False  # the entry function's body has no statement


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
    return ExtractedProgram(result["code"], result["entry"], tuple(result["helpers"]), tuple(result["dropped"]), result["empty"])


def _with_steps(program: ExtractedProgram) -> ExtractedProgram:
    """An LLM's program must do something: an empty entry function (the prompt's skeleton echoed back by a small
    model) ran as a success that did nothing. It is sent back like any other unusable reply."""
    if program.empty:
        raise CodeExtractionError("empty", f"the function {program.function_name} has an empty body: write the task's "
                                           "steps in it (calls such as await mineBlock(bot, ...))")
    return program


def extract_program(reply: str) -> ExtractedProgram:
    """The program in an LLM reply (all its JavaScript code blocks joined); raises CodeExtractionError.

    Small models format loosely, so when there is no closed JavaScript block the program is looked
    for in a block with another tag (```JavaScript ES6, ```node), an unclosed block (a reply cut at
    its length limit), then bare code from its first `async function` on (cut after each closing
    brace at the line start, from the longest). The first that parses is it; otherwise the error of
    the most plausible candidate."""
    blocks = code_blocks(reply)
    if blocks:
        return _with_steps(parse_program("\n".join(block.rstrip() for block in blocks) + "\n"))
    candidates = _loose_candidates(reply)
    if not candidates:
        raise CodeExtractionError("no_code", "the reply has no ```javascript code block")
    first_error: CodeExtractionError | None = None
    for candidate in candidates:
        try:
            return _with_steps(parse_program(candidate))
        except CodeExtractionError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def _loose_candidates(reply: str) -> list[str]:
    """Program texts to try when the reply has no closed ```javascript block, most plausible first."""
    out = [body for _tag, body in _ANY_FENCE.findall(reply) if "function" in body]
    if (unclosed := _OPEN_FENCE.search(reply)) is not None and "function" in unclosed.group(1):
        out.append(unclosed.group(1))
    if (start := _BARE_START.search(reply)) is not None:
        bare = reply[start.start():].replace("```", "")
        ends = [m.end() for m in _CLOSING_LINE.finditer(bare)]
        out += [bare[:end] + "\n" for end in reversed(ends)] or [bare]
    return out
