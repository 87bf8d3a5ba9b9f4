"""The figures of a run, as SVG (svg_figure.py): welfare per condition (mean and 95% CI band over seeds),
per-player rewards with the gap between players filled, items each player holds, and region stocks when the
world has dynamics. All curves are replayed from the world events of each completed seed's last finished episode.
The clock's axis covers where things happen (a note says when the episode ran on, unchanged); each condition,
player and item keeps its colour in every panel (plot_style.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from blockpact.experiments.outputs.plot_style import PageColors, action_window, mean_ci, nice_ceiling
from blockpact.experiments.log.records import EpisodeRecord, RunRecord
from blockpact.experiments.plan.settings import run_settings
from blockpact.experiments.outputs.svg_figure import Axes, Figure
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
    """The mean over seeds and, from two seeds on, its 95% CI as a band (said in the legend)."""
    alpha = run_settings().plots.band_alpha
    mean, low, high = mean_ci(rows)
    n = rows.shape[0]
    if low is not None and high is not None:
        ax.fill_between(times, low, high, step="post", alpha=alpha, color=color, linewidth=0)
    ax.step(times, mean, where="post", color=color, label=f"{label} (n={n}): mean, band 95% CI" if n > 1
            else f"{label} (1 seed: no interval)")


def _label(run: RunRecord) -> str:
    return "scripted agents" if run.scripted else "LLM agents"


def page_colors(run: RunRecord) -> PageColors:
    items = {item for values in run.config.values.values() for item, v in values.items() if v > 0} | {"emerald"}
    return PageColors([c.name for c in run.config.conditions], run.config.players, items)


def _changes(curves: Sequence[Curve]) -> list[float]:
    """The times at which any of the curves changes value."""
    return [t for c in curves for t, a, b in zip(c.times[1:], c.values, c.values[1:]) if a != b]


def set_clock(ax: Axes, run: RunRecord, curves: Sequence[Curve], end: float) -> str:
    """The time axis over where the curves change; the title's note when the episode ran on unchanged."""
    right, cut_from = action_window(_changes(curves), end)
    ax.set_xlim(0.0, right)
    return "" if cut_from is None else f"; first {right:g} of {cut_from:g} s shown (no change after)"


def from_zero(ax: Axes, values: Sequence[float], cap: float | None = None) -> None:
    """A y-axis from 0 to a round value above the data (a cut axis made 74 against 78 look like 0 against 100)."""
    finite = [v for v in values if np.isfinite(v)]
    lo, hi = min([0.0, *finite]), max([0.0, *finite])
    top = nice_ceiling(hi * 1.08) if hi > 0 else 1.0
    ax.set_ylim(lo * 1.08 if lo < 0 else 0.0, min(top, cap) if cap is not None else top)


def welfare_plot(run: RunRecord, path: Path) -> bool:
    conditions = [(i, c) for i, c in enumerate(run.config.conditions) if _final_episodes(run, c.name)]
    if not conditions:
        return False
    fig, axes = _figure(1)
    ax = axes[0, 0]
    colors = page_colors(run)
    drawn: list[Curve] = []
    ends, values = [], []
    for _, condition in conditions:
        episodes = _final_episodes(run, condition.name)
        curves = [welfare_curve(reward_curves(ep.events, run.config.values)) for ep in episodes]
        drawn += curves
        ends.append(_end(episodes))
        values += [v for c in curves for v in c.values]
    note = set_clock(ax, run, drawn, max(ends))
    right = ax.xlim[1] if ax.xlim else max(ends)
    for _, condition in conditions:
        episodes = _final_episodes(run, condition.name)
        curves = [welfare_curve(reward_curves(ep.events, run.config.values)) for ep in episodes]
        times = _grid(curves, _end(episodes))
        color = colors.condition(condition.name)
        _band(ax, times, np.array([_sample(c, times) for c in curves]), condition.name, color)
        # The curve is what the inventories are worth; the judge's transfers and gifts are settled after the end,
        # and that (the welfare the tables report) is drawn as a point at the right edge when it differs.
        settled = [sum(ep.rewards.values()) for ep in episodes if ep.rewards is not None]
        if any(ep.rewards != ep.inventory_rewards for ep in episodes):
            ax.scatter([right], [float(np.mean(settled))], color=color,
                       label=f"{condition.name}: after the judge's settlement")
            values.append(float(np.mean(settled)))
    from_zero(ax, values)
    ax.set(xlabel=clock_label(run) + note, ylabel="welfare (emeralds): inventories' worth",
           title=f"{run.config.world}: social welfare ({_label(run)})")
    ax.legend(loc="outside")
    _save(fig, path)
    return True


