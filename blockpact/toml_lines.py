"""Map TOML key paths to line numbers, so validation errors can say `file:line: key.path: ...`.

tomllib returns plain dicts without positions; this scanner reads the text once and records where
each table, key and array element starts. Paths use the same shape the
validator walks: `players.Gizmo.spawn`, `dynamics[1].probability`, `map.layers[0].rows[3]`.
"""

from __future__ import annotations

import re

_BARE_KEY = r"[A-Za-z0-9_-]+"
_KEY = rf'(?:{_BARE_KEY}|"[^"]*"|\'[^\']*\')'
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=\s*(.*)$")


def _split_key(dotted: str) -> list[str]:
    parts = re.findall(rf"{_KEY}", dotted)
    return [p[1:-1] if p[0] in "\"'" else p for p in parts]


class LineIndex:
    """Line numbers (1-based) of key paths in one TOML text."""

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        self._scan(text.splitlines())

    def line_of(self, path: str) -> int | None:
        """Line of `path`, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            if cut <= 0:
                break
            path = path[:cut]
        return self.lines.get(path)

    def _scan(self, lines: list[str]) -> None:
        table: str = ""
        array_counts: dict[str, int] = {}
        i = 0
        while i < len(lines):
            line = lines[i]
            header = _HEADER.match(line)
            if header:
                keys = _split_key(header.group(2))
                if header.group(1) == "[[":
                    parent = self._resolve(keys[:-1], array_counts)
                    base = f"{parent}.{keys[-1]}" if parent else keys[-1]
                    index = array_counts.get(base, 0)
                    array_counts[base] = index + 1
                    table = f"{base}[{index}]"
                    self.lines.setdefault(base, i + 1)
                else:
                    table = self._resolve(keys, array_counts)
                self.lines.setdefault(table, i + 1)
                i += 1
                continue
            assign = _ASSIGN.match(line)
            if assign:
                keys = _split_key(assign.group(1))
                for n in range(1, len(keys) + 1):  # `Glitch.spawn = ...` also defines table `Glitch` here
                    self.lines.setdefault(".".join(filter(None, [table, *keys[:n]])), i + 1)
                path = ".".join(filter(None, [table, *keys]))
                i = self._scan_value(lines, i, path, assign.group(2))
                continue
            i += 1

    def _resolve(self, keys: list[str], array_counts: dict[str, int]) -> str:
        """A header path, with the current index of every array of tables it passes through."""
        path = ""
        for key in keys:
            path = f"{path}.{key}" if path else key
            if path in array_counts:
                path = f"{path}[{array_counts[path] - 1}]"
        return path

    def _scan_value(self, lines: list[str], i: int, path: str, value: str) -> int:
        """Skip past a value; record element lines of arrays. Returns the next line index."""
        stripped = value.strip()
        for quote in ('"""', "'''"):
            if stripped.startswith(quote) and stripped.count(quote) == 1:
                i += 1
                while i < len(lines) and quote not in lines[i]:
                    i += 1
                return i + 1
        if stripped.startswith("["):
            return self._scan_array(lines, i, path, stripped)
        return i + 1

    def _scan_array(self, lines: list[str], i: int, path: str, text: str) -> int:
        """Walk an array character by character (it may span lines), recording where each element starts.

        Strings (with escapes), comments and nested arrays or inline tables are stepped over, so a `]`
        or `,` inside them neither ends the array nor starts an element.
        """
        depth, element, expecting, quote = 0, 0, False, None
        while True:
            j = 0
            while j < len(text):
                ch = text[j]
                if quote:
                    if ch == "\\" and quote == '"':
                        j += 1
                    elif ch == quote:
                        quote = None
                elif ch == "#":
                    break
                elif ch in "]}":
                    depth -= 1
                    if depth == 0:
                        return i + 1
                elif ch == ",":
                    expecting = depth == 1
                elif not ch.isspace():
                    if depth == 1 and expecting:
                        self.lines.setdefault(f"{path}[{element}]", i + 1)
                        element += 1
                        expecting = False
                    if ch in "[{":
                        depth += 1
                        expecting = expecting or depth == 1  # the array's own `[`: its first element is next
                    elif ch in "\"'":
                        quote = ch
                j += 1
            i += 1
            if i >= len(lines):
                return i
            text = lines[i]
