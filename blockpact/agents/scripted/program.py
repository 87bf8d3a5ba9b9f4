"""Scripted programs from the JS templates in `templates/`: `__NAME__` placeholders become JSON values."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from blockpact.agents.action import Proposal
from blockpact.agents.code_extraction import ExtractedProgram, parse_program
from blockpact.settings import settings

TEMPLATES_DIR = Path(__file__).with_name("templates")
_PLACEHOLDER = re.compile(r"__([A-Z][A-Z0-9_]*)__")


def search_radius() -> float:
    """How far mineBlock looks for blocks (the simulator's and Voyager's findBlock radius)."""
    return settings().simulator.search_radius


def fill(template: str, values: Mapping[str, object]) -> str:
    """`template` with every `__NAME__` replaced by `json.dumps(values[name])`; every name must match."""
    wanted = set(_PLACEHOLDER.findall(template))
    given = set(values)
    if wanted != given:
        raise ValueError(f"template placeholders {sorted(wanted)} do not match the values given {sorted(given)}")
    return _PLACEHOLDER.sub(lambda m: json.dumps(values[m.group(1)]), template)


@lru_cache(maxsize=512)
def _checked(source: str) -> ExtractedProgram:
    """`parse_program`, once per source text in a process: a round trip to acorn in Node (~10-25 ms of CPU),
    and the same programs recur (every seed of a run, the negotiated contract's players after the search)."""
    return parse_program(source)


def scripted_proposal(template: str, values: Mapping[str, object], explain: str, plan: list[str]) -> Proposal:
    """The common helpers and one player template, filled and checked with acorn like an LLM's program."""
    source = (TEMPLATES_DIR / "common.js").read_text() + "\n" + fill((TEMPLATES_DIR / template).read_text(), values)
    program = _checked(source)
    return Proposal(
        explain=explain,
        plan="\n".join(f"{i}) {step}" for i, step in enumerate(plan, 1)),
        code=program.code,
        function_name=program.function_name,
        scripted=True,
    )
