"""The colours of the world pictures: each block's colour seen from above (colors.toml, else one made from its
name), darker the lower it lies, the palettes for players and regions, and the inks. The step API's RGB
observation uses the same block colours."""

from __future__ import annotations

import colorsys
import hashlib
from functools import cache
from pathlib import Path

from blockpact.config import read_toml

RGB = tuple[int, int, int]

COLORS_FILE = Path(__file__).parent / "data" / "colors.toml"
SHADE_PER_LEVEL = 0.12
MIN_SHADE = 0.5
INK: RGB = (30, 30, 30)
PAPER: RGB = (250, 250, 246)
WHITE: RGB = (255, 255, 255)
LATCH: RGB = (250, 214, 90)


@cache
def _color_table() -> dict:
    return read_toml(COLORS_FILE)


def block_color(name: str) -> RGB:
    """A block's colour seen from above: from colors.toml, else a stable colour made from its name."""
    listed = _color_table()["blocks"].get(name)
    return (listed[0], listed[1], listed[2]) if listed else _name_color(name)


def _name_color(name: str) -> RGB:
    """Same name, same colour on every run (unlike hash()); mid lightness so marks stay visible on it."""
    digest = hashlib.sha256(name.encode()).digest()
    hue, sat, val = digest[0] / 256, 0.35 + digest[1] / 255 * 0.3, 0.6 + digest[2] / 255 * 0.25
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return (round(r * 255), round(g * 255), round(b * 255))


def shade(color: RGB, levels_below: int) -> RGB:
    """Darken a column's colour by how far its top lies below the highest top, so height reads at a glance."""
    factor = max(MIN_SHADE, 1 - SHADE_PER_LEVEL * levels_below)
    return (round(color[0] * factor), round(color[1] * factor), round(color[2] * factor))


def palette(kind: str, names: list[str]) -> dict[str, RGB]:
    """A distinct colour per name, in name order: the listed ones first, then hues spaced by the golden angle (a
    world with more players than the list had two players in one colour)."""
    listed = [tuple(c) for c in _color_table()["palette"][kind]]
    ordered = sorted(names)
    return {name: listed[i] if i < len(listed) else _extra_color(i - len(listed))  # type: ignore[misc]
            for i, name in enumerate(ordered)}


def _extra_color(k: int) -> RGB:
    hue = (0.11 + k * 0.381966) % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.75 if k % 2 else 0.95, 0.62 if k % 3 == 1 else 0.82)
    return (round(r * 255), round(g * 255), round(b * 255))
