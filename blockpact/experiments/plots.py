"""The figures of a run, as SVG (svg_figure.py): welfare per condition (mean and min–max band over seeds),
per-player rewards with the gap between players filled, items each player holds, and region stocks when the
world has dynamics. All curves are replayed from the world events of each completed seed's last finished episode."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from blockpact.experiments.records import EpisodeRecord, RunRecord
from blockpact.experiments.settings import run_settings
from blockpact.experiments.svg_figure import Axes, Figure
from blockpact.judge.metrics import Curve, item_curves, resource_curves, reward_curves, welfare_curve


def clock_label(run: RunRecord) -> str:
    """The time axis's name: the simulator's clock, or live Minecraft's wall clock (episode seconds since the
    programs started)."""
    return "wall-clock time (s)" if run.config.backend == "minecraft" else "simulated time (s)"

def _sample(curve: Curve, times: np.ndarray) -> np.ndarray:
    """The curve's value at each of `times` (its first value before it starts): one binary search per time,
    done by numpy for the whole grid (a grid has thousands of times in a long episode)."""
    if not curve.values:
        return np.zeros(len(times))
    k = np.searchsorted(np.asarray(curve.times, dtype=float), times, side="right") - 1
    return np.asarray(curve.values, dtype=float)[np.maximum(k, 0)]


def _grid(curves: Sequence[Curve], end: float) -> np.ndarray:
    return np.array(sorted({t for c in curves for t in c.times} | {0.0, end}))


def _playable(episode: EpisodeRecord | None) -> bool:
    return episode is not None and any(e.kind == "episode_start" for e in episode.events)


def _final_episodes(run: RunRecord, condition: str) -> list[EpisodeRecord]:
    """Completed units only: a failed or interrupted unit's episodes are not results."""
    return [ep for s in run.of_condition(condition) if s.completed and _playable(ep := s.final)]  # type: ignore[misc]


def _end(episodes: Sequence[EpisodeRecord]) -> float:
    return max([ep.sim_seconds or 0.0 for ep in episodes] + [e.time for ep in episodes for e in ep.events] + [1.0])


def _figure(panels: int, rows: int = 1) -> tuple[Figure, np.ndarray]:
    s = run_settings().plots
    fig = Figure(rows, panels, s.width, s.height)
    return fig, fig.axes


def _save(fig: Figure, path: Path) -> None:
    path.write_text(fig.svg(), encoding="utf-8")


def _band(ax: Axes, times: np.ndarray, rows: np.ndarray, label: str, color: str) -> None:
    alpha = run_settings().plots.band_alpha
    ax.fill_between(times, rows.min(axis=0), rows.max(axis=0), step="post", alpha=alpha, color=color, linewidth=0)
    ax.step(times, rows.mean(axis=0), where="post", color=color, label=label)


def _label(run: RunRecord) -> str:
    return "scripted agents" if run.scripted else "LLM agents"


def welfare_plot(run: RunRecord, path: Path) -> bool:
    conditions = [(i, c) for i, c in enumerate(run.config.conditions) if _final_episodes(run, c.name)]
    if not conditions:
        return False
    fig, axes = _figure(1)
    ax = axes[0, 0]
    for i, condition in conditions:
        episodes = _final_episodes(run, condition.name)
        curves = [welfare_curve(reward_curves(ep.events, run.config.values)) for ep in episodes]
        times = _grid(curves, _end(episodes))
        _band(ax, times, np.array([_sample(c, times) for c in curves]), f"{condition.name} (n={len(episodes)})", f"C{i}")
        # The curve is what the inventories are worth; the judge's transfers and gifts are settled after the end,
        # and that (the welfare the tables report) is drawn as a point at the end when it differs.
        settled = [sum(ep.rewards.values()) for ep in episodes if ep.rewards is not None]
        if any(ep.rewards != ep.inventory_rewards for ep in episodes):
            ax.scatter([times[-1]], [float(np.mean(settled))], color=f"C{i}", label=f"{condition.name}: after the judge's settlement")
    ax.set(xlabel=clock_label(run), ylabel="social welfare (emeralds): inventories' worth",
           title=f"{run.config.world}: social welfare, mean and min–max over seeds ({_label(run)})")
    ax.legend(loc="lower right")
    _save(fig, path)
    return True