def reward_plot(run: RunRecord, path: Path) -> bool:
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    if not conditions:
        return False
    fig, axes = _figure(len(conditions))
    colors = page_colors(run)
    every = [c for cond in conditions for ep in _final_episodes(run, cond.name)
             for c in reward_curves(ep.events, run.config.values).values()]
    values = [v for c in every for v in c.values]
    for ax, condition in zip(axes[0], conditions):
        episodes = _final_episodes(run, condition.name)
        per_seed = [reward_curves(ep.events, run.config.values) for ep in episodes]
        end = _end(episodes)
        note = set_clock(ax, run, every, end)
        times = _grid([c for curves in per_seed for c in curves.values()], end)
        means = {p: np.mean([_sample(curves[p], times) for curves in per_seed], axis=0) for p in run.config.players}
        stack = np.array(list(means.values()))
        ax.fill_between(times, stack.min(axis=0), stack.max(axis=0), step="post", alpha=0.2, color="grey",
                        linewidth=0, label="difference between players")
        right = ax.xlim[1] if ax.xlim else end
        for player, mean in means.items():
            ax.step(times, mean, where="post", color=colors.player(player), label=player)
            after = float(np.mean([ep.rewards[player] for ep in episodes if ep.rewards]))
            ax.scatter([right], [after], marker="D", color=colors.player(player), zorder=3)
            values.append(after)
        ax.scatter([], [], marker="D", color="black", label="after transfers")
        from_zero(ax, values)
        ax.set(title=f"{condition.name}: reward per player (mean of {len(episodes)} seeds)",
               xlabel=clock_label(run) + note, ylabel="reward (emeralds)")
        ax.legend(loc="outside", fontsize="small")
    _save(fig, path)
    return True


def item_plot(run: RunRecord, path: Path) -> bool:
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    items = sorted({item for values in run.config.values.values() for item, v in values.items() if v > 0} | {"emerald"})
    if not conditions:
        return False
    players = run.config.players
    colors = page_colors(run)
    fig, axes = _figure(len(players), rows=len(conditions))
    all_curves = {cond.name: [item_curves(ep.events, items) for ep in _final_episodes(run, cond.name)]
                  for cond in conditions}
    every = [curve for seeds in all_curves.values() for c in seeds for by_item in c.values() for curve in by_item.values()]
    for row, condition in zip(axes, conditions):
        episodes = _final_episodes(run, condition.name)
        per_seed = all_curves[condition.name]
        end = _end(episodes)
        for ax, player in zip(row, players):
            note = set_clock(ax, run, every, end)
            held = [item for item in items if any(any(c[player][item].values) for c in per_seed)]
            times = _grid([c[player][item] for c in per_seed for item in held], end)
            for item in held:
                ax.step(times, np.mean([_sample(c[player][item], times) for c in per_seed], axis=0), where="post",
                        color=colors.item(item), label=item)
            if not held:  # a flat zero over the episode, said in the legend (an empty panel had a 0-1 time axis)
                ax.step([0.0, end], [0.0, 0.0], where="post", color="#7f7f7f", label="none of the valued items")
            from_zero(ax, [v for c in every for v in c.values])
            ax.integer_y = True
            ax.set(title=f"{condition.name}: items {player} holds", xlabel=clock_label(run) + note,
                   ylabel="count (items)")
            ax.legend(loc="outside", fontsize="small")
    _save(fig, path)
    return True


def region_plot(run: RunRecord, path: Path) -> bool:
    """Stocks of dynamics-rule blocks in their regions (the commons' resources); only worlds with rules."""
    conditions = [c for c in run.config.conditions if _final_episodes(run, c.name)]
    per_condition = {c.name: [resource_curves(ep.events) for ep in _final_episodes(run, c.name)] for c in conditions}
    if not any(curves for seeds in per_condition.values() for curves in seeds):
        return False
    fig, axes = _figure(len(conditions))
    keys = sorted({key for seeds in per_condition.values() for s in seeds for key in s})
    key_colors = PageColors(keys, [], []).conditions
    every = [c for seeds in per_condition.values() for s in seeds for c in s.values()]
    for ax, condition in zip(axes[0], conditions):
        seeds = per_condition[condition.name]
        end = _end(_final_episodes(run, condition.name))
        note = set_clock(ax, run, every, end)
        for key in sorted(seeds[0]):
            times = _grid([s[key] for s in seeds], end)
            _band(ax, times, np.array([_sample(s[key], times) for s in seeds]), key, key_colors[key])
        from_zero(ax, [v for c in every for v in c.values])
        ax.set(title=f"{condition.name}: resource stocks", xlabel=clock_label(run) + note,
               ylabel="blocks in region")
        ax.legend(loc="outside", fontsize="small")
    _save(fig, path)
    return True


FIGURES = [
    ("welfare", "Social welfare over time", welfare_plot),
    ("rewards", "Reward per player over time", reward_plot),
    ("items", "Items held per player over time", item_plot),
    ("regions", "Resource stocks over time", region_plot),
]
