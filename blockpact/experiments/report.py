"""report.html: one self-contained page (inline CSS, PNGs as base64, no scripts, no external URLs).

Everything agents wrote (chat, negotiation, contracts, critiques, errors) is untrusted text and goes
through the template's autoescaping; the template holds no <script> at all.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.metrics_file import judge_disagreement
from blockpact.experiments.plots import Plot
from blockpact.experiments.records import RunRecord
from blockpact.experiments.settings import TEMPLATES, run_settings


def agents_label(run: RunRecord) -> str:
    labels = run_settings()["report"]
    label = labels["label_scripted"] if run.scripted else labels["label_llm"]
    if run.config.population:  # a scenario run says who filled each slot
        label += " · " + ", ".join(f"{p}: {kind}" for p, kind in sorted(run.config.population.items()))
    return label


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _mean_std(stat: dict[str, float | None], digits: int) -> str:
    if stat["mean"] is None:
        return "–"
    return f"{_fmt(stat['mean'], digits)} ± {_fmt(stat['std'], digits)}"


def _players(values: dict[str, float] | None) -> str:
    return ", ".join(f"{p} {v:g}" for p, v in sorted((values or {}).items())) or "–"


def _summary(metrics: dict[str, Any]) -> list[dict[str, str]]:
    return [{"condition": name, "contract": c["contract_mode"], "welfare": _mean_std(c["welfare"], 2),
             "gini": _mean_std(c["gini"], 3), "seeds": f"{c['seeds_finished']} / {c['seeds_planned']}",
             "errors": str(len(c["errors"]))}
            for name, c in metrics["conditions"].items()]


def _seed_views(run: RunRecord) -> list[dict[str, Any]]:
    views = []
    for s in run.seeds:
        final = s.final
        episodes = []
        for ep in s.episodes:
            episodes.append({
                "index": ep.episode,
                "finished": ep.finished,
                "rewards": _players(ep.rewards),
                "inventory_rewards": _players(ep.inventory_rewards),
                "transfers": _players(ep.transfers),
                "sim_seconds": _fmt(ep.sim_seconds, 1),
                "programs": ep.programs,
                "errors": [p for p in ep.programs if p.failed],
                "critiques": ep.critiques,
                "judgments": ep.judgments,
                "comparison": judge_disagreement(ep),
                "chat": [e for e in ep.events if e.kind == "chat"],
            })
        views.append({
            "condition": s.condition,
            "seed": s.seed,
            "status": "error" if s.errors else ("ok" if s.finished else "unfinished"),
            "rewards": _players(final.rewards if final else None),
            "transfers": _players(final.transfers if final else None),
            "welfare": _fmt(sum(final.rewards.values()) if final and final.rewards else None, 1),
            "contract": s.contract,
            "contract_source": s.contract_source or "–",
            "turns": s.turns,
            "episodes": episodes,
            "errors": s.errors,
            "program_errors": sum(len(e["errors"]) for e in episodes),
        })
    return views


def _embed(plot: Plot) -> dict[str, str]:
    return {"title": plot.title, "data": base64.b64encode(plot.path.read_bytes()).decode("ascii")}


def _seed_gini(metrics: dict[str, Any]) -> dict[tuple[str, int], str]:
    return {(name, r["seed"]): _fmt(r["gini"], 3) for name, c in metrics["conditions"].items() for r in c["runs"]}


def render_report(run: RunRecord, metrics: dict[str, Any], plots: Sequence[Plot]) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    seeds = _seed_views(run)
    gini_of = _seed_gini(metrics)
    for view in seeds:
        view["gini"] = gini_of.get((view["condition"], view["seed"]), "–")
    return env.get_template("report.html.j2").render(
        run=run,
        label=agents_label(run),
        summary=_summary(metrics),
        measured_on=metrics["measured_on"],
        seeds=seeds,
        plots=[_embed(p) for p in plots],
        warnings=run.warnings,
    )


def write_report(run: RunRecord, metrics: dict[str, Any], plots: Sequence[Plot], path: Path) -> None:
    path.write_text(render_report(run, metrics, plots), encoding="utf-8")
