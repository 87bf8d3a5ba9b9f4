"""The suite's leaderboard: each population × world with its 95% intervals over seeds, and an overall score per
population (the mean over worlds of each seed's score, its interval over seeds), with tokens and dollars per point
of score. Written as CSV, LaTeX (booktabs) and one HTML page; `blockpact suite show DIR` prints it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.studies.suite.causes import add, failed_at
from blockpact.experiments.studies.suite.manifest import Suite, SuiteWorld
from blockpact.experiments.studies.suite.plan import planned, unit_dir
from blockpact.experiments.studies.suite.scores import UnitScore, unit_score
from blockpact.experiments.outputs.tables import csv_text, latex_table
from blockpact.experiments.outputs.stats import summary_stats
from blockpact.numbers import tidy

OVERALL = "overall"
ZERO = 1e-9
TEMPLATE = Path(__file__).parent / "leaderboard.html.j2"
FILES = {"csv": "leaderboard.csv", "latex": "leaderboard.tex", "html": "leaderboard.html", "json": "leaderboard.json"}


@dataclass(frozen=True)
class Cell:
    """One population on one world (or `overall`): the units' measures pooled over seeds."""

    population: str
    world: str
    units: list[UnitScore]

    @property
    def done(self) -> list[UnitScore]:
        return [u for u in self.units if u.status == "complete"]

    def stats(self, measure: str, bounds: tuple[float | None, float | None] = (None, None)) -> dict[str, Any]:
        return summary_stats([v for u in self.done if (v := getattr(u, measure)) is not None], bounds)

    def row(self) -> dict[str, Any]:
        score, welfare = self.stats("score"), self.stats("welfare")
        gini, survival = self.stats("gini", (0.0, 1.0)), self.stats("survival", (0.0, 1.0))
        agreements = [u.agreement for u in self.done if u.agreement is not None]
        clauses = sum(a.clauses for a in agreements)
        judged = sum(a.kept + a.broken for a in agreements)
        broken_by: dict[str, int] = {}
        for a in agreements:
            for p, n in a.broken_by.items():
                broken_by[p] = broken_by.get(p, 0) + n
        promised = [u.promises for u in self.done if u.promises is not None]
        tokens, cost = sum(u.tokens for u in self.units), sum(u.cost_usd for u in self.units)
        points = sum(u.score for u in self.done if u.score is not None)
        not_done = [u for u in self.units if u.status != "complete"]
        errors: dict[str, int] = {}
        causes: dict[str, int] = {}
        for u in self.units:
            add(errors, u.agent_errors)
            add(causes, u.causes)
        return {
            "population": self.population, "world": self.world, "n": score["n"], "units": len(self.units),
            "not_complete": len(not_done),
            "not_complete_why": "; ".join(sorted({f"seed {u.seed}: {u.status}" for u in not_done})) or None,
            "score_mean": score["mean"], **_ci("score", score),
            "welfare_mean": welfare["mean"], **_ci("welfare", welfare),
            "gini_mean": gini["mean"], "survival_mean": survival["mean"],
            "adopted": sum(a.adopted for a in agreements) if agreements else None,
            "proposals_mean": _mean([a.proposals for a in agreements]),
            "adopted_round_mean": _mean([a.adopted_round for a in agreements if a.adopted_round is not None]),
            "formal_share": (sum(a.formal_clauses for a in agreements) / clauses) if clauses else None,
            "clauses_kept": sum(a.kept for a in agreements) if clauses else None,
            "clauses_broken": sum(a.broken for a in agreements) if clauses else None,
            "breach_rate": (sum(a.broken for a in agreements) / judged) if judged else None,
            "broken_by": ", ".join(f"{p} {n}" for p, n in sorted(broken_by.items())) or None,
            **{f"promises_{k}": sum(t[k] for t in promised) if promised else None for k in ("made", "kept", "broken")},
            "agent_errors": ", ".join(f"{k} {n}" for k, n in sorted(errors.items())) or None,
            "failed_at": failed_at(causes),
            "tokens": tokens, "cost_usd": round(cost, 6),
            "tokens_per_point": tokens / points if tokens and points > 0 else None,
            "cost_per_point": cost / points if cost and points > 0 else None,
        }


