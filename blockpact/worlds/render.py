"""Top-down pictures of worlds, so a person can check a world file (or a moment of a run) at a glance.

Each (x, z) column shows its topmost block, darker the lower it lies. Chests, players and named
regions are drawn over the blocks, with a title, Minecraft coordinates on the axes and a legend.
What is shown and where is worked out in render_layout.py, the colours in colors.py; this module draws.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from blockpact.worlds.colors import INK, LATCH, PAPER, RGB, WHITE, block_color, palette, shade
from blockpact.worlds.render_layout import Font, Fonts, Layout, LegendEntry, Scene, plan, subtitle, text_size
from blockpact.worlds.spec.schema import Region, Vec, WorldSpec
from blockpact.worlds.state import WorldState

Box = tuple[float, float, float, float]  # left, top, right, bottom in pixels
TICK_STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def render_world(spec: WorldSpec, out: Path, state: WorldState | None = None, scale: int = 24) -> Path:
    """Write a top-down PNG of `spec` (or of `state`, a moment of a run of it) to `out`."""
    scene, fonts, legend, layout = plan(spec, state, scale)
    image = Image.new("RGB", layout.size, PAPER)
    draw = ImageDraw.Draw(image, "RGBA")  # RGBA fills blend, for faint grid lines and label backs
    _draw_header(draw, scene, fonts, layout)
    _draw_columns(draw, scene, layout)
    _draw_ticks(draw, scene.spec, fonts, layout)
    taken = _draw_marks(draw, scene, layout)
    _draw_labels(draw, scene, fonts, layout, taken)
    _draw_legend(draw, legend, fonts, layout)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, format="PNG")
    return out


def _draw_header(draw: ImageDraw.ImageDraw, scene: Scene, fonts: Fonts, layout: Layout) -> None:
    _, title_h = text_size(fonts.title, "Ag")
    draw.text((layout.pad, layout.pad), scene.spec.title, font=fonts.title, fill=INK)
    draw.text((layout.pad, layout.pad + title_h), subtitle(scene), font=fonts.text, fill=(90, 90, 90))


def _draw_columns(draw: ImageDraw.ImageDraw, scene: Scene, layout: Layout) -> None:
    """Each column's top block, shaded by height, over a faint cell grid; empty columns stay white."""
    _, high = scene.top_range
    draw.rectangle(layout.map_box, fill=WHITE)
    for (x, z), (block, y) in scene.tops.items():
        draw.rectangle(_inner(layout.cell_box(x, z)), fill=shade(block_color(block), high - y))
    left, top, right, bottom = layout.map_box
    for px in range(left + layout.scale, right, layout.scale):
        draw.line([(px, top), (px, bottom - 1)], fill=(0, 0, 0, 40))
    for py in range(top + layout.scale, bottom, layout.scale):
        draw.line([(left, py), (right - 1, py)], fill=(0, 0, 0, 40))
    draw.rectangle((left - 1, top - 1, right, bottom), outline=INK)


