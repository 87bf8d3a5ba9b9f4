"""A figure of panels written as SVG text: the few things a run's and an organization run's figures draw (step
curves, min–max bands, markers, horizontal lines, bars, error bars, dots, annotations, named x ticks, legends,
titles, axis labels), with an interface named like matplotlib's for them.

Why not matplotlib: importing it costs ~0.8 s of CPU and drawing and encoding one PNG 0.15–0.7 s, paid by
every run, resume, report and sweep unit with plots, while these figures need none of its generality. Here a
figure is a few kilobytes of text built in milliseconds, drawn at any size by the browser showing the report.
Sizes are in points (72 per inch) so font sizes read as in matplotlib (10 pt text, 12 pt titles).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

import numpy as np

PT = 72.0  # points per inch
LEFT, RIGHT, BOTTOM, TOP, WGAP, HGAP = 0.8, 0.2, 0.55, 0.35, 0.45, 0.95  # margins and gaps, inches
FONT, SMALL, TITLE = 10.0, 8.3, 12.0
_CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf"]  # matplotlib's default colours, "C0" to "C9"
_DASHES = {"-": None, "--": "5.5,2.4", ":": "1,1.65"}
_CHAR = 0.62  # average glyph width in ems, for sizing a legend's box
DIAMOND_R = 4.2  # a marker's half-width (pt)
DIAMOND_STEP = 2 * DIAMOND_R + 1  # how far a marker moves left off one drawn before it (pt)


def color(name: str) -> str:
    """"C3" as the cycle's fourth colour; other names are SVG colour names already ("grey", "red")."""
    return _CYCLE[int(name[1:]) % len(_CYCLE)] if name[:1] == "C" and name[1:].isdigit() else name


@dataclass
class _Mark:
    kind: str  # "step", "band", "points", "hline", "bar" (y2: its base), "errorbar" (y to y2), "dots", "text"
    x: np.ndarray
    y: np.ndarray
    y2: np.ndarray | None = None
    color: str = "C0"
    label: str | None = None
    alpha: float = 1.0
    dash: str = "-"
    size: float = 1.5  # a line's width, a bar's width (data units), a dot's diameter or a text's font size (pt)
    text: str = ""
    offset: float = 0.0  # a text's height above its point (pt)


