"""The comparison's files: compare.csv (one row per world × condition × population), paired.csv (one
row per paired difference and measure), compare.json (both, with the runs read) and compare.html
(the tables, then one interval plot per measure, side by side; self-contained, no scripts)."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.studies.compare import Comparison, Group
from blockpact.experiments.outputs.measure_plots import Column, intervals_figure
from blockpact.experiments.outputs.plot_files import write_figure
from blockpact.experiments.outputs.plot_style import CONDITION_COLORS
from blockpact.experiments.outputs.pages import TEMPLATES
from blockpact.experiments.outputs.tables import latex_table
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


def _figures(comparison: Comparison, directory: Path) -> list[dict[str, Any]]:
    """One interval figure per world (worlds' scales differ): a panel per measure, a column per group, each seed
    a dot, the mean with its 95% CI; written as SVG and PDF into `directory` and embedded in the page."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for i, (world, groups) in enumerate(_by_world(comparison.groups).items()):
        panels = []
        for m in comparison.measures:
            columns = [Column(f"{g.condition} · {g.population}" if len({x.population for x in groups}) > 1 else g.condition,
                              _values(g, m), CONDITION_COLORS[k % len(CONDITION_COLORS)])
                       for k, g in enumerate(groups)]
            if any(c.values for c in columns):
                panels.append((m, m.replace("_", " "), columns))
        if not panels:
            continue
        stem = f"figure-{i + 1}-{_safe(world)}"
        svg = directory / f"{stem}.svg"
        intervals_figure(panels, svg)
        write_figure(svg)
        out.append({"world": world, "svg": svg, "data": base64.b64encode(svg.read_bytes()).decode("ascii"),
                    "href": f"{directory.name}/{svg.name}", "pdf": f"{directory.name}/{stem}.pdf"})
    return out


def _values(g: Group, measure: str) -> list[float]:
    """The values the group's estimate is taken over: one per distinct seed for deterministic agents."""
    if g.deterministic:
        return list(g.by_seed(measure).values())
    return [s.values[measure] for s in g.samples if measure in s.values]


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:60]


def run_names(comparison: Comparison) -> dict[Path, str]:
    """Each run directory named relative to the directory all of them share (no machine paths on the page)."""
    paths = [r.path for r in comparison.runs]
    if not paths:
        return {}
    common = Path(os.path.commonpath([str(p) for p in paths]))
    base = common.parent if len(paths) == 1 or common in paths else common
    return {p: (p.relative_to(base).as_posix() or p.name) for p in paths}


def _by_world(groups: list[Group]) -> dict[str, list[Group]]:
    out: dict[str, list[Group]] = {}
    for g in groups:
        out.setdefault(g.world, []).append(g)
    return out


def render_html(comparison: Comparison, figures: list[dict[str, Any]] | None = None) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = _fmt
    names = run_names(comparison)
    return env.get_template("compare.html.j2").render(
        c=comparison, measures=comparison.measures, rows=summary_rows(comparison), paired=paired_rows(comparison),
        figures=figures or [], runs=[{"name": names[r.path], "world": r.world, "who": r.population_label,
                                      "status": r.metrics.get("status", "–")} for r in comparison.runs],
        units=UNITS, digits={"welfare": 2, "inventory_welfare": 2, "gini": 3, "efficiency": 3, "survival": 2, "survival_time": 1},
    )


UNITS = {"welfare": "emeralds", "inventory_welfare": "emeralds", "gini": "0–1", "efficiency": "share of optimum", "survival": "share of seeds",
         "survival_time": "s"}


def _latex_summary(comparison: Comparison) -> str:
    columns = [("world", "world"), ("condition", "condition"), ("population", "population")]
    for m in comparison.measures:
        columns += [(f"{m}_n", f"{m} n"), (f"{m}_mean", f"{m} mean ({UNITS.get(m, '')})"),
                    (f"{m}_ci95_low", "95% CI low"), (f"{m}_ci95_high", "95% CI high")]
    return latex_table(summary_rows(comparison), columns, "Per world, condition and population: n, mean and 95% CI "
                       "(Student's t) of each measure", "tab:compare")


def _latex_paired(comparison: Comparison) -> str:
    columns = [("world", "world"), ("population", "population"), ("condition", "condition"), ("baseline", "baseline"),
               ("measure", "measure"), ("n_pairs", "pairs"), ("mean_difference", "mean difference"),
               ("ci95_low", "95% CI low"), ("ci95_high", "95% CI high")]
    return latex_table(paired_rows(comparison), columns, "Paired differences (condition minus baseline) on matched "
                       "seeds", "tab:paired")


def write_comparison(comparison: Comparison, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"summary": out / "compare.csv", "paired": out / "paired.csv", "json": out / "compare.json",
             "html": out / "compare.html", "latex": out / "compare.tex", "paired_latex": out / "paired.tex"}
    files["summary"].write_text(_csv(summary_rows(comparison), summary_fields(comparison)), encoding="utf-8")
    files["paired"].write_text(_csv(paired_rows(comparison), PAIRED_FIELDS), encoding="utf-8")
    files["latex"].write_text(_latex_summary(comparison), encoding="utf-8")
    files["paired_latex"].write_text(_latex_paired(comparison), encoding="utf-8")
    names = run_names(comparison)
    doc = {"summary": summary_rows(comparison), "paired": paired_rows(comparison),
           "runs": [{"path": names[r.path], "world": r.world, "population": r.population} for r in comparison.runs],
           "failed": [{"world": g.world, "condition": g.condition, "population": g.population, **f}
                      for g in comparison.groups for f in g.failed],
           "warnings": comparison.warnings}
    files["json"].write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    files["html"].write_text(render_html(comparison, _figures(comparison, out / "figures")), encoding="utf-8")
    return files