def _inner(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Pillow rectangles include their right and bottom edge; a cell's box does not."""
    return (box[0], box[1], box[2] - 1, box[3] - 1)


def _tick_step(font: Font, labels: list[str], scale: int) -> int:
    """Label every cell when the numbers fit, else every 2nd, 5th, 10th ... coordinate."""
    widest = max(text_size(font, label)[0] for label in labels)
    return next((s for s in TICK_STEPS if s * scale >= widest + 6), TICK_STEPS[-1])


def _draw_ticks(draw: ImageDraw.ImageDraw, spec: WorldSpec, fonts: Fonts, layout: Layout) -> None:
    left, top, right, _ = layout.map_box
    xs = [spec.origin[0] + i for i in range(spec.size[0])]
    zs = [spec.origin[2] + i for i in range(spec.size[2])]
    step = _tick_step(fonts.small, [str(v) for v in xs + zs], layout.scale)
    for x in xs:
        if x % step == 0:
            cx, _ = layout.centre(x, zs[0])
            draw.line([(cx, top - 5), (cx, top - 2)], fill=INK)
            draw.text((cx, top - 6), str(x), font=fonts.small, fill=INK, anchor="md")
    for z in zs:
        if z % step == 0:
            _, cy = layout.centre(xs[0], z)
            draw.line([(left - 5, cy), (left - 2, cy)], fill=INK)
            draw.text((left - 7, cy), str(z), font=fonts.small, fill=INK, anchor="rm")
    _, small_h = text_size(fonts.small, "0")
    axis_y = top - 8 - small_h
    draw.text(((left + right) / 2, axis_y), "x →", font=fonts.text, fill=INK, anchor="md")
    draw.text((left - 7, axis_y), "z ↓", font=fonts.text, fill=INK, anchor="rd")


def _draw_marks(draw: ImageDraw.ImageDraw, scene: Scene, layout: Layout) -> list[Box]:
    """Region outlines, chests and player dots; returns the boxes labels must not cover."""
    colors = palette("regions", list(scene.spec.regions))
    for name, box in _region_boxes(scene.spec.regions, layout).items():
        draw.rectangle(box, outline=INK, width=4)
        draw.rectangle((box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1), outline=colors[name], width=2)
    taken: list[Box] = []
    for pos in scene.chests:
        box = layout.cell_box(pos[0], pos[2])
        _draw_chest(draw, box)
        taken.append(box)
    player_colors = palette("players", list(scene.players))
    radius = layout.scale * 0.32
    for name, (cx, cy) in _dot_centres(scene.players, layout).items():
        _draw_dot(draw, (cx, cy), radius, player_colors[name])
        taken.append((cx - radius, cy - radius, cx + radius, cy + radius))
    return taken


def _contains_xz(outer: Region, inner: Region) -> bool:
    return all(outer.lo[i] <= inner.lo[i] and inner.hi[i] <= outer.hi[i] for i in (0, 2))


def _region_boxes(regions: dict[str, Region], layout: Layout) -> dict[str, tuple[int, int, int, int]]:
    """Pixel outline per region; one inside another is drawn further in, so shared edges stay visible."""
    ordered = sorted(regions.values(), key=lambda r: r.name)
    boxes = {}
    for r in ordered:
        depth = sum(
            1 for o in ordered if o is not r and _contains_xz(o, r) and (not _contains_xz(r, o) or o.name < r.name)
        )
        inset = 1 + 3 * depth
        left, top, _, _ = layout.cell_box(r.lo[0], r.lo[2])
        _, _, right, bottom = layout.cell_box(r.hi[0], r.hi[2])
        boxes[r.name] = (left + inset, top + inset, right - 1 - inset, bottom - 1 - inset)
    return boxes


def _draw_chest(draw: ImageDraw.ImageDraw, box: Box) -> None:
    """A chest icon (body, lid line, latch) on a white cell, so chests stand out from any block."""
    left, top, right, bottom = box
    size = right - left
    m = max(2, round(size * 0.14))
    line = max(1, round(size / 14))
    draw.rectangle((left, top, right - 1, bottom - 1), fill=WHITE)
    draw.rectangle((left + m, top + m, right - 1 - m, bottom - 1 - m), fill=block_color("chest"), outline=INK, width=line)
    lid = top + m + (size - 2 * m) * 0.4
    draw.line([(left + m, lid), (right - 1 - m, lid)], fill=INK, width=line)
    cx, k = (left + right) / 2, max(2.0, size * 0.1)
    draw.rectangle((cx - k / 2, lid - k / 2, cx + k / 2, lid + k), fill=LATCH, outline=INK)


def _draw_dot(draw: ImageDraw.ImageDraw, centre: tuple[float, float], radius: float, color: RGB) -> None:
    cx, cy = centre
    draw.ellipse((cx - radius - 1, cy - radius - 1, cx + radius + 1, cy + radius + 1), fill=INK)
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=color, outline=WHITE, width=2)


def _dot_centres(players: dict[str, Vec], layout: Layout) -> dict[str, tuple[float, float]]:
    """Each player's dot at its cell's centre; players sharing a cell are spread around it."""
    by_cell: dict[tuple[int, int], list[str]] = {}
    for name in sorted(players):
        by_cell.setdefault((players[name][0], players[name][2]), []).append(name)
    centres = {}
    for (x, z), names in by_cell.items():
        cx, cy = layout.centre(x, z)
        spread = layout.scale * 0.25 if len(names) > 1 else 0.0
        for i, name in enumerate(names):
            angle = 2 * np.pi * i / len(names)
            centres[name] = (cx + spread * float(np.cos(angle)), cy + spread * float(np.sin(angle)))
    return centres


# -- labels --------------------------------------------------------------------------------------
class LabelPlacer:
    """Puts each label at the first candidate spot inside the map that covers no mark or earlier label."""

    def __init__(self, bounds: Box, taken: list[Box]) -> None:
        self.bounds = bounds
        self.taken = list(taken)

    def place(self, size: tuple[int, int], spots: list[tuple[float, float]]) -> Box:
        w, h = size
        boxes = [(x, y, x + w, y + h) for x, y in spots]
        inside = [b for b in boxes if _within(b, self.bounds)] or boxes
        best = min(inside, key=lambda b: sum(_overlap(b, t) for t in self.taken))
        self.taken.append(best)
        return best


