"""The run defaults in run.toml (package data), read once, and the experiment's prompt templates."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from blockpact.config import read_toml

RUN_TOML = Path(__file__).with_name("run.toml")
TEMPLATES = Path(__file__).with_name("templates")
PROMPTS = Path(__file__).with_name("prompts")


@cache
def run_settings() -> dict[str, Any]:
    return read_toml(RUN_TOML)


@cache
def prompt(name: str) -> Template:
    """`prompts/<name>.md` as a string.Template ($names)."""
    return Template((PROMPTS / f"{name}.md").read_text(encoding="utf-8"))
