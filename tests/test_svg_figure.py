"""The hand-written SVG figures: round ticks, thinned curves that keep what shows, a valid document."""

from __future__ import annotations

from xml.etree import ElementTree

import numpy as np

from blockpact.experiments.outputs.svg_figure import Figure, _decimate, ticks

SVG = "{http://www.w3.org/2000/svg}"


def test_ticks_are_round_steps_inside_the_view() -> None:
    assert ticks(-36.0, 756.0) == [0, 100, 200, 300, 400, 500, 600, 700]
    assert ticks(-0.25, 5.25) == [0, 1, 2, 3, 4, 5]
    assert ticks(0.0, 1.0) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]


def test_thinning_keeps_each_columns_extremes_and_the_end() -> None:
    px = np.linspace(10.0, 11.9, 200)  # 200 change points in two 1-pt columns
    py = np.where(np.arange(200) == 57, 99.0, 50.0 + np.arange(200) % 3)
    x, y = _decimate(px, py)
    assert len(x) <= 8 and x[0] == 10.0 and x[-1] == 11.9
    assert max(y) == 99.0 and min(y) == 50.0  # the spike and the floor both still drawn
    flat_x, flat_y = _decimate(np.arange(100.0), np.full(100, 7.0))
    assert (flat_x, flat_y) == ([0.0, 99.0], [7.0, 7.0])  # a flat line is its two ends


def test_a_figure_is_an_svg_document_with_its_curves_and_legend() -> None:
    fig = Figure(1, 2, 7.5, 4.0)
    left, right = fig.axes[0]
    left.fill_between([0, 1, 2], [0, 1, 1], [1, 2, 3], step="post", alpha=0.2, color="C1", linewidth=0)
    left.step([0, 1, 2], [0.5, 1.5, 2], where="post", color="C1", label="negotiate (n=5)")
    left.axhline(1.0, color="red", linestyle=":", label="collapse below 1")
    left.set(title="welfare & <more>", xlabel="simulated time (s)", ylabel="emeralds")
    left.legend(loc="lower right")
    root = ElementTree.fromstring(fig.svg())
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "welfare & <more>" in texts and "negotiate (n=5)" in texts and "collapse below 1" in texts
    strokes = [p.get("stroke") for p in root.iter(f"{SVG}path")]
    assert "#ff7f0e" in strokes and "red" in strokes
    assert any(p.get("fill-opacity") == "0.2" for p in root.iter(f"{SVG}path"))  # the band
    assert root.get("width") == "1080pt" and right.x_range() is None  # an empty panel is drawn empty


def test_bars_error_bars_dots_and_named_rotated_ticks() -> None:
    """What an organization run's figures draw (experiments/play/org/plots.py): a bar per condition from 0, its
    interval, one dot per seed, an n/N label above, the conditions' names as rotated ticks."""
    fig = Figure(1, 1, 5.0, 3.6)
    ax = fig.axes[0, 0]
    ax.bar(0, 4.0, width=0.6, color="#8fb3d9")
    ax.bar([1, 2], [2.0, 0.0], width=0.6, label="cond & co")
    ax.errorbar(0, 4.0, yerr=[[1.0], [2.0]], capsize=4)
    ax.plot([0, 0], [3.5, 4.5], "o", color="#1f4e79", markersize=3)
    ax.annotate("2/3", (0, 6.0), xytext=(0, 4), fontsize=7)
    ax.set_xticks(range(3), ["toa-async", "coa-relay", "a-long-condition-name"], rotation=30, fontsize=8)
    ax.legend("upper right", fontsize="small")
    assert ax.y_range() == (0.0, 6.0) and ax.x_range() == (-0.3, 2.3)  # bars from 0, whole widths; text not data
    root = ElementTree.fromstring(fig.svg())
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("fill") in ("#8fb3d9", "#1f77b4")]
    assert len(bars) == 4  # three bars (one of height 0) and the legend's swatch
    assert len(list(root.iter(f"{SVG}circle"))) == 2
    texts = {t.text: t for t in root.iter(f"{SVG}text")}
    assert "2/3" in texts and "cond & co" in texts
    assert "rotate(-30)" in texts["a-long-condition-name"].get("transform")
    plain = Figure(1, 1, 5.0, 3.6)
    plain.axes[0, 0].bar(0, 1.0)
    frame = [r for r in ElementTree.fromstring(plain.svg()).iter(f"{SVG}rect") if r.get("stroke") == "black"]
    rotated = [r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "black"]
    assert float(rotated[0].get("height")) < float(frame[0].get("height"))  # room left below for the names
