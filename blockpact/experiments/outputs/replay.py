"""A replay of each episode: one self-contained HTML page (inline data and script, no server, no network) built from
events.jsonl alone, for simulator and live runs alike.

The page shows the world from above (each column's top block), the players moving, blocks dug, placed and
regrowing, chests and inventories, chat, the contract with each clause's status as the episode goes, and the
judge's settlement at the end, with play, pause, step and a scrubber. A frame is one moment at which the log
records something. Players walk in straight lines between recorded cells (the log holds where a walk ended and
its length, not its route); the page says so.

A clause's status during the episode is the formal judge's verdict on the events up to that moment ("broken so
far" / "holds so far"); the settlement at the end is the judgment the run recorded, which may be the LLM judge's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from blockpact.experiments.log.records import EpisodeRecord, RunRecord, SeedRecord
from blockpact.experiments.outputs.pages import TEMPLATES
from blockpact.judge.contract import parse_contract, split_clauses
from blockpact.judge.formal import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.colors import block_color, palette
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec

# The world events a replay draws; others (program results, lockstep bookkeeping) are in the report.
SHOWN = ("move", "block", "chest", "inventory", "chat", "signal", "craft", "smelt", "program_start", "program_end",
         "connection", "episode_failed", "server_restart")
CHECKPOINTS = 60  # clause statuses computed at most this many times per episode (each reads the events so far)
WALK_SPEED = 4.317  # blocks per second (Minecraft's walking speed): how long a glide between recorded cells takes


@dataclass(frozen=True)
class Replay:
    condition: str
    seed: int
    episode: int
    path: Path  # relative to the run directory


def replay_path(condition: str, seed: int, episode: int) -> Path:
    return Path("replays") / f"{_safe(condition)}-seed{seed}-episode{episode}.html"


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)


def _hex(rgb: Sequence[int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _world(spec: WorldSpec) -> dict[str, Any]:
    """Every block of the world at the start, as [x, y, z, palette index]."""
    names = sorted(set(spec.blocks.values()))
    index = {name: i for i, name in enumerate(names)}
    return {"origin": list(spec.origin), "size": list(spec.size), "names": names,
            "colors": [_hex(block_color(n)) for n in names],
            "cells": [[x, y, z, index[name]] for (x, y, z), name in sorted(spec.blocks.items())],
            "regions": {name: [list(r.lo), list(r.hi)] for name, r in sorted(spec.regions.items())},
            "chest_names": {",".join(map(str, pos)): chest.name for pos, chest in spec.chests.items()}}


def _event(e: Event, players: dict[str, int]) -> list[Any]:
    """[time, kind, player index or -1, data]: data trimmed to what the page shows."""
    d = e.data
    if e.kind == "move":
        data: Any = {"to": d.get("to"), "steps": d.get("steps")}
    elif e.kind == "block":
        data = {"pos": d.get("pos"), "old": d.get("old"), "new": d.get("new"), "cause": d.get("cause")}
    elif e.kind == "chest":
        data = {"pos": d.get("pos"), "item": d.get("item"), "delta": d.get("delta"), "count": d.get("count")}
    elif e.kind == "inventory":
        data = {"item": d.get("item"), "count": d.get("count"), "delta": d.get("delta"), "cause": d.get("cause")}
    elif e.kind == "chat":
        data = {"message": str(d.get("message", ""))[:2000]}
    elif e.kind in ("signal", "craft", "smelt"):
        data = {k: v for k, v in d.items() if isinstance(v, (str, int, float))}
    else:
        data = {k: str(v)[:300] for k, v in d.items() if k in ("reason", "error", "success", "event", "attempt")}
    return [round(e.time, 3), e.kind, players.get(e.agent or "", -1), data]


def _clause_timeline(spec: WorldSpec, contract_text: str | None, events: list[Event]) -> list[dict[str, Any]]:
    """The formal judge's clause statuses on the events up to each checkpoint: at every moment something a
    clause can see changed, thinned to CHECKPOINTS, and at the end."""
    if not contract_text:
        return []
    contract = parse_contract(contract_text, sorted(spec.players), world=spec.name)
    if not contract.clauses:
        return []
    seen = ("inventory", "block", "chest", "chat", "signal", "craft", "task")
    moments = sorted({e.time for e in events if e.kind in seen})
    if len(moments) > CHECKPOINTS:
        step = len(moments) / CHECKPOINTS
        moments = [moments[int(i * step)] for i in range(CHECKPOINTS)]
    end = max((e.time for e in events), default=0.0)
    out = []
    for t in [*moments, end] if not moments or moments[-1] != end else moments:
        prefix = [e for e in events if e.time <= t and e.kind != "episode_end"]
        try:
            scores = judge_formal(contract, observables_from_events(spec, prefix)).clauses
        except (ValueError, KeyError):
            continue
        out.append({"t": round(t, 3), "status": [s["status"] for s in scores],
                    "by": [s["broken_by"] for s in scores]})
    return out


def _settlement(ep: EpisodeRecord) -> dict[str, Any]:
    return {"judgments": [{"source": j.source, "valid": j.valid, "transfers": j.transfers, "reasoning": j.reasoning,
                           "error": j.error, "clauses": [{"clause": c["clause"], "status": c["status"],
                                                          "broken_by": c.get("broken_by", [])} for c in j.clauses]}
                          for j in ep.judgments],
            "transfers": ep.transfers, "rewards": ep.rewards, "inventory_rewards": ep.inventory_rewards}


def replay_data(run: RunRecord, spec: WorldSpec, seed: SeedRecord, ep: EpisodeRecord) -> dict[str, Any]:
    names = sorted(spec.players)
    players = {p: i for i, p in enumerate(names)}
    colors = palette("players", names)
    start = next((e for e in ep.events if e.kind == "episode_start"), None)
    snapshot = start.data if start else {}
    end = max([ep.sim_seconds or 0.0] + [e.time for e in ep.events])
    return {
        "title": f"{run.config.world} · {seed.condition} · seed {seed.seed} · episode {ep.episode}",
        "clock": "wall-clock seconds since the programs started" if run.config.backend == "minecraft"
        else "simulated seconds",
        "backend": run.config.backend,
        "agents": "scripted agents (deterministic policies, no LLM)" if run.scripted else "LLM agents",
        "world": _world(spec),
        "players": [{"name": p, "color": _hex(colors[p]),
                     "spawn": (snapshot.get("positions") or {}).get(p) or list(spec.players[p].spawn),
                     "values": dict(spec.players[p].values)} for p in names],
        "start": {"inventories": snapshot.get("inventories", {}), "chests": snapshot.get("chests", {})},
        "events": [_event(e, players) for e in ep.events if e.kind in SHOWN],
        "end": round(end, 3),
        "walk_speed": WALK_SPEED,
        "contract": {"text": seed.contract, "source": seed.contract_source,
                     "clauses": split_clauses(seed.contract) if seed.contract else [],
                     "timeline": _clause_timeline(spec, seed.contract, ep.events)},
        "settlement": _settlement(ep),
        "finished": ep.finished,
    }


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe inside a <script> element: agents' text cannot close it or open a comment."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_replay(data: dict[str, Any]) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    return env.get_template("replay.html.j2").render(title=data["title"], data=Markup(_script_json(data)))


def write_replays(run: RunRecord, root: Path) -> list[Replay]:
    """A page per episode of every unit that played one (failed units too: a replay shows how far they got)."""
    from blockpact.experiments.log.resume import recorded_world

    if not run.config.world_source:
        return []
    spec = recorded_world(run)
    written = []
    (root / "replays").mkdir(parents=True, exist_ok=True)
    for seed in run.seeds:
        for ep in seed.episodes:
            if not any(e.kind == "episode_start" for e in ep.events):
                continue
            rel = replay_path(seed.condition, seed.seed, ep.episode)
            (root / rel).write_text(render_replay(replay_data(run, spec, seed, ep)), encoding="utf-8")
            written.append(Replay(seed.condition, seed.seed, ep.episode, rel))
    return written
