"""Every figure of a run written as SVG and as PDF (vector, svg_pdf.py) in plots/: the curves of plots.py, the
per-condition interval plots of each measure (measure_plots.py) and the commons figure (which draws with
plots.py's helpers, so the list that joins them lives here, above both)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.experiments.outputs.commons_plot import commons_plot
from blockpact.experiments.outputs.measure_plots import Column, intervals_figure
from blockpact.experiments.outputs.plots import FIGURES, page_colors
from blockpact.experiments.log.records import RunRecord
from blockpact.experiments.outputs.svg_pdf import svg_to_pdf


@dataclass(frozen=True)
class Plot:
    name: str  # file stem
    title: str
    path: Path  # the SVG; the PDF beside it

    @property
    def pdf(self) -> Path:
        return self.path.with_suffix(".pdf")


def measures_plot(run: RunRecord, metrics: dict[str, Any], path: Path) -> bool:
    """Per condition, each completed seed's welfare and Gini (and GovSim's measures where the world has them)."""
    colors = page_colors(run)
    conditions = [(name, c) for name, c in metrics["conditions"].items() if c["runs"]]
    if not conditions:
        return False
    commons = (metrics.get("commons") or {}).get("conditions", {})
    panels = []
    for measure, title in (("welfare", "social welfare"), ("gini", "Gini (inequality)")):
        columns = [Column(name, [float(r[measure]) for r in c["runs"] if r.get(measure) is not None],
                          colors.condition(name)) for name, c in conditions]
        if any(col.values for col in columns):
            panels.append((measure, f"{title} per condition", columns))
    efficiency = [Column(name, [float(s["efficiency"]) for s in commons.get(name, {}).get("seeds", [])
                                if s.get("efficiency") is not None], colors.condition(name)) for name, _ in conditions]
    if any(col.values for col in efficiency):
        panels.append(("efficiency", "efficiency per condition", efficiency))
    intervals_figure(panels, path)
    return True


def episodes_plot(run: RunRecord, metrics: dict[str, Any], path: Path) -> bool:
    """With several episodes per seed: each episode's welfare and Gini per condition, seed by seed (the learning
    curve; the earlier episodes' lessons and critiques are what changes between them)."""
    if run.config.episodes < 2:
        return False
    colors = page_colors(run)
    conditions = [(name, c) for name, c in metrics["conditions"].items() if c["runs"]]
    if not conditions:
        return False
    panels = []
    for measure, title in (("welfare", "social welfare"), ("gini", "Gini (inequality)")):
        columns = [Column(f"{name} ep {i}", [float(r["episodes"][i][measure]) for r in c["runs"]
                                             if len(r["episodes"]) > i and r["episodes"][i].get(measure) is not None],
                          colors.condition(name))
                   for name, c in conditions for i in range(run.config.episodes)]
        if any(col.values for col in columns):
            panels.append((measure, f"{title} per episode", columns))
    if not panels:
        return False
    intervals_figure(panels, path)
    return True


def write_figure(svg_path: Path) -> None:
    """The PDF beside an SVG figure."""
    svg_path.with_suffix(".pdf").write_bytes(svg_to_pdf(svg_path.read_text(encoding="utf-8")))


def write_plots(run: RunRecord, directory: Path, metrics: dict[str, Any] | None = None) -> list[Plot]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    figures = [*FIGURES, ("commons", "Commons: stocks against collapse (GovSim)", commons_plot)]
    if metrics is not None:
        figures.insert(0, ("measures", "Outcomes per condition: each seed, the mean and its 95% CI",
                           lambda r, p: measures_plot(r, metrics, p)))
        figures.insert(1, ("episodes", "Episode by episode: each seed, the mean and its 95% CI",
                           lambda r, p: episodes_plot(r, metrics, p)))
    for name, title, draw in figures:
        path = directory / f"{name}.svg"
        path.unlink(missing_ok=True)
        path.with_suffix(".pdf").unlink(missing_ok=True)
        if draw(run, path):
            write_figure(path)
            written.append(Plot(name, title, path))
    return written
