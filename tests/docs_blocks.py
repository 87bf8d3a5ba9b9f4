"""The fenced blocks of the documentation (README.md, docs/*.md), read as the docs test runs them.

A block's language says what the test does with it:

- `sh` (`bash`, `shell`): run with bash (`-e -o pipefail`) in the page's working directory;
- `python`: run as a script there;
- `toml`, `js`: written to a file when a `file` directive names one, else only checked (TOML parses);
- `text` (or no language), `console`, `json`, `lark`, `contract`, `contract-world`, `free-text`, `html`: output, grammar or
  clauses, not run (`contract` blocks are played by tests/test_contract_clauses.py).

Directives are HTML comments right before a block (invisible on the site), one per comment:

- `<!-- test: skip REASON -->`: not run; the reason is required and shown in the test's output;
- `<!-- test: file NAME -->`: write the block to NAME in the page's working directory;
- `<!-- test: exit N -->`: the block must exit with status N (a command that refuses bad input);
- `<!-- test: replace OLD => NEW -->`: run with OLD replaced by NEW (smaller flags; `{free_port}` is a
  free TCP port on 127.0.0.1, the same for the whole page);
- `<!-- test: timeout SECONDS -->`: how long the block may take (default 300);
- `<!-- test: slow -->`: run only with `--run-slow` (`make test-all`): live episodes of a minute or more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

RUN = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python"}
FILES = {"toml", "js"}
NOT_RUN = {"", "text", "console", "json", "lark", "contract", "contract-world", "free-text", "html"}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w-]*)[^`]*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*test:\s*(?P<name>[a-z-]+)\s*(?P<arg>.*?)\s*-->\s*$")
DIRECTIVES = {"skip", "file", "exit", "replace", "timeout", "slow"}


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    skip: str | None = None
    file: str | None = None
    exit: int = 0
    replace: list[tuple[str, str]] = field(default_factory=list)
    timeout: float = 300.0
    slow: bool = False

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUN or (self.lang in FILES and self.file is not None)


class DocsError(ValueError):
    """A page whose blocks the test cannot read: an unknown language, a directive misspelt."""


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page with the directives before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    pending: list[tuple[int, str, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = DIRECTIVE.match(line)
        fence = FENCE.match(line)
        if directive:
            pending.append((i + 1, directive["name"], directive["arg"]))
        elif fence:
            indent, mark, lang = fence["indent"], fence["fence"], fence["lang"].lower()
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(mark):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            block = Block(page, i - len(body), lang, "\n".join(body) + "\n")
            _apply(block, pending)
            pending = []
            if lang not in RUN and lang not in FILES and lang not in NOT_RUN:
                raise DocsError(f"{block.where}: a ```{lang} block: the docs test does not know this language "
                                f"(run: {', '.join(sorted(RUN))}; files: {', '.join(sorted(FILES))}; "
                                f"not run: {', '.join(sorted(NOT_RUN))})")
            out.append(block)
        elif line.strip() and pending:
            where = f"{page.name}:{pending[0][0]}"
            raise DocsError(f"{where}: a `test:` directive that no fenced block follows")
        i += 1
    return out


def _apply(block: Block, directives: list[tuple[int, str, str]]) -> None:
    for line, name, arg in directives:
        where = f"{block.page.name}:{line}"
        if name not in DIRECTIVES:
            raise DocsError(f"{where}: unknown directive `test: {name}` (expected one of: {', '.join(sorted(DIRECTIVES))})")
        if name == "skip":
            if not arg:
                raise DocsError(f"{where}: `test: skip` needs a reason")
            block.skip = arg
        elif name == "file":
            block.file = arg
        elif name == "exit":
            block.exit = int(arg)
        elif name == "timeout":
            block.timeout = float(arg)
        elif name == "slow":
            block.slow = True
        elif name == "replace":
            old, sep, new = arg.partition("=>")
            if not sep or not old.strip():
                raise DocsError(f"{where}: `test: replace OLD => NEW` expected, got {arg!r}")
            block.replace.append((old.strip(), new.strip()))


def pages(root: Path) -> list[Path]:
    """The pages whose blocks run: the README and every page of docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]
