"""The commons figure: each renewable resource's stock per condition against its collapse threshold
and its sustainable level (GovSim's picture of a collapse); drawn only for worlds with resources."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blockpact.experiments.outputs import plots
from blockpact.experiments.outputs.commons_metrics import commons_resources
from blockpact.experiments.log.records import RunRecord
from blockpact.judge.metrics import resource_curves


def commons_plot(run: RunRecord, path: Path) -> bool:
    from blockpact.experiments.log.resume import recorded_world

    try:
        resources = commons_resources(recorded_world(run))
    except Exception:  # metrics.json and the report say why the world could not be rebuilt
        return False
    conditions = [c for c in run.config.conditions if plots._final_episodes(run, c.name)]
    if not resources or not conditions:
        return False
    fig, axes = plots._figure(len(resources))
    for ax, resource in zip(axes[0], resources):
        for i, condition in enumerate(conditions):
            episodes = plots._final_episodes(run, condition.name)
            curves = [c[resource.key] for ep in episodes if resource.key in (c := resource_curves(ep.events))]
            if curves:
                times = plots._grid(curves, plots._end(episodes))
                rows = np.array([plots._sample(c, times) for c in curves])
                plots._band(ax, times, rows, f"{condition.name} (n={len(curves)})", f"C{i}")
        if resource.threshold is not None:
            ax.axhline(resource.threshold, color="red", linestyle=":", label=f"collapse below {resource.threshold:g}")
        if resource.sustainable_level is not None:
            ax.axhline(resource.sustainable_level, color="gray", linestyle="--",
                       label=f"sustainable level {resource.sustainable_level:g}")
        ax.set(title=f"{resource.key}: stock (mean, 95% CI over seeds)", xlabel=plots.clock_label(run), ylabel="blocks")
        ax.legend(loc="outside", fontsize="small")
    plots._save(fig, path)
    return True