def _ci(name: str, stats: dict[str, Any]) -> dict[str, Any]:
    low, high = stats["ci95"] if stats["ci95"] is not None else (None, None)
    return {f"{name}_ci95_low": low, f"{name}_ci95_high": high}


def _zero(value: Any) -> Any:
    """A mean of scores that cancel out is 0, not the 2e-18 their float sum leaves (scores are ratios of emeralds)."""
    return 0.0 if isinstance(value, float) and abs(value) < ZERO else value


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class Leaderboard:
    suite: str
    worlds: list[SuiteWorld]
    populations: list[str]
    cells: list[Cell]  # population × world
    overall: dict[str, dict[str, Any]]  # population -> its overall row

    def rows(self) -> list[dict[str, Any]]:
        """Per population: its worlds' rows in the suite's order, then its overall row."""
        out = []
        for pop in self.populations:
            out += [c.row() for c in self.cells if c.population == pop]
            out.append(self.overall[pop])
        return [{k: _zero(v) for k, v in r.items()} for r in out]


def read_leaderboard(root: Path, suite: Suite) -> Leaderboard:
    """The leaderboard of the suite directory `root` from what its units wrote (also of one cut short)."""
    asked = planned(root)
    names = {w for _, w in asked}
    worlds = [w for w in suite.worlds.values() if w.name in names]  # the suite's order
    pops = list(dict.fromkeys(p for p, _ in asked))
    cells = [Cell(p, w.name, [unit_score(unit_dir(root, w.name, p, s), w, p, s) for s in asked[p, w.name]])
             for p in pops for w in worlds if (p, w.name) in asked]
    return Leaderboard(suite.name, worlds, pops, cells, {p: _overall(p, [c for c in cells if c.population == p],
                                                                     len(worlds)) for p in pops})


def _overall(population: str, cells: list[Cell], suite_worlds: int) -> dict[str, Any]:
    """Each seed's score averaged over the population's worlds (a seed missing on any of them has no overall score),
    and the interval of those means over seeds; tokens and dollars summed over every unit. Named `overall` when the
    population played every world on the board, else `overall (K of N worlds)`."""
    per_seed = []
    for seed in sorted({u.seed for c in cells for u in c.units}):
        scores = [u.score for c in cells for u in c.done if u.seed == seed and u.score is not None]
        if len(scores) == len(cells):
            per_seed.append(math.fsum(scores) / len(scores))
    stats = summary_stats(per_seed)
    units = [u for c in cells for u in c.units]
    pooled = Cell(population, OVERALL, units).row()
    world = OVERALL if len(cells) == suite_worlds else f"{OVERALL} ({len(cells)} of {suite_worlds} worlds)"
    return {**{k: None for k in pooled}, "population": population, "world": world, "n": stats["n"],
            "units": len(units), "not_complete": pooled["not_complete"], "score_mean": stats["mean"],
            **_ci("score", stats), "tokens": pooled["tokens"], "cost_usd": pooled["cost_usd"],
            "tokens_per_point": pooled["tokens_per_point"], "cost_per_point": pooled["cost_per_point"],
            "formal_share": pooled["formal_share"], "breach_rate": pooled["breach_rate"],
            **{k: pooled[k] for k in ("promises_made", "promises_kept", "promises_broken")},
            "agent_errors": pooled["agent_errors"], "failed_at": pooled["failed_at"]}


COLUMNS = [("population", "population"), ("world", "world"), ("n", "n"), ("score_mean", "score"),
           ("score_ci95_low", "95% CI low"), ("score_ci95_high", "95% CI high"), ("welfare_mean", "welfare"),
           ("welfare_ci95_low", "welfare CI low"), ("welfare_ci95_high", "welfare CI high"), ("gini_mean", "Gini"),
           ("survival_mean", "survival"), ("adopted", "contracts adopted"), ("formal_share", "formal share"),
           ("breach_rate", "breach rate"), ("promises_made", "promises made"), ("promises_kept", "promises kept"),
           ("tokens", "tokens"), ("cost_usd", "cost (USD)"),
           ("tokens_per_point", "tokens per point"), ("cost_per_point", "USD per point"), ("failed_at", "failed at")]
