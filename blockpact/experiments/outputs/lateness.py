"""Live lateness: every scheduled firing of a live episode against when it was due, for metrics.json and the report.

On the simulator every `[[dynamics]]` rule fires at its tick and every period of the contract starts at its second,
so its numbers mean what the world file says. On a live server the world master applies the rules' ticks on the
wall clock whenever it gets to run (bridge/live/rule_timing.py: a growth period due at 60 s applied at 63 s), and an
episode whose clock stopped before the world's length never reaches the ticks and the contract's quota periods
(the players' rounds) due after its end; a server that ticks slowly starts the players' rounds late. A reader of metrics.json or report.html must see both, per seed.

Two kinds of firing are counted:
- `rule`: each due tick of a dynamics rule, as the world master measured it (`dynamics_timing`): late when applied
  `threshold_s` or more after it was due, missed when due before the world's length but after the episode's end;
- `period`: each period of a quota clause with a period (`every 60 s`, `per round`), from its window's start to
  its end or the world's length. The judge counts what was done in it on the episode's clock, but the players'
  programs keep time by the server's (`bot.time.age`: its ticks, 20 a second on an idle machine, fewer on a busy
  one), so their round for the period begins when the server's clock reaches it (the world master's
  `server_clock` samples): late when that is `threshold_s` or more after the period began, missed when the
  server's clock had not reached it by the episode's end, or the episode ended first (`cut_at`: the period under
  way when the episode ended early). Without samples (another server, whose clock is not read) only the episode's
  end counts. The regrowth at a period's boundary is its rule's firing.

`lateness` is None for a simulated episode (its clock is simulated: nothing fires late), and the condition's
summary says `clock: "simulated"` with zero counts.
"""

from __future__ import annotations

from typing import Any

from blockpact.bridge.live.rule_timing import LATE_S
from blockpact.experiments.log.records import EpisodeRecord, RunRecord, SeedRecord
from blockpact.judge.clauses import ForEach, Quota, TotalQuota, Window
from blockpact.judge.contract import parse_contract
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec

EPS = 1e-9


def _last_attempt(episode: EpisodeRecord) -> list[Event]:
    """The events of the episode's last attempt (a retried episode's earlier attempts are not its numbers)."""
    starts = [i for i, e in enumerate(episode.events) if e.kind == "episode_start"]
    return episode.events[starts[-1]:] if starts else episode.events


def _rule_firings(timing: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"kind": "rule", "name": r["rule"], "due": r["due"], "late": r["late"], "worst_late_s": r["max_late_s"],
             "first_late_at": r["first_late_at"], "missed": r["missed"], "first_missed_at": r["first_missed_at"],
             "cut_at": None} for r in timing.get("rules", [])]


def _quota_periods(spec: WorldSpec, contract: str | None) -> dict[tuple[float, float, float], list[int]]:
    """(period, window start, window end) -> the numbers of the clauses that count in those periods."""
    if not contract:
        return {}
    try:
        clauses = parse_contract(contract, sorted(spec.players), spec=spec).clauses
    except Exception:  # noqa: BLE001 - a contract this version no longer parses: its periods are unknown
        return {}
    found: dict[tuple[float, float, float], list[int]] = {}
    for n, clause in enumerate(clauses, 1):
        for part in clause.parts if isinstance(clause, ForEach) else (clause,):
            if isinstance(part, (Quota, TotalQuota)) and part.period:
                window = part.window or Window()
                end = min(spec.episode_seconds, window.end if window.end is not None else spec.episode_seconds)
                numbers = found.setdefault((float(part.period), float(window.start), float(end)), [])
                if n not in numbers:
                    numbers.append(n)
    return found


def _reached(samples: list[list[float]], second: float) -> float | None:
    """The episode second at which the server's clock reached `second` (interpolated between samples, from 0 at 0);
    None if it never did."""
    before = (0.0, 0.0)
    for episode, server in samples:
        if server >= second - EPS:
            span = server - before[1]
            return episode if span <= EPS else before[0] + (second - before[1]) * (episode - before[0]) / span
        before = (episode, server)
    return None


def period_firings(spec: WorldSpec, contract: str | None, ended_at: float, clock: list[list[float]] | None = None,
                   threshold_s: float = LATE_S) -> list[dict[str, Any]]:
    """The contract's quota periods due before the world's length: those the episode never reached, and, with the
    server's `clock` samples ((episode s, server s): the world master's `server_clock`), the players' rounds that
    began `threshold_s` or more late or never because the server's clock, by which programs keep time, lagged."""
    out = []
    for (period, start, end), clauses in _quota_periods(spec, contract).items():
        starts, k = [], 0
        while start + k * period < end - EPS:
            starts.append(round(start + k * period, 6))
            k += 1
        began = {s: (_reached(clock, s) if clock else s) for s in starts}
        missed = [s for s in starts if began[s] is None or began[s] >= ended_at - EPS]
        late = {s: round(at - s, 3) for s, at in began.items() if s not in missed and at is not None and at - s >= threshold_s}
        under_way = [s for s in starts if s < ended_at - EPS and ended_at < min(s + period, end) - EPS]
        window = f" from {start:g} s" if start else ""
        window += f" to {end:g} s" if end < spec.episode_seconds else ""
        out.append({"kind": "period", "name": f"clause {', '.join(map(str, clauses))}: every {period:g} s{window}",
                    "due": len(starts), "late": len(late), "worst_late_s": max(late.values(), default=0.0),
                    "first_late_at": min(late, default=None), "missed": len(missed),
                    "first_missed_at": missed[0] if missed else None, "cut_at": round(ended_at, 3) if under_way else None})
    return out


