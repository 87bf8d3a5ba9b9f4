"""The one reader of prompt templates: `prompts/NAME.md` files beside the modules that render them (agents/,
judge/, experiments/), with `string.Template` `$names` so that the JavaScript and JSON braces in them need no
escaping, and a missing value is an error rather than an empty hole in a prompt."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template


@cache  # package data: read once a process, not once a prompt
def prompt_template(folder: Path, name: str) -> Template:
    """`folder/NAME.md` as a template; its `.template` is the file's text."""
    return Template((folder / f"{name}.md").read_text(encoding="utf-8"))