@dataclass
class Axes:
    marks: list[_Mark] = field(default_factory=list)
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    legend_at: str | None = None  # "lower right", "upper right", "upper left", "outside" (right of the panel)
    legend_size: float = FONT
    title_size: float = TITLE
    xticks: list[tuple[float, str]] | None = None  # named ticks (categories) instead of round numbers
    xtick_rotation: float = 0.0
    xtick_size: float = FONT
    xlim: tuple[float, float] | None = None  # the view, when the data's padded range is not the right one
    ylim: tuple[float, float] | None = None
    integer_y: bool = False  # counts: whole-number ticks

    def step(self, x: Sequence[float], y: Sequence[float], where: str = "post", color: str = "C0",
             label: str | None = None, alpha: float = 1.0, linewidth: float = 1.5) -> None:
        assert where == "post"
        self.marks.append(_Mark("step", np.asarray(x, float), np.asarray(y, float), color=color, label=label,
                                alpha=alpha, size=linewidth))

    def bar(self, x: Sequence[float] | float, height: Sequence[float] | float, width: float = 0.8,
            color: str = "C0", label: str | None = None) -> None:
        x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(height, float))
        self.marks.append(_Mark("bar", x, y, np.zeros_like(y), color, label, size=width))

    def errorbar(self, x: float, y: float, yerr: Sequence[Sequence[float]], color: str = "black",
                 capsize: float = 4.0) -> None:
        """One vertical error bar from y - yerr[0][0] to y + yerr[1][0], with caps `capsize` points wide."""
        self.marks.append(_Mark("errorbar", np.array([float(x)]), np.array([y - yerr[0][0]]),
                                np.array([y + yerr[1][0]]), color, size=capsize))

    def plot(self, x: Sequence[float], y: Sequence[float], fmt: str = "o", color: str = "C0",
             markersize: float = 6.0) -> None:
        assert fmt == "o"
        self.marks.append(_Mark("dots", np.asarray(x, float), np.asarray(y, float), color=color, size=markersize))

    def annotate(self, text: str, xy: tuple[float, float], xytext: tuple[float, float] = (0.0, 0.0),
                 fontsize: float = FONT) -> None:
        """`text` centred `xytext[1]` points above the data point `xy` (textcoords="offset points", ha="center")."""
        self.marks.append(_Mark("text", np.array([float(xy[0])]), np.array([float(xy[1])]), size=fontsize,
                                text=text, offset=xytext[1], color="black"))

    def set_xticks(self, positions: Sequence[float], labels: Sequence[str], rotation: float = 0.0,
                   fontsize: float = FONT) -> None:
        self.xticks = [(float(p), str(label)) for p, label in zip(positions, labels)]
        self.xtick_rotation, self.xtick_size = rotation, fontsize

    def fill_between(self, x: Sequence[float], y1: Sequence[float], y2: Sequence[float], step: str = "post",
                     alpha: float = 1.0, color: str = "C0", linewidth: float = 0, label: str | None = None) -> None:
        assert step == "post" and linewidth == 0
        self.marks.append(_Mark("band", np.asarray(x, float), np.asarray(y1, float), np.asarray(y2, float), color,
                                label, alpha))

    def scatter(self, x: Sequence[float], y: Sequence[float], marker: str = "D", color: str = "C0",
                zorder: int | None = None, label: str | None = None) -> None:
        assert marker == "D"
        self.marks.append(_Mark("points", np.asarray(x, float), np.asarray(y, float), color=color, label=label))

    def axhline(self, y: float, color: str = "C0", linestyle: str = "-", label: str | None = None) -> None:
        self.marks.append(_Mark("hline", np.empty(0), np.array([float(y)]), color=color, label=label, dash=linestyle))

    def set(self, title: str = "", xlabel: str = "", ylabel: str = "", title_size: float = TITLE) -> None:
        self.title, self.xlabel, self.ylabel, self.title_size = title, xlabel, ylabel, title_size

    def set_xlim(self, lo: float, hi: float) -> None:
        self.xlim = (float(lo), float(hi))

    def set_ylim(self, lo: float, hi: float) -> None:
        self.ylim = (float(lo), float(hi))

    def legend(self, loc: str, fontsize: str | None = None) -> None:
        self.legend_at, self.legend_size = loc, SMALL if fontsize == "small" else FONT

    def x_range(self) -> tuple[float, float] | None:
        """What the marks cover (a bar its whole width; a text is not data and is left out)."""
        return _finite_range([a for m in self.marks if m.kind != "text"
                              for a in ((m.x - m.size / 2, m.x + m.size / 2) if m.kind == "bar" else (m.x,))]
                             + [np.array([p for p, _ in self.xticks or []])])

    def y_range(self) -> tuple[float, float] | None:
        return _finite_range([a for m in self.marks if m.kind != "text" for a in (m.y, m.y2) if a is not None])

    def tick_label_depth(self) -> float:
        """How far (pt) rotated x tick labels reach below the axis beyond an unrotated one's line."""
        if not self.xticks or not self.xtick_rotation:
            return 0.0
        longest = max(len(label) for _, label in self.xticks) * self.xtick_size * _CHAR
        return longest * math.sin(math.radians(self.xtick_rotation))


def _finite_range(arrays: list[np.ndarray]) -> tuple[float, float] | None:
    """The range of the finite values (a mean over no seeds is NaN, and is not drawn)."""
    values = np.concatenate([np.ravel(a) for a in arrays] or [np.empty(0)])
    values = values[np.isfinite(values)]
    return (float(values.min()), float(values.max())) if values.size else None


def _padded(r: tuple[float, float] | None) -> tuple[float, float]:
    """matplotlib's default view: the data's range widened by 5% each side (a flat range by one unit)."""
    if r is None:
        return 0.0, 1.0
    lo, hi = r
    if hi == lo:
        return lo - 1.0, hi + 1.0
    pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad


def ticks(lo: float, hi: float, most: int = 8, integer: bool = False) -> list[float]:
    """Round tick values in [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten, at most `most` of them
    (`integer`: whole steps of 1, 2 or 5 times a power of ten, for counts)."""
    span = hi - lo
    base = 10.0 ** math.floor(math.log10(span / most))
    step = next(base * m for m in ((1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)) if span / (base * m) <= most)
    if integer:
        step = max(step, 1.0)
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 10) for k in range(first, math.floor(hi / step + 1e-9) + 1)]


