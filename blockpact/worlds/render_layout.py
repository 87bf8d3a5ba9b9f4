"""What a world picture shows and where (render.py draws it): each column's top block, chests and players,
the legend's entries, the fonts, and the pixel layout of title, map and legend.

Image x runs east (+x) and image y runs south (+z), as on a Minecraft map.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import ImageFont

from blockpact.worlds.colors import INK, RGB, block_color, palette
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.schema import Region, Vec, WorldSpec
from blockpact.worlds.state import WorldState, build_grid

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

AIR = ("air", "cave_air", "void_air")


# -- what is shown -------------------------------------------------------------------------------
def top_blocks(spec: WorldSpec, state: WorldState | None = None) -> dict[tuple[int, int], tuple[str, int]]:
    """(x, z) -> (topmost non-air block, its y) for every column holding any block."""
    data = state.data if state else mcdata.load(spec.mc_version)
    ids = state.grid.ids if state else build_grid(spec, data).ids
    filled = ~np.isin(ids, [data.blocks[name].id for name in AIR if name in data.blocks])
    top = ids.shape[1] - 1 - np.argmax(filled[:, ::-1, :], axis=1)
    ox, oy, oz = spec.origin
    return {
        (ox + int(lx), oz + int(lz)): (data.block_names_by_id[int(ids[lx, top[lx, lz], lz])], oy + int(top[lx, lz]))
        for lx, lz in np.argwhere(filled.any(axis=1))
    }


@dataclass(frozen=True)
class Scene:
    """What the picture shows, before any pixel is placed."""

    spec: WorldSpec
    tops: dict[tuple[int, int], tuple[str, int]]
    chests: dict[Vec, str]  # position -> name
    players: dict[str, Vec]  # name -> feet cell
    time: float | None  # seconds into the episode, when drawn from a state

    @classmethod
    def of(cls, spec: WorldSpec, state: WorldState | None) -> Scene:
        spots = state.chests if state else spec.chests
        chests = {pos: spec.chests[pos].name if pos in spec.chests else "chest" for pos in sorted(spots)}
        players = dict(state.positions) if state else {name: p.spawn for name, p in spec.players.items()}
        return cls(spec, top_blocks(spec, state), chests, players, state.time if state else None)

    @property
    def block_names(self) -> list[str]:
        return sorted({block for block, _ in self.tops.values()} - {"chest"})

    @property
    def top_range(self) -> tuple[int, int]:
        heights = [y for _, y in self.tops.values()] or [self.spec.origin[1]]
        return min(heights), max(heights)


# -- fonts and text ------------------------------------------------------------------------------
@cache
def _font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans where the system has it, else Pillow's own scalable default font (Pillow >= 10.1)."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(name, size)
    except OSError:
        return ImageFont.load_default(size)


@dataclass(frozen=True)
class Fonts:
    title: Font
    text: Font
    bold: Font
    small: Font

    @classmethod
    def for_scale(cls, scale: int) -> Fonts:
        size = max(10, round(scale * 0.5))
        return cls(_font(round(size * 1.5), True), _font(size), _font(size, True), _font(max(9, round(size * 0.85))))


def text_size(font: Font, text: str) -> tuple[int, int]:
    """Width of `text` and the font's full line height (so rows of labels line up)."""
    left, _, right, _ = font.getbbox(text)
    ascent, descent = font.getmetrics()  # type: ignore[union-attr]
    return int(right - left), ascent + descent


# -- layout --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    text: str
    mark: str  # heading, block, chest, player, region or note
    color: RGB = INK


@dataclass(frozen=True)
class Layout:
    """Where everything goes; `cell_box` turns Minecraft (x, z) into the pixels of that cell."""

    size: tuple[int, int]
    map_box: tuple[int, int, int, int]
    legend_xy: tuple[int, int]
    legend_row: int
    scale: int
    origin_xz: tuple[int, int]
    pad: int

    def cell_box(self, x: int, z: int) -> tuple[int, int, int, int]:
        left = self.map_box[0] + (x - self.origin_xz[0]) * self.scale
        top = self.map_box[1] + (z - self.origin_xz[1]) * self.scale
        return (left, top, left + self.scale, top + self.scale)

    def centre(self, x: float, z: float) -> tuple[float, float]:
        left, top, _, _ = self.map_box
        return (left + (x - self.origin_xz[0] + 0.5) * self.scale, top + (z - self.origin_xz[1] + 0.5) * self.scale)


def layout_for(spec: WorldSpec, scale: int = 24, state: WorldState | None = None) -> Layout:
    """The layout `render_world` uses for these arguments (tests and callers can find cells with it)."""
    return plan(spec, state, scale)[3]


