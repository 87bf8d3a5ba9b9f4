"""MkDocs hooks of the documentation site (mkdocs.yml): the parts of pages generated from the project's own data.

A page asks for one with an HTML comment on a line of its own, so the Markdown stays readable as it is:

- `<!-- world-reference -->`: every table and key of a world file (blockpact/worlds/spec/reference.toml);
- `<!-- primitives-reference -->`: what an agent program may call (blockpact/skills/primitives.toml);
- `<!-- contract-grammar -->`: the contract language's grammar (blockpact/judge/data/contract.lark);
- `<!-- include: PATH -->`: a Markdown file of the repository, as it is (blockpact/experiments/log/EVENTS.md).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
MARKER = re.compile(r"^<!--\s*(world-reference|primitives-reference|contract-grammar|include:\s*(?P<path>\S+))\s*-->\s*$", re.M)


def _world_reference() -> str:
    from blockpact.worlds.spec.reference import markdown

    return markdown()


def _primitives_reference() -> str:
    from blockpact.skills.reference import primitive_reference

    return primitive_reference()


def _contract_grammar() -> str:
    from blockpact.judge.contract_grammar import GRAMMAR_FILE

    return f"```lark\n{GRAMMAR_FILE.read_text(encoding='utf-8').rstrip()}\n```\n"


def _expand(match: re.Match) -> str:
    if match["path"]:
        path = (ROOT / match["path"]).resolve()
        if ROOT not in path.parents or not path.is_file():
            raise ValueError(f"<!-- include: {match['path']} -->: no such file in the repository")
        return path.read_text(encoding="utf-8")
    return {"world-reference": _world_reference, "primitives-reference": _primitives_reference,
            "contract-grammar": _contract_grammar}[match[1]]()


def on_page_markdown(markdown: str, **kwargs: object) -> str:
    return MARKER.sub(_expand, markdown)
