"""report.html: one self-contained page (inline CSS, SVG figures as base64, no scripts, no external URLs).

Everything agents wrote (chat, negotiation, contracts, critiques, errors) is untrusted text and goes
through the template's autoescaping; the template holds no <script> at all.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.outputs.llm_accounting import rows as llm_rows
from blockpact.experiments.outputs.metrics_file import judge_disagreement
from blockpact.experiments.outputs.plot_files import Plot
from blockpact.experiments.log.records import RunRecord, SeedRecord
from blockpact.experiments.outputs.replay import Replay
from blockpact.experiments.outputs.pages import TEMPLATES
from blockpact.experiments.plan.settings import run_settings


def agents_label(run: RunRecord) -> str:
    labels = run_settings().report
    label = labels.label_scripted if run.scripted else labels.label_llm
    if run.config.population:  # a scenario run says who filled each slot
        label += " · " + ", ".join(f"{p}: {kind}" for p, kind in sorted(run.config.population.items()))
    if (run.config.live or {}).get("lockstep"):
        label += " · live in lockstep: shared actions in the simulator's order (races decided as simulated)"
    return label


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def mean_std_text(stat: dict[str, Any], digits: int, *, ci: bool = True) -> str:
    """"mean ± std [lo, hi]" (the 95% CI when there are two values or more), "mean (1 seed)" for one value (its
    spread is unknown, not 0), "–" without values."""
    if stat["mean"] is None:
        return "–"
    if stat.get("n") == 1:
        return f"{_fmt(stat['mean'], digits)} (1 seed)"
    text = f"{_fmt(stat['mean'], digits)} ± {_fmt(stat['std'], digits)}"
    if ci and stat.get("ci95"):
        lo, hi = stat["ci95"]
        text += f" [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"
    return text


def failures_text(condition: dict[str, Any]) -> str:
    """"2 endpoint, 1 server" for failed units, then interrupted ones; "0" when none."""
    parts = [f"{f['count']} {cause}" for cause, f in condition["failures"].items()]
    units = condition["units"]
    if units["interrupted"]:
        parts.append(f"{units['interrupted']} interrupted")
    if units["not_started"]:
        parts.append(f"{units['not_started']} not run")
    return ", ".join(parts) or "0"


def agent_errors_text(condition: dict[str, Any]) -> str:
    """"3 (Glitch: no_program 2; Gizmo: program_error 1)", "0" when none."""
    errors = condition["agent_errors"]
    if not errors["total"]:
        return "0"
    players = "; ".join(f"{player}: " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
                        for player, kinds in sorted(errors["by_player"].items()))
    return f"{errors['total']} ({players})"


def _players(values: dict[str, float] | None) -> str:
    return ", ".join(f"{p} {v:g}" for p, v in sorted((values or {}).items())) or "–"


def _summary(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"condition": name, "contract": c["contract_mode"], "welfare": mean_std_text(c["welfare"], 2),
             "inventory_welfare": mean_std_text(c["inventory_welfare"], 2), "gain": _gain_text(c["gain_over_no_contract"]),
             "efficiency": _efficiency_text(c["efficiency"]),
             "gini": mean_std_text(c["gini"], 3), "gini_note": c["gini"]["note"],
             "seeds": f"{c['seeds_finished']} / {c['seeds_planned']}", "failed": failures_text(c),
             "failures": c["failures"], "agent_errors": agent_errors_text(c), "first_errors": c["agent_errors"]["first"],
             "outcomes": _outcome_rows(c)}
            for name, c in metrics["conditions"].items()]


def _gain_text(gain: dict[str, Any] | None) -> str:
    """"settled +15, inventories +0 (settlement alone)" against the no-contract condition, "–" without one."""
    if gain is None:
        return "–"
    text = f"settled {gain['settled']:+.2f}, inventories {gain['inventory']:+.2f}"
    return text + " (settlement alone)" if gain["settlement_alone"] else text


def _efficiency_text(eff: dict[str, Any] | None) -> str:
    """"0.72 of 108 (inventories 0.72)": settled welfare over the world's reference optimum; "–" without one."""
    if eff is None or eff["settled"]["mean"] is None:
        return "–"
    return (f"{eff['settled']['mean']:.2f} of {eff['reference_welfare']:g} "
            f"(inventories {eff['inventory']['mean']:.2f})")


def _seed_list(seeds: list[int]) -> str:
    return ", ".join(map(str, seeds))