def reward_plot(run: RunRecord, path: Path) -> bool:
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    if not conditions:
        return False
    fig, axes = _figure(len(conditions))
    for ax, condition in zip(axes[0], conditions):
        episodes = _final_episodes(run, condition.name)
        per_seed = [reward_curves(ep.events, run.config.values) for ep in episodes]
        end = _end(episodes)
        times = _grid([c for curves in per_seed for c in curves.values()], end)
        means = {p: np.mean([_sample(curves[p], times) for curves in per_seed], axis=0) for p in run.config.players}
        stack = np.array(list(means.values()))
        ax.fill_between(times, stack.min(axis=0), stack.max(axis=0), step="post", alpha=0.2, color="grey",
                        linewidth=0, label="difference between players")
        for i, (player, mean) in enumerate(means.items()):
            ax.step(times, mean, where="post", color=f"C{i}", label=player)
            after = np.mean([ep.rewards[player] for ep in episodes if ep.rewards])
            ax.scatter([end], [after], marker="D", color=f"C{i}", zorder=3)
        ax.scatter([], [], marker="D", color="black", label="after transfers")
        ax.set(title=f"{condition.name}: reward per player (mean of {len(episodes)} seeds)",
               xlabel=clock_label(run), ylabel="emeralds")
        ax.legend(loc="lower right", fontsize="small")
    _save(fig, path)
    return True


def item_plot(run: RunRecord, path: Path) -> bool:
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    items = sorted({item for values in run.config.values.values() for item, v in values.items() if v > 0} | {"emerald"})
    if not conditions:
        return False
    players = run.config.players
    fig, axes = _figure(len(players), rows=len(conditions))
    for row, condition in zip(axes, conditions):
        episodes = _final_episodes(run, condition.name)
        per_seed = [item_curves(ep.events, items) for ep in episodes]
        end = _end(episodes)
        for ax, player in zip(row, players):
            held = [item for item in items if any(any(c[player][item].values) for c in per_seed)]
            times = _grid([c[player][item] for c in per_seed for item in held], end)
            for i, item in enumerate(held):
                ax.step(times, np.mean([_sample(c[player][item], times) for c in per_seed], axis=0), where="post",
                        color=f"C{i}", label=item)
            if not held:  # a flat zero over the episode, said in the legend (an empty panel had a 0-1 time axis)
                ax.step([0.0, end], [0.0, 0.0], where="post", color="C7", label="none of the valued items")
            ax.set(title=f"{condition.name}: items {player} holds", xlabel=clock_label(run), ylabel="count")
            ax.legend(loc="lower right", fontsize="small")
    _save(fig, path)
    return True


def region_plot(run: RunRecord, path: Path) -> bool:
    """Stocks of dynamics-rule blocks in their regions (the commons' resources); only worlds with rules."""
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    per_condition = {c.name: [resource_curves(ep.events) for ep in _final_episodes(run, c.name)] for c in conditions}
    if not any(curves for seeds in per_condition.values() for curves in seeds):
        return False
    fig, axes = _figure(len(conditions))
    for ax, condition in zip(axes[0], conditions):
        seeds = per_condition[condition.name]
        end = _end(_final_episodes(run, condition.name))
        for i, key in enumerate(sorted(seeds[0])):
            times = _grid([s[key] for s in seeds], end)
            _band(ax, times, np.array([_sample(s[key], times) for s in seeds]), key, f"C{i}")
        ax.set(title=f"{condition.name}: resource stocks (mean, min–max)", xlabel=clock_label(run),
               ylabel="blocks in region")
        ax.legend(loc="upper right", fontsize="small")
    _save(fig, path)
    return True


FIGURES = [
    ("welfare", "Social welfare over time", welfare_plot),
    ("rewards", "Reward per player over time", reward_plot),
    ("items", "Items held per player over time", item_plot),
    ("regions", "Resource stocks over time", region_plot),
]