CSV_FIELDS = [k for k, _ in COLUMNS] + ["units", "not_complete", "not_complete_why", "proposals_mean",
                                         "adopted_round_mean", "clauses_kept", "clauses_broken", "broken_by",
                                         "agent_errors"]


def console_rows(board: Leaderboard) -> tuple[list[str], list[list[str]], list[int]]:
    """Headers, rows and the rows after which a rule is drawn (each population's overall row)."""
    headers = ["population", "world", "n", "score [95% CI]", "welfare [95% CI]", "Gini", "survival", "formal",
               "breaches", "promises kept", "tokens", "tokens/point", "USD/point", "failed at", "not complete"]
    rows, rules = [], []
    for r in board.rows():
        rows.append([r["population"], r["world"], str(r["n"]), _interval(r, "score", 2), _interval(r, "welfare", 1),
                     _num(r["gini_mean"], 3), _num(r["survival_mean"], 2), _num(r["formal_share"], 2),
                     _breaches(r), _promises(r), f"{r['tokens']:,}" if r["tokens"] else "0", _num(r["tokens_per_point"], 0),
                     _num(r["cost_per_point"], 4), r["failed_at"] or "–", r["not_complete_why"] or ("0" if not r["world"].startswith(OVERALL)
                                                                             else f"{r['not_complete']} unit(s)")])
        if r["world"].startswith(OVERALL):
            rules.append(len(rows) - 1)
    return headers, rows, rules


def _interval(row: dict[str, Any], name: str, digits: int) -> str:
    mean = row[f"{name}_mean"]
    if mean is None:
        return "–"
    low, high = row[f"{name}_ci95_low"], row[f"{name}_ci95_high"]
    ci = f" [{low:.{digits}f}, {high:.{digits}f}]" if low is not None else " [n < 2]"
    return f"{mean:.{digits}f}{ci}"


def _num(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _breaches(row: dict[str, Any]) -> str:
    if row.get("clauses_broken") is None:
        return "–" if row.get("breach_rate") is None else f"{row['breach_rate']:.2f}"
    by = f" ({row['broken_by']})" if row.get("broken_by") else ""
    return f"{row['clauses_broken']}/{row['clauses_broken'] + row['clauses_kept']}{by}"


def _promises(row: dict[str, Any]) -> str:
    """Kept of made ("2/3"), with the broken ones when any ("2/3, 1 broken"); "–" where nothing was measured."""
    made = row.get("promises_made")
    if made is None:
        return "–"
    broken = f", {row['promises_broken']} broken" if row.get("promises_broken") else ""
    return f"{row['promises_kept']}/{made}{broken}"


def write_leaderboard(board: Leaderboard, root: Path) -> dict[str, Path]:
    """leaderboard.csv, .tex, .html and .json in `root`."""
    files = {k: root / name for k, name in FILES.items()}
    rows = [tidy(r) for r in board.rows()]
    files["csv"].write_text(csv_text(rows, CSV_FIELDS), encoding="utf-8")
    files["latex"].write_text(latex_table(rows, COLUMNS, f"Suite {board.suite}: score (0 = all-greedy welfare, 1 = the "
                                          "optimum) per population and world, mean and 95% CI (Student's t) over seeds",
                                          "tab:suite"), encoding="utf-8")
    files["json"].write_text(json.dumps({"suite": board.suite, "rows": rows, "worlds": [
        {"name": w.name, "shape": w.shape, "greedy_welfare": w.greedy_welfare, "contract_welfare": w.contract_welfare,
         "optimum_welfare": w.optimum_welfare, "optimum_from": w.optimum_from, "contract": w.contract}
        for w in board.worlds]}, indent=2, allow_nan=False)
        + "\n", encoding="utf-8")
    headers, body, _ = console_rows(board)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    files["html"].write_text(env.get_template(TEMPLATE.name).render(
        suite=board.suite, headers=headers, rows=body, overall=OVERALL, worlds=board.worlds,
        populations=board.populations), encoding="utf-8")
    return files
