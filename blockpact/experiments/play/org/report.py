"""report.html of an organization run: the S-Agents comparison (time to completion, LLM calls,
messages, success rate, with intervals), the organizations, the figures, every seed and the first
seed's messages. Self-contained and autoescaped, like the contract experiment's report."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2

from blockpact.experiments.play.org.records import OrgRun
from blockpact.experiments.outputs.plot_files import Plot
from blockpact.experiments.outputs.pages import TEMPLATES
from blockpact.experiments.plan.settings import run_settings

ORG_TEMPLATES = Path(__file__).with_name("templates")


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def calls_text(metrics: dict[str, Any], condition: dict[str, Any]) -> str:
    """An organization's LLM calls: counted from real calls for LLM agents; for scripted agents the number the
    latency model charged (no call was made), said so."""
    text = stat_text(condition["llm_calls"], 1)
    return f"{text} (modelled)" if metrics["agents"] == "scripted" and text != "–" else text


def stat_text(s: dict[str, Any], digits: int = 2) -> str:
    """"mean ± std [lo, hi] (n)": the std and interval only where defined."""
    if s["mean"] is None:
        return "–"
    text = _num(s["mean"], digits)
    if s["std"] is not None:
        text += f" ± {_num(s['std'], digits)}"
    if s["ci95"] is not None:
        text += f" [{_num(s['ci95'][0], digits)}, {_num(s['ci95'][1], digits)}]"
    return text + f" (n={s['n']})"


def success_text(c: dict[str, Any]) -> str:
    if c["success_rate"] is None:
        return "–"
    ci = c["success_ci95"]
    return f"{c['success_rate']:.0%} [{ci[0]:.0%}, {ci[1]:.0%}]"


def _agents(values: dict[str, Any] | None) -> str:
    return ", ".join(f"{a} {v:g}" for a, v in sorted((values or {}).items())) or "–"


def comparison_rows(metrics: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    for name, c in metrics["conditions"].items():
        rows.append({
            "name": name, "kind": c["organization"].get("kind", "?"), "mode": c["mode"] or "?",
            "success": success_text(c), "time": stat_text(c["time_cost_min"]), "calls": calls_text(metrics, c),
            "per_agent": stat_text(c["mean_prompt_times"], 1), "messages": stat_text(c["messages"], 1),
            "think": stat_text(c["think_seconds"], 0),
            "seeds": f"{c['seeds_completed']} / {c['seeds_planned']}" + (f", {c['seeds_failed']} failed" if c["seeds_failed"] else ""),
        })
    return rows


def _runs(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for c in metrics["conditions"].values():
        for r in c["runs"]:
            progress = r.get("progress")
            out.append({
                "condition": r["condition"], "seed": r["seed"], "status": r["status"],
                "success": "–" if "success" not in r else ("yes" if r["success"] else "no"),
                "progress": f"{progress[0]}/{progress[1]}" if progress else "–",
                "time": "NaN" if r.get("status") == "completed" and r.get("time_cost_min") is None else _num(r.get("time_cost_min")),
                "prompts": _agents(r.get("prompt_times")), "messages": _agents(r.get("messages_per_agent")),
                "items": _agents(r.get("items_per_agent")), "violations": len(r.get("violations", [])),
                "error": f"failed ({r['error'].get('cause')}): {r['error'].get('error')}" if r.get("error") else None,
            })
    return out


def _transcripts(run: OrgRun) -> list[dict[str, Any]]:
    out = []
    for c in run.conditions:
        episodes = [e for e in run.of_condition(c["name"]) if e.messages]
        if not episodes:
            continue
        lines = []
        for m in episodes[0].messages:
            body = m.get("body")
            text = body.get("text", body) if isinstance(body, dict) else body
            lines.append(f"[{float(m.get('time', 0)):.1f} s] {m.get('sender')} → {', '.join(m.get('recipients', []))} ({m.get('kind')}): {text}")
        out.append({"name": c["name"], "lines": lines})
    return out


def _organizations(run: OrgRun) -> list[dict[str, str]]:
    out = []
    for c in run.conditions:
        described = next((e.start.get("describe") for e in run.of_condition(c["name"]) if e.start), None)
        org = c.get("organization", {})
        out.append({"name": c["name"], "describe": described or f"{org.get('kind')} of {', '.join(org.get('agents', []))}"})
    return out


def _latency_text(run: OrgRun) -> str | None:
    starts = [e.start for e in run.episodes.values() if e.start and e.start.get("latency")]
    return str(starts[0]["latency"].get("describe")) if starts else None


def render_org_report(run: OrgRun, metrics: dict[str, Any], plots: Sequence[Plot]) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([ORG_TEMPLATES, TEMPLATES]), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    labels = run_settings().report
    failures = [f"{name}: {info['count']} seed(s) failed ({cause}), first: {info['first']}"
                for name, c in metrics["conditions"].items() for cause, info in c["failures"].items()]
    return env.get_template("org_report.html.j2").render(
        m=metrics, label=labels.label_scripted if run.scripted else labels.label_llm, llm=metrics.get("llm"),
        failures=failures, rows=comparison_rows(metrics), latency=_latency_text(run), organizations=_organizations(run),
        plots=[{"title": p.title, "data": base64.b64encode(p.path.read_bytes()).decode("ascii")} for p in plots],
        runs=_runs(metrics), transcripts=_transcripts(run),
    )


def write_org_report(run: OrgRun, metrics: dict[str, Any], plots: Sequence[Plot], path: Path) -> None:
    path.write_text(render_org_report(run, metrics, plots), encoding="utf-8")