def _label(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e6 else f"{v:.3g}"


class Figure:
    """rows x cols panels; the panels of a row share their y-axis (tick labels on the first only)."""

    def __init__(self, rows: int, cols: int, panel_width: float, panel_height: float, share_y: bool = True) -> None:
        """`share_y=False`: each panel has its own y-axis and tick labels (panels of different measures)."""
        self.width, self.height = panel_width * cols * PT, panel_height * rows * PT
        self.share_y = share_y
        self.axes = np.array([[Axes() for _ in range(cols)] for _ in range(rows)], dtype=object)
        gap = WGAP if share_y else LEFT + 0.15
        self._gap = gap
        self._w = (self.width - (LEFT + RIGHT + (cols - 1) * gap) * PT) / cols
        self._h = (self.height - (BOTTOM + TOP + (rows - 1) * HGAP) * PT) / rows

    def svg(self) -> str:
        """The document; the panels shrink to leave room below for the last row's rotated tick labels and to their
        right for legends placed outside ("outside")."""
        h = self._h - max(ax.tick_label_depth() for ax in self.axes[-1]) / len(self.axes)
        cols = self.axes.shape[1]
        room = max([legend_width(ax) + 10 for ax in self.axes.flat if ax.legend_at == "outside"] + [0.0])
        self._room = room
        width = self.width + cols * room  # the figure grows by its legends: the panels keep their size
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}pt" height="{self.height:g}pt" '
               f'viewBox="0 0 {width:g} {self.height:g}" font-family="DejaVu Sans, Verdana, sans-serif" '
               f'font-size="{FONT:g}">', f'<rect width="{width:g}" height="{self.height:g}" fill="white"/>']
        for r, row in enumerate(self.axes):
            fixed = [ax.ylim for ax in row if ax.ylim is not None]
            y_view = _union(fixed) if fixed else _padded(_union([ax.y_range() for ax in row]))
            for c, ax in enumerate(row):
                x0, y0 = (LEFT + c * self._gap) * PT + c * (self._w + self._room), (TOP + r * HGAP) * PT + r * h
                x_view = ax.xlim or _padded(ax.x_range())
                own = y_view if self.share_y else (ax.ylim or _padded(ax.y_range()))
                out += _Panel(ax, x0, y0, self._w, h, x_view, own, f"p{r}_{c}").svg(c == 0 or not self.share_y)
        out.append("</svg>\n")
        return "\n".join(out)


def _union(ranges: list[tuple[float, float] | None]) -> tuple[float, float] | None:
    known = [r for r in ranges if r is not None]
    return (min(r[0] for r in known), max(r[1] for r in known)) if known else None


def _cell(x: float, y: float) -> tuple[int, int]:
    """The cell of _Panel.placed that (x, y) falls in."""
    return math.floor(x / DIAMOND_STEP), math.floor(y / (2 * DIAMOND_R))


