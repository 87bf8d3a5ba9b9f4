"""What a live run's episodes said about themselves that bears on their numbers, for metrics.json and the report.

A live episode can complete and still be of a different kind than its neighbours: its bots' Node runtime stalled
for seconds while the programs ran (`runtime_late`: a slowed episode, on a busy machine), or the server could not
reproduce part of the world (`live_unsupported`). The run said so on stderr as it happened; a reader of
metrics.json or report.html, days later, must see it there too, per seed, to decide what to publish.
"""

from __future__ import annotations

from typing import Any

from blockpact.experiments.records import EpisodeRecord, RunRecord
from blockpact.worlds.events import Event


def _last_attempt(episode: EpisodeRecord) -> list[Event]:
    """The events of the episode's last attempt: with live.toml's on_disconnect = "retry", a failed attempt's
    events stay in the log before the next `episode_start`, and its stall is not the completed attempt's."""
    starts = [i for i, e in enumerate(episode.events) if e.kind == "episode_start"]
    return episode.events[starts[-1]:] if starts else episode.events


def runtime_late_s(episode: EpisodeRecord) -> float | None:
    """The longest stall of the bots' runtime during the episode's programs (seconds), if it was 2 s or more."""
    stalls = [float(e.data.get("late_s", 0.0)) for e in _last_attempt(episode) if e.kind == "runtime_late"]
    return max(stalls) if stalls else None


def unsupported_parts(episode: EpisodeRecord) -> list[str]:
    return [str(part) for e in _last_attempt(episode) if e.kind == "live_unsupported" for part in e.data.get("parts", [])]


def live_warnings(run: RunRecord) -> list[str]:
    """One line per kind: which completed seeds ran late (and by how much), what the server did not reproduce."""
    late: list[str] = []
    parts: dict[str, None] = {}
    for seed in run.seeds:
        if not seed.completed:
            continue
        for ep in seed.episodes:
            if (stall := runtime_late_s(ep)) is not None:
                late.append(f"{seed.condition} seed {seed.seed}" + (f" episode {ep.episode}" if len(seed.episodes) > 1 else "")
                            + f" ({stall:g} s)")
            parts.update(dict.fromkeys(unsupported_parts(ep)))
    out = []
    if late:
        out.append(f"live: the bots' runtime stalled 2 s or more during the programs of {len(late)} completed episode(s): "
                   f"{', '.join(late)}. Their outcomes are of slowed episodes (a busy machine): compare with care")
    if parts:
        out.append(f"live: the server did not reproduce part of the world: {'; '.join(parts)}")
    return out


def episode_notes(episode: EpisodeRecord) -> dict[str, Any]:
    """The per-episode fields of metrics.json (None / empty when nothing was said)."""
    return {"runtime_late_s": runtime_late_s(episode), "live_unsupported": unsupported_parts(episode)}
