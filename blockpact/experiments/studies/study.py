"""Study files: the scenarios × models × seeds a sweep runs, each combination one independent unit.

```toml
[study]
name = "contracts"                         # default: the file's stem
scenarios = ["dv.toml", "cleanup.toml"]    # scenario files, relative to this file
models = ["gpt-4o-mini", "qwen2.5-7b"]     # optional: fills `llm:{model}` slots; others run once
seeds = 8                                  # optional: a count or a list, instead of each scenario's

[llm]
max_concurrent_per_endpoint = 4            # LLM requests in flight per endpoint, across all workers
```

A unit carries everything it needs (the scenario, the world file's text, the LLM settings without
the key), so it runs the same in a local worker process or on another machine of a Ray cluster.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.config import read_toml
from blockpact.errors import UserError
from blockpact.experiments.plan.scenario import Scenario, ScenarioError, load_scenario
from blockpact.toml_lines import LineIndex

DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class Unit:
    """One scenario with one model on one seed: a run directory of its own."""

    scenario: Scenario  # model filled in, seeds = [seed], world = the world's name
    model: str | None
    seed: int
    world_name: str
    world_text: str  # the world file, carried along to wherever the unit runs
    llm: dict[str, Any] | None  # llm_record.settings_record (no key): the worker reads the key from its environment
    plots: bool = False  # per-unit SVG plots (the comparison has its own; `blockpact report DIR` adds them later)
    cost: float = 0.0  # a rough guess of its work (episode seconds × players × conditions × episodes): the
    #                    pool starts the longest units first, so no long one is left running alone at the end

    @property
    def id(self) -> str:
        parts = [self.scenario.name] + ([self.model] if self.model else []) + [f"seed-{self.seed}"]
        return "/".join(parts)

    @property
    def dir(self) -> Path:
        """Where the unit's run directory goes, under the sweep directory."""
        parts = [_safe(self.scenario.name)] + ([_safe(self.model)] if self.model else []) + [f"seed-{self.seed}"]
        return Path("units", *parts)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


@dataclass(frozen=True)
class Study:
    name: str
    path: Path
    text: str
    scenarios: list[Scenario]
    models: list[str]
    max_concurrent_per_endpoint: int

    def units(self, llm_for: Any) -> list[Unit]:
        """Every unit, in scenario × model × seed order. `llm_for(scenario)` gives its LLM settings record."""
        from blockpact.worlds.world_files import load_world, resolve_path

        out: list[Unit] = []
        for scenario in self.scenarios:
            world_path = resolve_path(scenario.world)
            world_text = world_path.read_text(encoding="utf-8")
            spec = load_world(world_path)  # a broken world file is found here, before any unit runs
            for model in (self.models if scenario.needs_model else [None]):
                filled = scenario.with_model(model)
                record = llm_for(filled)
                cost = spec.episode_seconds * len(spec.players) * len(filled.conditions) * filled.episodes
                for seed in filled.seeds:
                    one = dataclasses.replace(filled, seeds=[seed])
                    out.append(Unit(one, model, seed, world_path.stem, world_text, record, cost=cost))
        ids = [u.id for u in out]
        if len(set(ids)) != len(ids):
            raise UserError(f"{self.path}: two scenarios share a name; give each its own [scenario] name")
        return out


def load_study(path: str | Path) -> Study:
    path = Path(path)
    data = read_toml(path, ScenarioError)
    text = path.read_text(encoding="utf-8")
    index = LineIndex(text)

    def fail(key: str, message: str) -> ScenarioError:
        line = index.line_of(key)
        return ScenarioError(f"{path}{f':{line}' if line else ''}: {key}: {message}")

    if set(data) - {"study", "llm"}:
        raise fail(sorted(set(data) - {"study", "llm"})[0], "unknown table (expected study, llm)")
    head = data.get("study")
    if not isinstance(head, dict):
        raise fail("study", "missing [study] table")
    if set(head) - {"name", "scenarios", "models", "seeds"}:
        raise fail(f"study.{sorted(set(head) - {'name', 'scenarios', 'models', 'seeds'})[0]}",
                   "unknown key (expected name, scenarios, models, seeds)")
    files = head.get("scenarios")
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        raise fail("study.scenarios", "expected a non-empty list of scenario file paths")
    scenarios = []
    for i, name in enumerate(files):
        scenario_path = (path.parent / name).resolve()
        if not scenario_path.is_file():
            raise fail(f"study.scenarios[{i}]", f"no scenario file {scenario_path}")
        scenarios.append(load_scenario(scenario_path))
    models = head.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) and m for m in models):
        raise fail("study.models", "expected a list of model names")
    if "seeds" in head:
        seeds = head["seeds"]
        if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
            seeds = list(range(seeds))
        if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
            raise fail("study.seeds", "expected a whole number >= 1 or a list of seeds")
        scenarios = [dataclasses.replace(s, seeds=list(seeds)) for s in scenarios]
    for i, s in enumerate(scenarios):
        if "human" in s.slots.values():
            raise fail(f"study.scenarios[{i}]", f"scenario {s.name!r} has a `human` slot: a sweep's units run in worker "
                       "processes with nobody to wait for; play it with `blockpact run` instead")
        if s.needs_model and not models:
            raise fail("study.models", f"scenario {s.name!r} has `llm:{{model}}` slots: list the models to fill in")
    llm = data.get("llm", {})
    concurrency = llm.get("max_concurrent_per_endpoint", DEFAULT_CONCURRENCY) if isinstance(llm, dict) else None
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise fail("llm.max_concurrent_per_endpoint", "expected a whole number >= 1")
    return Study(str(head.get("name") or path.stem), path, text, scenarios, list(models), concurrency)
