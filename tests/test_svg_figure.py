"""The hand-written SVG figures: round ticks, thinned curves that keep what shows, a valid document."""

from __future__ import annotations

from xml.etree import ElementTree

import numpy as np

from blockpact.experiments.svg_figure import Figure, _decimate, ticks

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
