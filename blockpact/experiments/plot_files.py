"""Every figure of a run written as an SVG file: the figures of plots.py and the commons figure (which draws
with plots.py's helpers, so the list that joins them lives here, above both)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from blockpact.experiments.commons_plot import commons_plot
from blockpact.experiments.plots import FIGURES
from blockpact.experiments.records import RunRecord


@dataclass(frozen=True)
class Plot:
    name: str  # file stem
    title: str
    path: Path


def write_plots(run: RunRecord, directory: Path) -> list[Plot]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, title, draw in [*FIGURES, ("commons", "Commons: stocks against collapse (GovSim)", commons_plot)]:
        path = directory / f"{name}.svg"
        path.unlink(missing_ok=True)
        if draw(run, path):
            written.append(Plot(name, title, path))
    return written
