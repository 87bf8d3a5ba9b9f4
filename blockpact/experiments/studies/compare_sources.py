"""The runs a comparison reads: each run directory's run_start (who played, the world file, the backend, the
judge, the contracts of its conditions) and its metrics.json (rebuilt in memory from events.jsonl when missing)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.numbers import tidy

FORMAL_JUDGE = "formal only"


@dataclass(frozen=True)
class RunSource:
    path: Path
    world: str
    population: dict[str, str]  # player slot -> who filled it ("scripted", "llm:MODEL", "scripted:greedy", ...)
    metrics: dict[str, Any]
    backend: str = "sim"
    world_digest: str | None = None  # of the world file's text as run (run_start's world_source)
    conditions: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name -> (contract mode, text)
    setup: dict[str, str] = field(default_factory=dict)  # what else shapes outcomes, not (yet) a grouping key
    identity: str = ""  # of the run's run_start line: a copied run directory is the same run
    institution: str | None = None  # "meetings (RULE)" when a scenario's [institution] let players amend the contract

    @property
    def population_label(self) -> str:
        return population_label(self.population)

    @property
    def deterministic(self) -> bool:
        """Scripted players on the simulator with the formal judge only: a seed has one outcome, so running it
        again (in this run or another) adds no sample."""
        return (self.backend == "sim" and all(k.startswith("scripted") for k in self.population.values())
                and self.setup.get("judge") == FORMAL_JUDGE)


def population_label(population: Mapping[str, str]) -> str:
    kinds = set(population.values())
    if len(kinds) == 1:
        return next(iter(kinds))
    return ", ".join(f"{p}={k}" for p, k in sorted(population.items()))


def find_runs(paths: Iterable[Path]) -> list[Path]:
    """Run directories: each path that holds events.jsonl, else every run directory below it (a sweep)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if not path.is_dir():
            raise UserError(f"{path}: not a directory (expected a run directory or a sweep directory)")
        if (path / "events.jsonl").is_file():
            found.append(path)
            continue
        below = sorted(p.parent for p in path.rglob("events.jsonl"))
        if not below:
            raise UserError(f"{path}: no run directories in it (no events.jsonl found)")
        found.extend(below)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique


def _run_start(events: Path) -> tuple[dict[str, Any], str]:
    """The run_start event's data, and a digest of its line (its wall time and settings name the run)."""
    with events.open(encoding="utf-8") as f:
        first = f.readline()
    try:
        event = json.loads(first)
    except ValueError as exc:
        raise UserError(f"{events}:1: not a JSON event ({exc})") from None
    if event.get("kind") != "run_start":
        raise UserError(f"{events}:1: expected the run_start event, found {event.get('kind')!r}")
    return event["data"], _digest(first.strip())


def population_of(start: Mapping[str, Any]) -> dict[str, str]:
    """Who filled each slot: recorded by scenario runs; derived from `agents` for plain runs."""
    if start.get("population"):
        return {p: str(who) for p, who in start["population"].items()}
    agents = start.get("agents", "scripted")
    if agents == "llm":
        model = (start.get("llm") or {}).get("model") or "?"
        agents = f"llm:{model}"
    return {p: agents for p in start.get("players", [])}


def load_run(path: Path) -> RunSource:
    """The run's metrics.json; rebuilt in memory from events.jsonl when it is missing (nothing is written)."""
    start, identity = _run_start(path / "events.jsonl")
    if start.get("kind") == "org":
        raise UserError(f"{path}: an organization run (tasks, not contracts): compare reads contract runs' welfare "
                        "and Gini, which an organization run does not have; its own report.html compares its "
                        "structures (success rate, time to completion, messages), so put the structures to compare "
                        "into one organization scenario")
    metrics_path = path / "metrics.json"
    if metrics_path.is_file():
        try:
            metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise UserError(f"{metrics_path}: not valid JSON ({exc}); rebuild it with `blockpact report {path}`") from None
    else:
        from blockpact.experiments.outputs.metrics_file import run_metrics
        from blockpact.experiments.log.records import read_run

        metrics = tidy(run_metrics(read_run(path / "events.jsonl")))  # the numbers metrics.json would hold
    texts = {str(c["name"]): (str(c.get("contract_mode")), c.get("contract_text") or None)
             for c in start.get("conditions", [])}
    return RunSource(path, str(metrics.get("world", start.get("world"))), population_of(start), metrics,
                     _backend(start, metrics), _world_digest(start.get("world_source")),
                     texts, _setup(start), identity, institution_label(start))


def institution_label(start: Mapping[str, Any]) -> str | None:
    """What tells a run with meetings between episodes from one without: its own treatment in `compare`."""
    rules = (start.get("scenario") or {}).get("institution")
    if not rules:
        return None
    leader = "the elected leader" if rules.get("elect") else f"leader {rules.get('leader')}"
    details = [str(rules.get("rule"))] + ([f"{leader} proposes"] if rules.get("propose") == "leader"
                                          else []) + ([f"veto {', '.join(rules['veto'])}"] if rules.get("veto") else [])
    details += [f"elected by {rules['elect']}, terms of {rules.get('term', 1)}"] if rules.get("elect") else []
    return f"meetings ({'; '.join(details)})"


def _backend(start: Mapping[str, Any], metrics: Mapping[str, Any]) -> str:
    """The backend, and for live runs in lockstep (their races ordered as on the simulator) that too: another treatment."""
    backend = str(start.get("backend") or metrics.get("backend") or "sim")
    return f"{backend}, lockstep" if (start.get("live") or {}).get("lockstep") else backend


def _setup(start: Mapping[str, Any]) -> dict[str, str]:
    """Episodes per seed, the judge and the LLM's sampling (each role's model, temperature, parameters)."""
    llm = start.get("llm") or {}
    roles = {name: {k: role.get(k) for k in ("model", "temperature", "params")}
             for name, role in sorted((llm.get("roles") or {}).items())}
    return {"episodes per seed": json.dumps(start.get("episodes")), "judge": judge_label(start),
            "LLM sampling": json.dumps(roles, sort_keys=True)}


def judge_label(start: Mapping[str, Any]) -> str:
    """The judge that settled the run's contracts, however the log spells it: a scenario run records
    `{llm, apply_llm}`; a plain run records null, and then its agents say (scripted: the formal judge; LLM: the
    LLM judge on the run's model, its transfers applied). Without an LLM judge `apply_llm` changes nothing."""
    judge = start.get("judge")
    if isinstance(judge, Mapping):
        model, apply = judge.get("llm"), bool(judge.get("apply_llm", True))
    elif start.get("agents") == "llm":
        model, apply = (start.get("llm") or {}).get("model") or "?", True
    else:
        model, apply = None, True
    if not model:
        return FORMAL_JUDGE
    return f"LLM judge {model}" + ("" if apply else " (transfers not applied: formal judge settles)")


def _world_digest(source: Any) -> str | None:
    """Of the world as parsed (a comment or blank line changed is the same world); None for a log without it."""
    if not isinstance(source, str):
        return None
    try:
        canonical = json.dumps(tomllib.loads(source), sort_keys=True, default=str)
    except tomllib.TOMLDecodeError:
        canonical = source
    return _digest(canonical)


def _digest(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:6]
