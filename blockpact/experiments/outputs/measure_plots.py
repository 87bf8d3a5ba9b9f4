"""Interval plots: per condition (or per compared group), each seed's value as a dot, the mean as a bar's top
marker and its 95% CI (Student's t) as an error bar, one panel per measure, on an axis within the measure's range
(welfare from 0 emeralds, Gini from 0 to at most 1). The run report draws one from metrics.json; the comparison
one per world."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from blockpact.experiments.outputs.plot_style import nice_ceiling
from blockpact.experiments.plan.settings import run_settings
from blockpact.experiments.outputs.stats import Estimate, estimate
from blockpact.experiments.outputs.svg_figure import Axes, Figure

# name -> (axis label with unit, the range the measure can take)
MEASURE_AXES: dict[str, tuple[str, tuple[float | None, float | None]]] = {
    "welfare": ("social welfare (emeralds)", (None, None)),
    "inventory_welfare": ("inventory welfare, before the judge (emeralds)", (None, None)),
    "gini": ("Gini coefficient (0 = equal, 1 = unequal)", (0.0, 1.0)),
    "efficiency": ("efficiency (share of the sustainable optimum)", (0.0, None)),
    "survival": ("survival rate (share of seeds, 0-1)", (0.0, 1.0)),
    "survival_time": ("survival time (s)", (0.0, None)),
}


@dataclass(frozen=True)
class Column:
    label: str
    values: list[float]  # one per sample (seed)
    color: str = "#1f3b73"


def interval_panel(ax: Axes, measure: str, columns: Sequence[Column], title: str) -> None:
    label, bounds = MEASURE_AXES.get(measure, (measure, (None, None)))
    tops = [0.0]
    lows = [0.0]
    for i, col in enumerate(columns):
        e: Estimate = estimate(col.values, bounds)
        if not e.n:
            continue
        spread = [(j - (len(col.values) - 1) / 2) * min(0.04, 0.5 / max(len(col.values), 1)) for j in range(len(col.values))]
        ax.plot([i + s for s in spread], col.values, color="#9aa5b1", markersize=4.0)
        ax.bar([i], [e.mean], width=0.5, color="#e8edf3")
        if e.low is not None and e.high is not None:
            ax.errorbar(i, e.mean, [[e.mean - e.low], [e.high - e.mean]], color=col.color, capsize=6.0)
            tops.append(e.high)
            lows.append(e.low)
        ax.plot([i], [e.mean], color=col.color, markersize=8.0)
        ax.annotate(f"{_short(e.mean)} (n={e.n})", (i, max(col.values + [e.high or e.mean])), xytext=(0, 8), fontsize=8.0)
        tops += col.values
        lows += col.values
    low, high = bounds
    top = nice_ceiling(max(tops) * 1.18) if max(tops) > 0 else 1.0
    if high is not None:
        top = min(top, high * 1.1 if measure != "gini" else max(min(top, 1.0), 0.1))
    bottom = min(lows) * 1.1 if min(lows) < 0 and low is None else 0.0
    ax.set_ylim(bottom, top)
    ax.set_xticks(range(len(columns)), [c.label for c in columns], rotation=20.0 if len(columns) > 3 else 0.0)
    ax.set(title=title, ylabel=label, xlabel="")


def _short(value: float) -> str:
    """A mean as a label: whole numbers from 100 on, else three significant digits."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def intervals_figure(panels: Sequence[tuple[str, str, Sequence[Column]]], path: Path) -> None:
    """One row of interval panels: (measure, title, columns) each."""
    s = run_settings().plots
    fig = Figure(1, len(panels), min(s.width, 1.3 + 0.85 * max(len(c) for _, _, c in panels)), s.height, share_y=False)
    for ax, (measure, title, columns) in zip(fig.axes[0], panels):
        interval_panel(ax, measure, columns, title)
    path.write_text(fig.svg(), encoding="utf-8")