@dataclass
class _Panel:
    ax: Axes
    x0: float
    y0: float
    w: float
    h: float
    xv: tuple[float, float]
    yv: tuple[float, float]
    clip: str
    # the markers drawn so far (points), by cell of DIAMOND_STEP x 2 DIAMOND_R: one that covers (x, y) is in a
    # neighbouring cell, so a check looks at the markers near it, not at every one drawn (256 players: seconds)
    placed: dict[tuple[int, int], list[tuple[float, float]]] = field(default_factory=dict)

    def px(self, x: np.ndarray) -> np.ndarray:
        return self.x0 + (x - self.xv[0]) / (self.xv[1] - self.xv[0]) * self.w

    def py(self, y: np.ndarray) -> np.ndarray:
        return self.y0 + self.h - (y - self.yv[0]) / (self.yv[1] - self.yv[0]) * self.h

    def svg(self, y_labels: bool) -> list[str]:
        ax, (x0, y0, w, h) = self.ax, (self.x0, self.y0, self.w, self.h)
        out = [f'<clipPath id="{self.clip}"><rect x="{x0:.2f}" y="{y0:.2f}" width="{w:.2f}" height="{h:.2f}"/></clipPath>',
               f'<g clip-path="url(#{self.clip})">']
        out += [self._mark(m) for m in ax.marks if m.kind != "text"]
        out.append("</g>")
        out.append(f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{w:.2f}" height="{h:.2f}" fill="none" stroke="black" '
                   'stroke-width="0.8"/>')
        for v, name in ax.xticks if ax.xticks is not None else [(v, _label(v)) for v in ticks(*self.xv)]:
            x = float(self.px(np.array(v)))
            out.append(f'<path d="M{x:.2f} {y0 + h:.2f}v3.5" stroke="black" stroke-width="0.8"/>' + self._tick(x, name))
        for v in ticks(*self.yv, most=7, integer=ax.integer_y):
            y = float(self.py(np.array(v)))
            out.append(f'<path d="M{x0:.2f} {y:.2f}h-3.5" stroke="black" stroke-width="0.8"/>')
            if y_labels:
                out.append(f'<text x="{x0 - 6:.2f}" y="{y + 3.5:.2f}" text-anchor="end">{_label(v)}</text>')
        out.append(f'<text x="{x0 + w / 2:.2f}" y="{y0 + h + 29:.2f}" text-anchor="middle">{escape(ax.xlabel)}</text>')
        out.append(f'<text transform="translate({x0 - (38 if y_labels else 8):.2f} {y0 + h / 2:.2f}) rotate(-90)" '
                   f'text-anchor="middle">{escape(ax.ylabel)}</text>')
        out.append(f'<text x="{x0 + w / 2:.2f}" y="{y0 - 7:.2f}" text-anchor="middle" font-size="{ax.title_size:g}">'
                   f'{escape(ax.title)}</text>')
        out += [self._text(m) for m in ax.marks if m.kind == "text"]  # not clipped: a label above the top bar
        if ax.legend_at is not None:
            out += self._legend()
        return out

    def _tick(self, x: float, name: str) -> str:
        ax, y = self.ax, self.y0 + self.h + 14
        size = f' font-size="{ax.xtick_size:g}"' if ax.xtick_size != FONT else ""
        if not ax.xtick_rotation:
            return f'<text x="{x:.2f}" y="{y:.2f}" text-anchor="middle"{size}>{escape(name)}</text>'
        return (f'<text transform="translate({x:.2f} {y - 4:.2f}) rotate({-ax.xtick_rotation:g})" text-anchor="end"'
                f'{size}>{escape(name)}</text>')

    def _text(self, m: _Mark) -> str:
        x, y = float(self.px(m.x)[0]), float(self.py(m.y)[0]) - m.offset
        return f'<text x="{x:.2f}" y="{y:.2f}" text-anchor="middle" font-size="{m.size:g}">{escape(m.text)}</text>'

    def _mark(self, m: _Mark) -> str:
        fill = color(m.color)
        if m.kind == "step":
            opacity = f' stroke-opacity="{m.alpha:g}"' if m.alpha < 1 else ""
            return f'<path d="{self._steps(m.x, m.y)}" fill="none" stroke="{fill}" stroke-width="{m.size:g}"{opacity}/>'
        if m.kind == "bar":
            left, right = self.px(m.x - m.size / 2), self.px(m.x + m.size / 2)
            top, base = self.py(m.y), self.py(m.y2)  # type: ignore[arg-type]
            return "".join(f'<rect x="{a:.2f}" y="{min(t, b):.2f}" width="{c - a:.2f}" height="{abs(b - t):.2f}" '
                           f'fill="{fill}"/>' for a, c, t, b in zip(left, right, top, base) if math.isfinite(t))
        if m.kind == "errorbar":
            x, lo, hi, cap = float(self.px(m.x)[0]), float(self.py(m.y)[0]), float(self.py(m.y2)[0]), m.size  # type: ignore[arg-type]
            return (f'<path d="M{x:.2f} {lo:.2f}V{hi:.2f}M{x - cap:.2f} {lo:.2f}h{2 * cap:g}M{x - cap:.2f} {hi:.2f}'
                    f'h{2 * cap:g}" fill="none" stroke="{fill}" stroke-width="1.5"/>')
        if m.kind == "dots":
            return "".join(f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{m.size / 2:g}" fill="{fill}"/>'
                           for x, y in zip(self.px(m.x), self.py(m.y)) if math.isfinite(x + y))
        if m.kind == "band":
            upper = self._points(m.x, m.y2)  # type: ignore[arg-type]
            lower = self._points(m.x, m.y)[::-1]
            d = "M" + " L".join(f"{x:g} {y:g}" for x, y in [*upper, *lower]) + "Z"
            return f'<path d="{d}" fill="{fill}" fill-opacity="{m.alpha:g}" stroke="none"/>'
        if m.kind == "points":
            return "".join(_diamond(*self._free_spot(x, y), fill) for x, y in zip(self.px(m.x), self.py(m.y))
                           if math.isfinite(x + y))
        y = float(self.py(m.y)[0])
        dash = _DASHES[m.dash]
        return (f'<path d="M{self.x0:.2f} {y:.2f}h{self.w:.2f}" stroke="{fill}" stroke-width="1.5"'
                + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")

    def _free_spot(self, x: float, y: float) -> tuple[float, float]:
        """Where a marker for (x, y) is drawn: there, or moved left until it covers none drawn before it. Two
        players with the same reward after transfers would have one diamond on top of the other: each
        shows, in its colour, side by side."""
        while self._covers(x, y):
            x -= DIAMOND_STEP
        self.placed.setdefault(_cell(x, y), []).append((x, y))
        return x, y

    def _covers(self, x: float, y: float) -> bool:
        """Whether a marker drawn before covers (x, y)."""
        cx, cy = _cell(x, y)
        return any(abs(x - a) < DIAMOND_STEP and abs(y - b) < 2 * DIAMOND_R
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1) for a, b in self.placed.get((cx + dx, cy + dy), ()))

    def _points(self, x: np.ndarray, y: np.ndarray) -> list[tuple[float, float]]:
        """The corners of a step curve holding y[i] from x[i] to x[i + 1], in points."""
        px, py = _decimate(self.px(x), self.py(y))
        corners = [(px[0], py[0])]
        for i in range(1, len(px)):
            corners += [(px[i], py[i - 1]), (px[i], py[i])]
        return corners

    def _steps(self, x: np.ndarray, y: np.ndarray) -> str:
        px, py = _decimate(self.px(x), self.py(y))
        return f"M{px[0]:g} {py[0]:g}" + "".join(f"H{a:g}V{b:g}" for a, b in zip(px[1:], py[1:]))

    def _legend(self) -> list[str]:
        entries = [m for m in self.ax.marks if m.label]
        if not entries:
            return []
        size = self.ax.legend_size
        line, swatch, pad = size * 1.45, 2.0 * size, 0.5 * size
        width = legend_width(self.ax)
        height = len(entries) * line + pad
        at = self.ax.legend_at or ""
        left = self.x0 + 5 if at.endswith("left") else self.x0 + self.w - width - 5
        top = self.y0 + 5 if at.startswith("upper") else self.y0 + self.h - height - 5
        if at == "outside":
            left, top = self.x0 + self.w + 8, self.y0
        out = [f'<rect x="{left:.2f}" y="{top:.2f}" width="{width:.2f}" height="{height:.2f}" rx="2" fill="white" '
               'fill-opacity="0.8" stroke="#cccccc" stroke-width="0.8"/>']
        for i, m in enumerate(entries):
            y, x = top + pad + (i + 0.5) * line - 0.15 * size, left + pad
            fill = color(m.color)
            if m.kind in ("band", "bar"):
                out.append(f'<rect x="{x:.2f}" y="{y - 0.35 * size:.2f}" width="{swatch:.2f}" height="{0.7 * size:.2f}" '
                           f'fill="{fill}" fill-opacity="{m.alpha:g}"/>')
            elif m.kind == "points":
                out.append(_diamond(x + swatch / 2, y, fill))
            else:
                dash = _DASHES[m.dash]
                out.append(f'<path d="M{x:.2f} {y:.2f}h{swatch:.2f}" stroke="{fill}" stroke-width="1.5"'
                           + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
            out.append(f'<text x="{x + swatch + 0.8 * pad:.2f}" y="{y + 0.35 * size:.2f}" font-size="{size:g}">'
                       f'{escape(m.label or "")}</text>')
        return out


def legend_width(ax: Axes) -> float:
    """The width (pt) of the axes' legend box."""
    labels = [m.label for m in ax.marks if m.label]
    if not labels:
        return 0.0
    size = ax.legend_size
    return 2.0 * size + 1.5 * 0.5 * size + max(len(label) for label in labels) * size * _CHAR + 0.5 * size


def _decimate(px: np.ndarray, py: np.ndarray) -> tuple[list[float], list[float]]:
    """A step curve's points (in points, to a tenth) thinned to what shows: of the points falling in one
    1-point column only the first, the lowest, the highest and the last are kept, then a point at the height
    of the one before (its horizontal only goes on) is dropped, but the last. A long episode has thousands
    of change times per panel; a browser draws the same picture from these, and the file stays small."""
    px, py = np.round(px, 1), np.round(py, 1)
    cols = np.floor(px).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
    ends = np.r_[starts[1:] - 1, len(px) - 1]
    order = np.lexsort((py, cols))  # by column, then by height: each column's lowest first, highest last
    keep = np.unique(np.concatenate([starts, ends, order[starts], order[ends]]))
    px, py = px[keep], py[keep]
    moves = np.r_[True, py[1:] != py[:-1]]
    moves[-1] = True
    return px[moves].tolist(), py[moves].tolist()


def _diamond(x: float, y: float, fill: str, r: float = DIAMOND_R) -> str:
    return f'<path d="M{x:.2f} {y - r:.2f}l{r:g} {r:g}l{-r:g} {r:g}l{-r:g} {-r:g}Z" fill="{fill}"/>'
