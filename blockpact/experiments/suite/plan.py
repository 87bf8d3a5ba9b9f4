"""A suite run as a sweep: each world × population × seed is one unit with its own run directory
(`units/<world>/<population>/seed-<k>/`), so the sweep's pool, Ray backend, index.json and resume
(finished units are skipped when the same command runs again) serve the suite unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from blockpact.experiments.scenario import Scenario
from blockpact.experiments.study import DEFAULT_CONCURRENCY, Study, Unit
from blockpact.experiments.suite.manifest import Suite, SuiteWorld
from blockpact.experiments.suite.populations import Population
from blockpact.worlds.world_files import load_world, resolve_path

PLAN_FILE = "suite.json"  # in the suite directory: what was asked (worlds, populations, seeds)


def suite_units(worlds: list[SuiteWorld], pops: list[Population], seeds: list[int],
                llm_for: Callable[[Scenario], dict[str, Any] | None]) -> list[Unit]:
    """Every unit, world by world; `llm_for(scenario)` gives an LLM population's settings record (None: scripted)."""
    out: list[Unit] = []
    for world in worlds:
        path = resolve_path(world.scenario.world)
        text = path.read_text(encoding="utf-8")
        spec = load_world(path)  # a broken world file stops the run before any unit plays
        cost = spec.episode_seconds * len(spec.players) * world.scenario.episodes
        for pop in pops:
            for seed in seeds:
                scenario = pop.scenario(world.scenario, sorted(spec.players), seed)
                # the population stands where a sweep puts a model: units/<world>/<population>/seed-<k>
                out.append(Unit(scenario, pop.label, seed, path.stem, text, llm_for(scenario), cost=cost))
    return out


def as_study(suite: Suite, worlds: list[SuiteWorld]) -> Study:
    """The suite in the form the sweep's index records."""
    return Study(suite.name, suite.path, suite.text, [w.scenario for w in worlds], [], DEFAULT_CONCURRENCY)


def unit_dir(root: Path, world: str, population: str, seed: int) -> Path:
    return root / "units" / world / population / f"seed-{seed}"