def _within(box: Box, bounds: Box) -> bool:
    return bounds[0] <= box[0] and bounds[1] <= box[1] and box[2] <= bounds[2] and box[3] <= bounds[3]


def _overlap(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _around(box: Box, w: int, h: int, gap: float) -> list[tuple[float, float]]:
    """Right, left, above, below, then the four corners of `box`."""
    left, top, right, bottom = box
    cx, cy = (left + right) / 2, (top + bottom) / 2
    return [
        (right + gap, cy - h / 2), (left - gap - w, cy - h / 2), (cx - w / 2, top - gap - h), (cx - w / 2, bottom + gap),
        (right + gap, top - h), (right + gap, bottom), (left - gap - w, top - h), (left - gap - w, bottom),
    ]


def _region_spots(box: Box, w: int, h: int) -> list[tuple[float, float]]:
    """Outside the region's corners first (so its blocks stay visible), then inside them."""
    left, top, right, bottom = box
    return [
        (left, top - h - 1), (right - w, top - h - 1), (left, bottom + 1), (right - w, bottom + 1),
        (left + 4, top + 4), (right - w - 4, top + 4), (left + 4, bottom - h - 4), (right - w - 4, bottom - h - 4),
    ]


def _label_size(font: Font, text: str) -> tuple[int, int]:
    w, h = text_size(font, text)
    return w + 8, h + 2


def _draw_label(draw: ImageDraw.ImageDraw, box: Box, text: str, font: Font, fill: RGB, ink: RGB) -> None:
    draw.rounded_rectangle(box, radius=3, fill=(*fill, 225), outline=INK)
    draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, font=font, fill=ink, anchor="mm")


def _draw_labels(draw: ImageDraw.ImageDraw, scene: Scene, fonts: Fonts, layout: Layout, taken: list[Box]) -> None:
    """Players first (they matter most), then chests, then regions, each where it fits best."""
    placer = LabelPlacer(layout.map_box, taken)
    colors = palette("players", list(scene.players))
    radius = layout.scale * 0.32
    for name, (cx, cy) in _dot_centres(scene.players, layout).items():
        size = _label_size(fonts.bold, name)
        box = placer.place(size, _around((cx - radius, cy - radius, cx + radius, cy + radius), *size, 2))
        _draw_label(draw, box, name, fonts.bold, colors[name], WHITE)
    for pos, name in scene.chests.items():
        size = _label_size(fonts.small, name)
        box = placer.place(size, _around(layout.cell_box(pos[0], pos[2]), *size, 1))
        _draw_label(draw, box, name, fonts.small, WHITE, INK)
    region_colors = palette("regions", list(scene.spec.regions))
    for name, outline in _region_boxes(scene.spec.regions, layout).items():
        size = _label_size(fonts.small, name)
        box = placer.place(size, _region_spots(outline, *size))
        _draw_label(draw, box, name, fonts.small, region_colors[name], INK)


# -- legend --------------------------------------------------------------------------------------
def _draw_legend(draw: ImageDraw.ImageDraw, legend: list[LegendEntry], fonts: Fonts, layout: Layout) -> None:
    x, y = layout.legend_xy
    row = layout.legend_row
    for entry in legend:
        mid = y + row / 2
        if entry.mark == "heading":
            draw.text((x, mid), entry.text, font=fonts.bold, fill=INK, anchor="lm")
        else:
            _draw_legend_mark(draw, entry, (x + 2, y + 2, x + row - 4, y + row - 4))
            font = fonts.small if entry.mark == "note" else fonts.text
            draw.text((x + row, mid), entry.text, font=font, fill=INK, anchor="lm")
        y += row


def _draw_legend_mark(draw: ImageDraw.ImageDraw, entry: LegendEntry, box: Box) -> None:
    if entry.mark == "block":
        draw.rectangle(box, fill=entry.color, outline=INK)
    elif entry.mark == "chest":
        _draw_chest(draw, box)
    elif entry.mark == "player":
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        _draw_dot(draw, (cx, cy), (box[2] - box[0]) * 0.4, entry.color)
    elif entry.mark == "region":
        draw.rectangle(box, outline=INK, width=4)
        draw.rectangle((box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1), outline=entry.color, width=2)
