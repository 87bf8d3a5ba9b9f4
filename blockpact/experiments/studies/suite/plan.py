"""A suite run as a sweep: each world × population × seed is one unit with its own run directory
(`units/<world>/<population>/seed-<k>/`), so the sweep's pool, Ray backend, index.json and resume
(finished units are skipped when the same command runs again) serve the suite unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.experiments.plan.scenario import Scenario
from blockpact.experiments.studies.study import DEFAULT_CONCURRENCY, Study, Unit
from blockpact.experiments.studies.suite.manifest import Suite, SuiteWorld
from blockpact.experiments.studies.suite.populations import Population
from blockpact.worlds.world_files import load_world, resolve_path

PLAN_FILE = "suite.json"  # in the suite directory: every `suite run` into it, with the worlds, populations, seeds asked


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


def record_asked(root: Path, suite: str, worlds: list[str], populations: list[str], seeds: list[int]) -> None:
    """Add what a `suite run` asked for to the directory's plan (once: the same command again adds nothing)."""
    asked = {"worlds": worlds, "populations": populations, "seeds": seeds}
    runs = read_asked(root) if (root / PLAN_FILE).is_file() else []
    if asked not in runs:
        runs.append(asked)
    (root / PLAN_FILE).write_text(json.dumps({"suite": suite, "runs": runs}, indent=2) + "\n", encoding="utf-8")


def read_asked(root: Path) -> list[dict[str, list]]:
    path = root / PLAN_FILE
    if not path.is_file():
        raise UserError(f"{root}: not a suite directory (no {PLAN_FILE}; `blockpact suite run --out DIR` writes one)")
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a suite plan ({exc}); remove it, or give another --out") from None
    return list(runs)


def planned(root: Path) -> dict[tuple[str, str], list[int]]:
    """(population, world) -> the seeds asked for it, over every `suite run` into the directory, in the order asked."""
    out: dict[tuple[str, str], list[int]] = {}
    for run in read_asked(root):
        for pop in run["populations"]:
            for world in run["worlds"]:
                seeds = out.setdefault((pop, world), [])
                seeds.extend(s for s in run["seeds"] if s not in seeds)
    return out
