"""What a live run's episodes said about themselves that bears on their numbers, for metrics.json and the report.

A live episode can complete and still be of a different kind than its neighbours: its bots' Node runtime stalled
for seconds while the programs ran (`runtime_late`: a slowed episode, on a busy machine), or the server could not
reproduce part of the world (`live_unsupported`), or, in lockstep, the bots could not follow their simulated twin's
order (`lockstep` with `diverged`: its races were not ordered) or the episode's end cut its programs short of what
the twin did (`cut`: the live episode did less than the simulated one), or the world's dynamics fired late or
never (`dynamics_timing`: a growth period due at 60 s applied at 63 s; with the contract's quota periods, one
`lateness` warning: experiments/outputs/lateness.py). The run said so on stderr as it happened; a reader of
metrics.json or report.html, days later, must see it there too, per seed, to decide what to publish.
"""

from __future__ import annotations

from typing import Any

from blockpact.experiments.outputs.lateness import lateness_warning
from blockpact.experiments.log.records import EpisodeRecord, RunRecord
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec


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


def dynamics_timing(episode: EpisodeRecord) -> dict[str, Any] | None:
    """The rules that fired late or never (from the world master's `dynamics_timing`), when the episode ended against
    the world's length; None when the log has no such event (the simulator, a world without dynamics)."""
    found = [e for e in _last_attempt(episode) if e.kind == "dynamics_timing"]
    if not found:
        return None
    data = found[-1].data
    rules = [r for r in data.get("rules", []) if r.get("late") or r.get("missed")]
    return {"rules": rules, "ended_at": data.get("ended_at"), "episode_seconds": data.get("episode_seconds")}


def _world(run: RunRecord) -> WorldSpec | None:
    from blockpact.experiments.log.resume import recorded_world

    try:
        return recorded_world(run)
    except Exception:  # noqa: BLE001 - a world that no longer loads: its length and periods are unknown
        return None


def _ended_early(run: RunRecord, spec: WorldSpec | None) -> list[str]:
    """Completed live episodes whose clock stopped a tick or more before the world's episode length."""
    if run.config.backend == "sim" or spec is None:
        return []
    length = spec.episode_seconds
    return [f"{seed.condition} seed {seed.seed}" + (f" episode {ep.episode}" if len(seed.episodes) > 1 else "")
            + f" ({ep.sim_seconds:g} s of {length:g})"
            for seed in run.seeds if seed.completed for ep in seed.episodes
            if ep.finished and ep.sim_seconds is not None and ep.sim_seconds < length - 1.0]


def lockstep_notes(episode: EpisodeRecord) -> dict[str, Any] | None:
    """In lockstep (bridge/live/lockstep.py): how many shared actions followed the simulator's order, how many the
    episode's end cut off, and why the order was given up, if it was; None for an episode played without lockstep."""
    batches = [e for e in _last_attempt(episode) if e.kind == "lockstep"]
    if not batches:
        return None
    diverged = [str(e.data["diverged"]) for e in batches if e.data.get("diverged")]
    return {"followed": sum(int(e.data.get("done", 0)) for e in batches),
            "scheduled": sum(int(e.data.get("scheduled", 0)) for e in batches),
            "cut": sum(int(e.data.get("cut", 0)) for e in batches), "diverged": diverged}


def live_warnings(run: RunRecord) -> list[str]:
    """One line per kind: which completed seeds ran late (and by how much), which left or fell short of lockstep's
    order, what the server did not reproduce."""
    late: list[str] = []
    unordered: list[str] = []
    cut: list[str] = []
    parts: dict[str, None] = {}
    for seed in run.seeds:
        if not seed.completed:
            continue
        for ep in seed.episodes:
            where = f"{seed.condition} seed {seed.seed}" + (f" episode {ep.episode}" if len(seed.episodes) > 1 else "")
            if (stall := runtime_late_s(ep)) is not None:
                late.append(f"{where} ({stall:g} s)")
            parts.update(dict.fromkeys(unsupported_parts(ep)))
            if (lockstep := lockstep_notes(ep)) is not None and lockstep["diverged"]:
                unordered.append(f"{where} ({lockstep['diverged'][0]})")
            elif lockstep is not None and lockstep["cut"]:
                cut.append(f"{where} ({lockstep['cut']} of {lockstep['scheduled']} actions)")
    out = []
    if late:
        out.append(f"live: the bots' runtime stalled 2 s or more during the programs of {len(late)} completed episode(s): "
                   f"{', '.join(late)}. Their outcomes are of slowed episodes (a busy machine): compare with care")
    if unordered:
        out.append(f"live lockstep: the bots could not follow the simulator's order in {len(unordered)} completed "
                   f"episode(s), whose races were then decided by timing: {'; '.join(unordered)}")
    if cut:
        out.append(f"live lockstep: the episode's end came before the bots took every shared action of the simulated "
                   f"twin in {len(cut)} completed episode(s) (bots in lockstep wait for each other, so they do less in "
                   f"the same time; what they did was in order): {'; '.join(cut)}")
    spec = _world(run) if run.config.backend != "sim" else None
    if short := _ended_early(run, spec):
        out.append(f"live: {len(short)} completed episode(s) ended before the world's length, so the contract's "
                   f"periods, the players' rounds and the rules due after their end never came: {', '.join(short)}")
    if (lateness := lateness_warning(run, spec)) is not None:
        out.append(lateness)
    if parts:
        out.append(f"live: the server did not reproduce part of the world: {'; '.join(parts)}")
    return out


def episode_notes(episode: EpisodeRecord) -> dict[str, Any]:
    """The per-episode fields of metrics.json (None / empty when nothing was said)."""
    return {"runtime_late_s": runtime_late_s(episode), "live_unsupported": unsupported_parts(episode),
            "lockstep": lockstep_notes(episode), "dynamics_timing": dynamics_timing(episode)}