def plan(spec: WorldSpec, state: WorldState | None, scale: int) -> tuple[Scene, Fonts, list[LegendEntry], Layout]:
    scene = Scene.of(spec, state)
    fonts = Fonts.for_scale(scale)
    legend = _legend(scene)
    return scene, fonts, legend, _layout(scene, fonts, scale, legend)


def _layout(scene: Scene, fonts: Fonts, scale: int, legend: list[LegendEntry]) -> Layout:
    spec = scene.spec
    pad = max(8, scale // 2)
    _, title_h = text_size(fonts.title, "Ag")
    _, text_h = text_size(fonts.text, "Ag")
    _, small_h = text_size(fonts.small, "0")
    z_labels = [str(spec.origin[2] + i) for i in range(spec.size[2])]
    z_width = max(text_size(fonts.small, label)[0] for label in z_labels)
    left = pad + max(z_width, text_size(fonts.text, "z ↓")[0]) + 8
    top = pad + title_h + text_h + pad + text_h + small_h + 8
    map_w, map_h = spec.size[0] * scale, spec.size[2] * scale
    row = max(text_h, round(scale * 0.8)) + 4
    legend_w = max(text_size(fonts.bold if e.mark == "heading" else fonts.text, e.text)[0] + row for e in legend)
    legend_x = left + map_w + 2 * pad
    header_w = max(text_size(fonts.title, spec.title)[0], text_size(fonts.text, subtitle(scene))[0])
    width = max(legend_x + legend_w + pad, 2 * pad + header_w)
    height = top + max(map_h, row * len(legend)) + pad
    return Layout((width, height), (left, top, left + map_w, top + map_h), (legend_x, top), row, scale, (spec.origin[0], spec.origin[2]), pad)


def subtitle(scene: Scene) -> str:
    spec = scene.spec
    y0, y1 = spec.origin[1], spec.origin[1] + spec.size[1] - 1
    when = f" · t = {scene.time:g} s" if scene.time is not None else ""
    return f"{spec.name} · {spec.size[0]} × {spec.size[2]} cells, y {y0}–{y1} · Minecraft {spec.mc_version}{when}"


def _legend(scene: Scene) -> list[LegendEntry]:
    return (_legend_blocks(scene) + _legend_chests(scene) + _legend_players(scene) + _legend_groups(scene)
            + _legend_regions(scene))


def _legend_blocks(scene: Scene) -> list[LegendEntry]:
    entries = [LegendEntry("Top blocks", "heading")]
    entries += [LegendEntry(name, "block", block_color(name)) for name in scene.block_names]
    low, high = scene.top_range
    if low < high:
        entries.append(LegendEntry(f"darker = lower (tops at y {low}–{high})", "note"))
    return entries


def _legend_chests(scene: Scene) -> list[LegendEntry]:
    if not scene.chests:
        return []
    return [LegendEntry("Chests", "heading")] + [LegendEntry(f"{name} {_coords(pos)}{_owner(scene, pos)}", "chest")
                                                 for pos, name in scene.chests.items()]


def _owner(scene: Scene, pos: Vec) -> str:
    """Whose end reward a chest counts for: ", Ann's" or ", shared by all"."""
    chest = scene.spec.chests.get(pos)
    if chest is None or not chest.owner:
        return ""
    return ", shared by all" if chest.owner == "shared" else f", {chest.owner}'s"


def _legend_groups(scene: Scene) -> list[LegendEntry]:
    if not scene.spec.groups:
        return []
    return [LegendEntry("Groups (share rewards)", "heading")] + [LegendEntry(g.text, "note") for g in scene.spec.groups]


def _legend_players(scene: Scene) -> list[LegendEntry]:
    colors = palette("players", list(scene.players))
    heading = LegendEntry("Players" if scene.time is not None else "Players (spawn)", "heading")
    return [heading] + [LegendEntry(f"{name} {_coords(pos)}", "player", colors[name]) for name, pos in sorted(scene.players.items())]


def _legend_regions(scene: Scene) -> list[LegendEntry]:
    if not scene.spec.regions:
        return []
    colors = palette("regions", list(scene.spec.regions))
    ordered = sorted(scene.spec.regions.values(), key=lambda r: r.name)
    return [LegendEntry("Regions", "heading")] + [LegendEntry(_region_text(r), "region", colors[r.name]) for r in ordered]


def _coords(p: Vec) -> str:
    return f"({p[0]}, {p[1]}, {p[2]})"


def _span(lo: int, hi: int) -> str:
    """`3–5`, or `-12 to -9` where a dash would read as a minus sign."""
    if lo == hi:
        return str(lo)
    return f"{lo}–{hi}" if lo >= 0 else f"{lo} to {hi}"


def _region_text(r: Region) -> str:
    return f"{r.name}: x {_span(r.lo[0], r.hi[0])}, y {_span(r.lo[1], r.hi[1])}, z {_span(r.lo[2], r.hi[2])}"
