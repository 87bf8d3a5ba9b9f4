"""What every figure of a page shares: one colour per condition, per player and per item (the same player is
the same colour in every panel, in the world pictures and in the replay), the 95% CI band of a mean over seeds,
and the stretch of the episode's clock where something happens."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from blockpact.experiments.outputs.stats import t975
from blockpact.worlds.colors import palette

# conditions: dark, saturated tones; items: ColorBrewer's Dark2 then tab10's remainder. Players take the world
# pictures' palette (colors.toml), so a player has one colour across the report and the replay.
CONDITION_COLORS = ["#1f3b73", "#c0392b", "#1e8449", "#7d3c98", "#b9770e", "#117a65", "#515a5a", "#943126"]
ITEM_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
               "#17becf", "#bcbd22"]


class PageColors:
    """The colours of one page's figures, fixed by the run (its conditions, players and valued items)."""

    def __init__(self, conditions: Sequence[str], players: Sequence[str], items: Iterable[str]) -> None:
        self.conditions = {c: CONDITION_COLORS[i % len(CONDITION_COLORS)] for i, c in enumerate(conditions)}
        self.players = {p: "#{:02x}{:02x}{:02x}".format(*rgb) for p, rgb in palette("players", list(players)).items()}
        self.items = {item: ITEM_COLORS[i % len(ITEM_COLORS)] for i, item in enumerate(sorted(set(items)))}

    def condition(self, name: str) -> str:
        return self.conditions.get(name, "#333333")

    def player(self, name: str) -> str:
        return self.players.get(name, "#333333")

    def item(self, name: str) -> str:
        return self.items.get(name, "#333333")


def mean_ci(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Per column (a time): the mean over the rows (seeds) and its 95% CI (Student's t); no interval from one
    row."""
    mean = rows.mean(axis=0)
    n = rows.shape[0]
    if n < 2:
        return mean, None, None
    half = t975(n - 1) * rows.std(axis=0, ddof=1) / math.sqrt(n)
    return mean, mean - half, mean + half


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above `value` (an axis's round end)."""
    if value <= 0:
        return 1.0
    base = 10.0 ** math.floor(math.log10(value))
    return next(base * m for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if base * m >= value - 1e-9)


def action_window(change_times: Iterable[float], episode_end: float) -> tuple[float, float | None]:
    """The clock's range to draw: up to a round time past the last change (with a margin), or the whole episode
    when things happen until near its end. Returns (right end, the episode's end when cut short, else None)."""
    last = max([t for t in change_times if math.isfinite(t)], default=0.0)
    right = nice_ceiling(max(last * 1.15, last + 1.0))
    if right >= 0.8 * episode_end:
        return episode_end, None
    return right, episode_end
