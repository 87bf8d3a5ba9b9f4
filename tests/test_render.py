"""Top-down pictures show each world's blocks where they are, for the spec and for a moment of a run."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from blockpact.settings import default_mc_version
from blockpact.worlds.spec import mcdata
from blockpact.worlds.world_files import load_world
from blockpact.worlds.colors import COLORS_FILE, block_color
from blockpact.worlds.render import render_world
from blockpact.worlds.render_layout import Layout, layout_for
from blockpact.worlds.state import WorldState

KNOWN_TOPS = {  # world -> (x, z) of a column whose top block is the highest in the world, and that block
    "double_vein": ((3, 3), "iron_ore"),
    "cleanup": ((4, 10), "red_mushroom_block"),
    "commons": ((7, 7), "pumpkin"),
}


def share_of(image: Image.Image, box: tuple[int, int, int, int], color: tuple[int, int, int]) -> float:
    """Fraction of the pixels in `box` that are exactly `color`."""
    pixels = np.asarray(image.crop(box).convert("RGB"))
    return float((pixels == color).all(axis=-1).mean())


@pytest.mark.parametrize("name", sorted(KNOWN_TOPS))
def test_builtin_world_renders_its_blocks_in_place(tmp_path: Path, name: str) -> None:
    spec = load_world(name)
    out = render_world(spec, tmp_path / f"{name}.png")
    layout = layout_for(spec)
    with Image.open(out) as image:
        assert image.format == "PNG"
        assert image.size == layout.size
        left, top, right, bottom = layout.map_box
        assert (right - left, bottom - top) == (spec.size[0] * 24, spec.size[2] * 24)
        assert image.width > right and image.height > bottom and left > 0 and top > 0  # title, ticks, legend
        (x, z), block = KNOWN_TOPS[name]
        assert share_of(image.convert("RGB"), layout.cell_box(x, z), block_color(block)) > 1 / 3


def test_block_colours_come_from_the_data_file() -> None:
    with open(COLORS_FILE, "rb") as f:
        listed = tomllib.load(f)["blocks"]
    assert block_color("iron_ore") == tuple(listed["iron_ore"])
    data = mcdata.load(default_mc_version())
    assert [name for name in listed if not data.is_block(name)] == []


def test_unlisted_blocks_get_a_stable_distinct_colour() -> None:
    assert block_color("blue_ice") == block_color("blue_ice")
    assert block_color("blue_ice") != block_color("moss_block")
    assert all(0 <= c <= 255 for c in block_color("blue_ice"))


def test_a_state_shows_dug_blocks_and_moved_players(tmp_path: Path) -> None:
    spec = load_world("double_vein")
    state = WorldState(spec)
    for y in (64, 65):
        state.set_block((2, y, 2), "air", "Gizmo", "dig")
    state.set_block((6, 64, 7), "air", "Glitch", "dig")
    state.positions["Gizmo"] = (10, 64, 5)
    layout = layout_for(spec, state=state)
    with Image.open(render_world(spec, tmp_path / "state.png", state)) as png:
        image = png.convert("RGB")
    iron = block_color("iron_ore")
    assert share_of(image, layout.cell_box(2, 2), iron) == 0
    assert share_of(image, layout.cell_box(3, 2), iron) > 1 / 3
    chest_cell = layout.cell_box(6, 7)
    assert share_of(image, chest_cell, block_color("chest")) == 0
    plain_stone = centre_pixel(image, layout, 0, 10)
    assert centre_pixel(image, layout, 5, 9) == plain_stone  # Gizmo's spawn, now empty
    assert centre_pixel(image, layout, 10, 5) != plain_stone  # where Gizmo stands now


def centre_pixel(image: Image.Image, layout: Layout, x: int, z: int) -> tuple[int, ...]:
    cx, cy = layout.centre(x, z)
    return image.getpixel((int(cx), int(cy)))  # type: ignore[return-value]


def test_chests_are_marked(tmp_path: Path) -> None:
    spec = load_world("double_vein")
    layout = layout_for(spec)
    with Image.open(render_world(spec, tmp_path / "dv.png")) as png:
        image = png.convert("RGB")
    chest_cell = layout.cell_box(6, 7)
    assert share_of(image, chest_cell, block_color("chest")) > 0.2
    assert share_of(image, chest_cell, (255, 255, 255)) > 0.1


def test_scale_sets_the_cell_size(tmp_path: Path) -> None:
    spec = load_world("commons")
    small, large = layout_for(spec, scale=12), layout_for(spec, scale=24)
    assert small.cell_box(0, 0)[2] - small.cell_box(0, 0)[0] == 12
    assert large.cell_box(0, 0)[2] - large.cell_box(0, 0)[0] == 24
    with Image.open(render_world(spec, tmp_path / "small.png", scale=12)) as image:
        assert image.size == small.size
