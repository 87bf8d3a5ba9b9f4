"""The comparison's files: compare.csv (one row per world × condition × population), paired.csv (one
row per paired difference and measure), compare.json (both, with the runs read) and compare.html
(the tables, then one interval plot per measure, side by side; self-contained, no scripts)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.compare import Comparison, Group
from blockpact.experiments.settings import TEMPLATES
from blockpact.numbers import tidy

SUMMARY_FIELDS = ["world", "condition", "population", "contract_mode", "seeds_planned", "seeds_failed",
                  "seeds_unfinished"]
PAIRED_FIELDS = ["world", "population", "baseline", "condition", "measure", "n_pairs", "unmatched_seeds",
                 "mean_difference", "std", "ci95_low", "ci95_high", "seeds"]


def summary_rows(comparison: Comparison) -> list[dict[str, Any]]:
    rows = []
    for g in comparison.groups:
        row: dict[str, Any] = {"world": g.world, "condition": g.condition, "population": g.population,
                               "contract_mode": g.contract_mode, "seeds_planned": g.seeds_planned,
                               "seeds_failed": len(g.failed), "seeds_unfinished": g.unfinished}
        for m in comparison.measures:
            e = g.estimate(m)
            row.update({f"{m}_n": e.n, f"{m}_mean": e.mean, f"{m}_std": e.std,
                        f"{m}_ci95_low": e.low, f"{m}_ci95_high": e.high})
        rows.append(tidy(row))
    return rows


def summary_fields(comparison: Comparison) -> list[str]:
    return SUMMARY_FIELDS + [f"{m}_{k}" for m in comparison.measures for k in ("n", "mean", "std", "ci95_low", "ci95_high")]


def paired_rows(comparison: Comparison) -> list[dict[str, Any]]:
    rows = []
    for p in comparison.paired:
        e = p.estimate
        rows.append(tidy({"world": p.world, "population": p.population, "baseline": p.baseline,
                     "condition": p.condition, "measure": p.measure, "n_pairs": e.n, "unmatched_seeds": p.unmatched,
                     "mean_difference": e.mean, "std": e.std, "ci95_low": e.low, "ci95_high": e.high,
                     "seeds": " ".join(map(str, p.seeds))}))
    return rows


def _csv(rows: list[dict[str, Any]], fields: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return out.getvalue()


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval_plot(groups: list[Group], measure: str) -> dict[str, Any]:
    """Mean and 95% CI per group for one measure of one world (worlds' scales differ), laid out for the
    template's inline SVG (no plotting library: a sweep's comparison stays cheap)."""
    shown = [(g, g.estimate(measure)) for g in groups if g.estimate(measure).n]
    values = [v for _, e in shown for v in (e.mean, e.low, e.high) if v is not None]
    lo, hi = min(values), max(values)
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.08
    lo, hi = lo - pad, hi + pad
    left, width, row = 190, 300, 26
    x = lambda v: round(left + (v - lo) / (hi - lo) * width, 1)  # noqa: E731
    rows = [{"label": f"{g.condition} · {g.population}", "y": 20 + i * row, "mean": x(e.mean),
             "low": x(e.low) if e.low is not None else None, "high": x(e.high) if e.high is not None else None,
             "text": _fmt(e.mean)} for i, (g, e) in enumerate(shown)]
    ticks = [{"x": x(lo + (hi - lo) * k / 4), "text": f"{lo + (hi - lo) * k / 4:.3g}"} for k in range(5)]
    height = 20 + len(shown) * row + 30
    return {"rows": rows, "ticks": ticks, "height": height, "axis_y": height - 28, "left": left,
            "right": left + width, "title": groups[0].world, "xlabel": f"{measure} (mean, 95% CI)"}


def _by_world(groups: list[Group]) -> dict[str, list[Group]]:
    out: dict[str, list[Group]] = {}
    for g in groups:
        out.setdefault(g.world, []).append(g)
    return out


def render_html(comparison: Comparison) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = _fmt
    return env.get_template("compare.html.j2").render(
        c=comparison, measures=comparison.measures, rows=summary_rows(comparison), paired=paired_rows(comparison),
        plots=[{"measure": f"{world}: {m}", "svg": _interval_plot(groups, m)}
               for world, groups in _by_world(comparison.groups).items() for m in comparison.measures
               if any(g.estimate(m).n for g in groups)],
    )


def write_comparison(comparison: Comparison, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"summary": out / "compare.csv", "paired": out / "paired.csv", "json": out / "compare.json",
             "html": out / "compare.html"}
    files["summary"].write_text(_csv(summary_rows(comparison), summary_fields(comparison)), encoding="utf-8")
    files["paired"].write_text(_csv(paired_rows(comparison), PAIRED_FIELDS), encoding="utf-8")
    doc = {"summary": summary_rows(comparison), "paired": paired_rows(comparison),
           "runs": [{"path": str(r.path), "world": r.world, "population": r.population} for r in comparison.runs],
           "failed": [{"world": g.world, "condition": g.condition, "population": g.population, **f}
                      for g in comparison.groups for f in g.failed],
           "warnings": comparison.warnings}
    files["json"].write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    files["html"].write_text(render_html(comparison), encoding="utf-8")
    return files
