"""SVG figures of an organization run (svg_figure.py, as a run's figures), drawn from its metrics and records:
time to completion per condition (mean, 95% interval, every seed), items and messages per agent per
condition, and task progress over simulated time (every seed of every condition). No matplotlib: importing
it and drawing these four as PNG cost ~3 s of CPU per run, report rebuild or sweep unit with plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blockpact.experiments.play.org.records import OrgRun
from blockpact.experiments.outputs.plot_files import Plot
from blockpact.experiments.outputs.svg_figure import Figure

HEIGHT = 3.6  # inches


def _save(fig: Figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fig.svg(), encoding="utf-8")


def _time_to_completion(metrics: dict[str, Any], path: Path) -> None:
    names = list(metrics["conditions"])
    fig = Figure(1, 1, max(5.0, 0.9 * len(names) + 2), HEIGHT)
    ax = fig.axes[0, 0]
    for i, name in enumerate(names):
        c = metrics["conditions"][name]
        t = c["time_cost_min"]
        if t["mean"] is not None:
            ax.bar(i, t["mean"], color="#8fb3d9", width=0.6)
            if t["ci95"] is not None:
                ax.errorbar(i, t["mean"], yerr=[[t["mean"] - t["ci95"][0]], [t["ci95"][1] - t["mean"]]], color="black", capsize=4)
        times = [r["time_cost_min"] for r in c["runs"] if r.get("success")]
        ax.plot([i] * len(times), times, "o", color="#1f4e79", markersize=3)
        ok = sum(1 for r in c["runs"] if r.get("success"))
        top = max([*times, t["ci95"][1] if t["ci95"] else 0.0, 0.0])
        ax.annotate(f"{ok}/{c['seeds_planned']}", (i, top), xytext=(0, 4), fontsize=7)
    ax.set_xticks(range(len(names)), names, rotation=30, fontsize=8)
    ax.set(ylabel=f"{metrics.get('clock', 'simulated')} minutes to completion",
           title="time to completion (mean, 95% CI, seeds; n/N succeeded)", title_size=9)
    _save(fig, path)


def _per_agent(metrics: dict[str, Any], key: str, ylabel: str, path: Path) -> None:
    names = list(metrics["conditions"])
    agents = sorted({a for c in metrics["conditions"].values() for a in c[key]})
    fig = Figure(1, 1, min(12.0, max(5.0, 0.25 * len(agents) * len(names) + 2)), HEIGHT)
    ax = fig.axes[0, 0]
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        values = metrics["conditions"][name][key]
        ax.bar([i + k * width for i in range(len(agents))], [values.get(a, 0) for a in agents], width, label=name,
               color=f"C{k}")
    ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(agents))], agents)
    ax.set(ylabel=ylabel)
    ax.legend("upper right", fontsize="small")
    _save(fig, path)


def _progress(run: OrgRun, metrics: dict[str, Any], path: Path) -> None:
    fig = Figure(1, 1, 6.4, HEIGHT)
    ax = fig.axes[0, 0]
    for k, name in enumerate(metrics["conditions"]):
        for j, episode in enumerate(run.of_condition(name)):
            if len(episode.progress) < 2:
                continue
            times = [t / 60 for t, _ in episode.progress]
            ax.step(times, [u for _, u in episode.progress], where="post", color=f"C{k}", alpha=0.7, linewidth=1,
                    label=name if j == 0 else None)
    ax.set(xlabel=f"{metrics.get('clock', 'simulated')} minutes", ylabel="task units done")
    if any(m.label for m in ax.marks):
        ax.legend("upper left", fontsize="small")  # the curves rise to the right
    else:
        ax.annotate("no progress recorded", (0.5, 0.5))  # an empty panel's view is 0..1
    _save(fig, path)


def write_org_plots(run: OrgRun, metrics: dict[str, Any], directory: Path) -> list[Plot]:
    plots = [
        Plot("time_to_completion", "Time to completion per condition", directory / "time_to_completion.svg"),
        Plot("items_per_agent", "Items (collect) or blocks placed (build) per agent, mean over seeds", directory / "items_per_agent.svg"),
        Plot("messages_per_agent", "Messages sent per agent, mean over seeds", directory / "messages_per_agent.svg"),
        Plot("progress", "Task progress over simulated time (every seed)", directory / "progress.svg"),
    ]
    _time_to_completion(metrics, plots[0].path)
    _per_agent(metrics, "items_per_agent", "items / blocks", plots[1].path)
    _per_agent(metrics, "messages_per_agent", "messages sent", plots[2].path)
    _progress(run, metrics, plots[3].path)
    return plots
