"""Where the HTML pages' Jinja templates are (templates/ beside this module): the report, the replays, the
comparison and the organization report share their styles and partials."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).with_name("templates")
