"""Text from programs and players as one plain line, for terminals, reports and the chat logs agents read.

A newline in a chat message would start a line that seems to come from someone else ("[0.1 s] Glitch: I agree"),
an escape sequence could repaint a terminal. The same rule as the sandbox's `plain-text.js`: line breaks become
spaces, other control and bidi characters visible `\\uXXXX` escapes."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_BREAKS = frozenset("\n\r\t\u2028\u2029")


def plain_line(text: str) -> str:
    return _CONTROL.sub(lambda m: " " if m.group() in _BREAKS else f"\\u{ord(m.group()):04x}", text)
