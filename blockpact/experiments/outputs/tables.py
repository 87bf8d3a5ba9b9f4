"""Tables for a paper: the same rows as CSV (for a spreadsheet or pandas) and as a LaTeX tabular (booktabs), so
a table in a paper is the table of the run, not one copied by hand."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "±": r"$\pm$", "–": "--", "−": "$-$",
          "·": r"$\cdot$", "×": r"$\times$", "≤": r"$\le$", "≥": r"$\ge$"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def csv_text(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in fields})
    return out.getvalue()


def latex_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]], caption: str,
                label: str) -> str:
    """A table environment; `columns` are (key, header). Numbers are right-aligned, text left."""
    numeric = [all(isinstance(r.get(k), (int, float)) or r.get(k) in (None, "") for r in rows) for k, _ in columns]
    spec = "".join("r" if n else "l" for n in numeric)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{latex_escape(caption)}}}", rf"\label{{{label}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(latex_escape(h) for _, h in columns) + r" \\", r"\midrule"]
    for row in rows:
        lines.append(" & ".join(latex_escape(_cell(row.get(k))) for k, _ in columns) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "--"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def write_table(directory: Path, name: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]],
                caption: str) -> list[Path]:
    """NAME.csv and NAME.tex in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    csv_path, tex_path = directory / f"{name}.csv", directory / f"{name}.tex"
    csv_path.write_text(csv_text(rows, [k for k, _ in columns]), encoding="utf-8")
    tex_path.write_text(latex_table(rows, columns, caption, f"tab:{name}"), encoding="utf-8")
    return [csv_path, tex_path]


def summary_table_rows(metrics: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run report's summary: one row per condition, the numbers unformatted."""
    rows = []
    for name, c in metrics["conditions"].items():
        row: dict[str, Any] = {"condition": name, "contract": c["contract_mode"], "seeds_completed": c["seeds_finished"],
                               "seeds_planned": c["seeds_planned"]}
        for measure in ("welfare", "inventory_welfare", "gini"):
            stat = c.get(measure) or {"n": None, "mean": None, "std": None, "ci95": None}  # older files: no inventory welfare
            low, high = stat["ci95"] or (None, None)
            row.update({f"{measure}_n": stat.get("n"), f"{measure}_mean": stat["mean"], f"{measure}_std": stat["std"],
                        f"{measure}_ci95_low": low, f"{measure}_ci95_high": high})
        rows.append(row)
    return rows


SUMMARY_COLUMNS = [("condition", "condition"), ("contract", "contract"), ("seeds_completed", "seeds"),
                   ("welfare_mean", "welfare (emeralds)"), ("welfare_std", "std"), ("welfare_ci95_low", "95% CI low"),
                   ("welfare_ci95_high", "95% CI high"), ("inventory_welfare_mean", "inventory welfare"),
                   ("inventory_welfare_std", "std"), ("gini_mean", "Gini"), ("gini_std", "std"),
                   ("gini_ci95_low", "95% CI low"), ("gini_ci95_high", "95% CI high")]