def _outcome_rows(condition: dict[str, Any]) -> list[dict[str, str]]:
    """One row per distinct outcome of the completed seeds ("5 seeds, same outcome")."""
    rows = []
    for o in condition["outcomes"]:
        n = len(o["seeds"])
        measure = o["gini_measure"]
        gini = _fmt(o["gini"], 3) if o["gini"] is not None else f"undefined ({measure['reason']})"
        if measure["basis"] == "shifted":
            gini += f" (on rewards shifted by +{measure['shift']:g})"
        rows.append({"seeds": f"seed {o['seeds'][0]}" if n == 1 else f"seeds {_seed_list(o['seeds'])} ({n} seeds, same outcome)",
                     "rewards": _players(o["rewards"]), "transfers": _players(o["transfers"]),
                     "welfare": _fmt(o["welfare"], 1), "inventory_welfare": _fmt(o["inventory_welfare"], 1),
                     "gini": gini, "contract": o["contract_source"] or "–"})
    return rows


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
                "verdicts": ep.verdicts,
                "reflections": ep.reflections,
                "judgments": ep.judgments,
                "comparison": judge_disagreement(ep),
                "chat": [e for e in ep.events if e.kind == "chat"],
            })
        views.append({
            "condition": s.condition,
            "seed": s.seed,
            "status": s.status,
            "cause": s.cause,
            "rewards": _players(final.rewards if final else None),
            "transfers": _players(final.transfers if final else None),
            "welfare": _fmt(sum(final.rewards.values()) if final and final.rewards else None, 1),
            "contract": s.contract,
            "contract_source": s.contract_source or "–",
            "agreement": _agreement(s),
            "turns": s.turns,
            "episodes": episodes,
            "errors": s.errors,
            "program_errors": sum(len(e["errors"]) for e in episodes),
        })
    return views


def _agreement(s: SeedRecord) -> str | None:
    """Who proposed and who accepted a negotiated contract, and the round of the adopting accept: a round is one
    reply, numbered as the turns above it are, for any number of players; with N seated it is at least N, so
    the line also says how many times each player had spoken by then."""
    if s.contract_source != "negotiated" or not s.proposed_by:
        return None
    text = f"proposed by {s.proposed_by}, accepted by {', '.join(s.accepted_by)} (round {s.accepted_round}"
    if (lap := s.accepted_lap) is not None:
        times = {1: "once", 2: "twice"}.get(lap, f"{lap} times")
        text += f"; {len(s.seated)} players seated: each spoke at most {times}"
    return text + ")"


def _embed(plot: Plot) -> dict[str, str]:
    return {"title": plot.title, "data": base64.b64encode(plot.path.read_bytes()).decode("ascii"),
            "svg": f"plots/{plot.path.name}", "pdf": f"plots/{plot.pdf.name}"}


def _same_as(metrics: dict[str, Any]) -> dict[tuple[str, int], int]:
    """(condition, seed) -> the first seed of its outcome group, for each seed with the outcome of an earlier one:
    its section says so instead of repeating the same negotiation, programs and chat."""
    out = {}
    for name, c in metrics["conditions"].items():
        for o in c["outcomes"]:
            for seed in o["seeds"][1:]:
                out[(name, seed)] = o["seeds"][0]
    return out


def _seed_gini(metrics: dict[str, Any]) -> dict[tuple[str, int], str]:
    out = {}
    for name, c in metrics["conditions"].items():
        for r in c["runs"]:
            measure = r["gini_measure"]
            text = "undefined" if r["gini"] is None else _fmt(r["gini"], 3)
            out[(name, r["seed"])] = text + (" (shifted)" if measure["basis"] == "shifted" else "")
    return out


def render_report(run: RunRecord, metrics: dict[str, Any], plots: Sequence[Plot],
                  replays: Sequence[Replay] = ()) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    seeds = _seed_views(run)
    gini_of = _seed_gini(metrics)
    same_as = _same_as(metrics)
    links: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in replays:
        links.setdefault((r.condition, r.seed), []).append({"episode": r.episode, "href": r.path.as_posix()})
    for view in seeds:
        key = (view["condition"], view["seed"])
        view["gini"] = gini_of.get(key, "–")
        view["same_as"] = same_as.get(key) if view["status"] == "completed" else None
        view["replays"] = links.get(key, [])
    return env.get_template("report.html.j2").render(
        run=run,
        label=agents_label(run),
        summary=_summary(metrics),
        measured_on=metrics["measured_on"],
        seeds=seeds,
        plots=[_embed(p) for p in plots],
        warnings=metrics["warnings"],
        all_completed=metrics["all_completed"],
        commons=metrics.get("commons"),
        groups=metrics.get("groups"),
        institution=metrics.get("institution"),
        llm=metrics.get("llm"),
        llm_rows=llm_rows(metrics),
        world_file=Path(run.config.world_path).name if run.config.world_path else "–",
    )


def write_report(run: RunRecord, metrics: dict[str, Any], plots: Sequence[Plot], path: Path,
                 replays: Sequence[Replay] = ()) -> None:
    path.write_text(render_report(run, metrics, plots, replays), encoding="utf-8")