def episode_lateness(episode: EpisodeRecord, spec: WorldSpec | None, live: bool) -> dict[str, Any] | None:
    """A live episode's firings that came late or never, with their totals; None on the simulator."""
    if not live:
        return None
    events = _last_attempt(episode)
    timing = next((e.data for e in reversed(events) if e.kind == "dynamics_timing"), None)
    ended_at = timing["ended_at"] if timing is not None else episode.sim_seconds
    firings = _rule_firings(timing) if timing is not None else []
    threshold = float(timing.get("threshold_s", LATE_S)) if timing is not None else LATE_S
    clock = next((e.data for e in reversed(events) if e.kind == "server_clock"), None)
    if ended_at is None and clock is not None:
        ended_at = clock["ended_at"]
    if spec is not None and ended_at is not None:
        firings += period_firings(spec, episode.contract, float(ended_at), clock["samples"] if clock else None, threshold)
    off = [f for f in firings if f["late"] or f["missed"] or f["cut_at"] is not None]
    return {"threshold_s": threshold,
            "scheduled": sum(f["due"] for f in firings), "late": sum(f["late"] for f in firings),
            "missed": sum(f["missed"] for f in firings), "worst_late_s": max((f["worst_late_s"] for f in firings), default=0.0),
            "ended_at": ended_at, "episode_seconds": spec.episode_seconds if spec is not None else None, "firings": off}


def seed_lateness(seed: SeedRecord, spec: WorldSpec | None, live: bool) -> dict[str, Any] | None:
    """The seed's finished episodes together: totals, and each late or missed firing with its episode."""
    if not live:
        return None
    parts = [(ep.episode, episode_lateness(ep, spec, live)) for ep in seed.episodes if ep.finished]
    found = [(n, p) for n, p in parts if p is not None]
    return {"late": sum(p["late"] for _, p in found), "missed": sum(p["missed"] for _, p in found),
            "worst_late_s": max((p["worst_late_s"] for _, p in found), default=0.0),
            "threshold_s": found[0][1]["threshold_s"] if found else LATE_S,
            "firings": [{"episode": n, **f} for n, p in found for f in p["firings"]]}


def condition_lateness(runs: list[dict[str, Any]], live: bool) -> dict[str, Any]:
    """Over the condition's completed seeds (their `lateness`): on the simulator zero, its clock `simulated`."""
    if not live:
        return {"clock": "simulated", "late": 0, "missed": 0, "worst_late_s": 0.0, "seeds": []}
    found = [r for r in runs if r.get("lateness") is not None]
    return {"clock": "wall", "late": sum(r["lateness"]["late"] for r in found),
            "missed": sum(r["lateness"]["missed"] for r in found),
            "worst_late_s": max((r["lateness"]["worst_late_s"] for r in found), default=0.0),
            "seeds": [r["seed"] for r in found if r["lateness"]["firings"]]}


def _firing_text(f: dict[str, Any], ended_at: float | None, length: float | None) -> str:
    said = []
    if f["late"] and f["kind"] == "rule":
        said.append(f"{f['late']} of {f['due']} ticks late (up to {f['worst_late_s']:g} s, first due at {f['first_late_at']:g} s)")
    elif f["late"]:
        said.append(f"{f['late']} of {f['due']} rounds began late on the server's clock, by which programs keep time "
                    f"(up to {f['worst_late_s']:g} s after the period, first due at {f['first_late_at']:g} s)")
    if f["missed"]:
        verb = "fired" if f["kind"] == "rule" else "started"
        end = f"; the episode ended at {ended_at:g} s of {length:g}" if ended_at is not None and length is not None else ""
        said.append(f"{f['missed']} never {verb} (the first due at {f['first_missed_at']:g} s{end})")
    if f["cut_at"] is not None:
        said.append(f"the one under way cut short at {f['cut_at']:g} s")
    return f"{f['kind']} {f['name']}: {', '.join(said)}"


def lateness_warning(run: RunRecord, spec: WorldSpec | None) -> str | None:
    """One warning line naming every completed live episode with a firing late or missed; None when there is none
    (and always on the simulator)."""
    live = run.config.backend != "sim"
    if not live:
        return None
    named = []
    late = missed = 0
    for seed in run.seeds:
        if not seed.completed:
            continue
        for ep in seed.episodes:
            summary = episode_lateness(ep, spec, live) if ep.finished else None
            if summary is None or not summary["firings"]:
                continue
            late, missed = late + summary["late"], missed + summary["missed"]
            where = f"{seed.condition} seed {seed.seed}" + (f" episode {ep.episode}" if len(seed.episodes) > 1 else "")
            texts = [_firing_text(f, summary["ended_at"], summary["episode_seconds"]) for f in summary["firings"]]
            named.append(f"{where}: {'; '.join(texts)}")
    if not named:
        return None
    return (f"live lateness: {late} scheduled firing(s) came {LATE_S:g} s or more late and {missed} never came, in "
            f"{len(named)} completed episode(s); their quotas were judged and their stock grew on another schedule than "
            f"the world file's (on the simulator every rule and period fires at its time): {' | '.join(named)}")
