"""`blockpact run SCENARIO.toml`: a scenario file turned into the RunPlan every run plays, with the
command-line options the user typed overriding the file's values."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from blockpact.errors import UserError
from blockpact.experiments.plan.explicit_flags import explicit
from blockpact.experiments.plan.run_plan import RunPlan
from blockpact.experiments.plan.scenario import Scenario, ScenarioError, load_scenario
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.settings import LLMSettings


def apply_overrides(scenario: Scenario, args: argparse.Namespace) -> Scenario:
    """The scenario with every option the user typed (`run`'s flags) in place of the file's value."""
    from blockpact.experiments.plan.plan_checks import conditions_for

    given = explicit(args)
    changes: dict[str, object] = {}
    if "backend" in given:
        changes["backend"] = args.backend
    if "seeds" in given:
        changes["seeds"] = list(range(args.seeds))
    if "episodes" in given:
        changes["episodes"] = args.episodes
    if "contract" in given:
        changes["conditions"] = conditions_for(args.contract)
    if "agents" in given:  # every slot the same kind again
        changes["slots"] = {}
        changes["default_slot"] = args.agents
    return dataclasses.replace(scenario, **changes)  # type: ignore[arg-type]


def llm_settings_for(scenario: Scenario, args: argparse.Namespace | None = None) -> LLMSettings | None:
    """The run's LLM settings when a slot or the judge is an LLM: the usual sources, then the scenario's
    [llm] table, then the --llm-* flags. A scenario whose LLM slots all name a model needs no default model."""
    if not scenario.uses_llm:
        return None
    from blockpact.llm.settings import load_llm_settings
    from blockpact.experiments.plan.plan_checks import require_llm

    flag = (lambda name: getattr(args, name, None)) if args is not None else (lambda name: None)
    named = [k.partition(":")[2] for k in scenario.slots.values() if k.startswith("llm:")]
    kinds = [*scenario.population_kinds]
    model = flag("llm_model") or (None if "llm" in kinds else
                                  (named[0] if named else scenario.judge_model))
    settings = load_llm_settings(
        flag("llm_config") or scenario.llm.get("config"),
        base_url=flag("llm_base_url") or scenario.llm.get("base_url"),
        model=model, api_key_env=flag("llm_api_key_env"), cache_dir=flag("llm_cache_dir"),
        no_cache=bool(flag("no_llm_cache")),
    )
    if not settings.model and model:
        settings = dataclasses.replace(settings, model=model)
    require_llm(settings)
    return settings


def scenario_plan(scenario: Scenario, spec: WorldSpec, llm: LLMSettings | None) -> RunPlan:
    from blockpact.experiments.plan.institution import check_players, check_population
    from blockpact.experiments.plan.llm_record import settings_record
    from blockpact.experiments.plan.scenario_groups import groups_record, with_groups

    fail = lambda key, message: ScenarioError(f"{scenario.where(key)}: {message}")  # noqa: E731
    spec = with_groups(spec, scenario.groups, fail)
    population = scenario.population(sorted(spec.players))
    check_players(scenario.institution, sorted(spec.players), spec.name, fail)
    institution = scenario.institution or spec.institution  # the scenario's replaces the world's
    check_population(institution, population, fail if scenario.institution else
                     lambda key, message: ScenarioError(f"{spec.source}: {key} (the world's): {message}"))
    humans = sorted(p for p, kind in population.items() if kind == "human")
    if humans and scenario.backend != "minecraft":
        raise ScenarioError(f"{scenario.where('players')}: {', '.join(humans)} is a `human` slot, which needs a live "
                            "server: set backend = \"minecraft\" in [scenario] (or --backend minecraft); on the "
                            "simulator nobody can join to play it")
    if scenario.needs_model:
        raise ScenarioError(f"{scenario.where('players')}: `{{model}}` in a slot is filled by `blockpact sweep` "
                            "from a study's models; `blockpact run` needs a model name there")
    agents = "llm" if scenario.uses_llm else "scripted"
    return RunPlan(spec, scenario.backend, agents, list(scenario.conditions), list(scenario.seeds), scenario.episodes,
                   settings_record(llm) if llm is not None else None, None, population,
                   {"llm": scenario.judge_model, "apply_llm": scenario.apply_llm_judge},
                   {"name": scenario.name, "path": str(scenario.path) if scenario.path else None,
                    "text": scenario.text,
                    "groups": groups_record(spec.groups) if scenario.groups is not None else None,
                    "institution": institution.to_json() if institution is not None else None})


def scenario_run_plan(args: argparse.Namespace) -> tuple[RunPlan, str]:
    """`blockpact run SCENARIO.toml`: the same checks as a run from flags (a world with something of value,
    contracts read clause by clause, the LLM endpoint tried once, the budget); the plan the Runner plays,
    and the scenario's name (the default run directory's)."""
    from blockpact.experiments.plan.plan_checks import require_something_of_value, budget_for
    from blockpact.judge.contract_reading import free_text_warning
    from blockpact.experiments.plan.live_options import LiveOptions, check_backend, lockstep_choice
    from blockpact.experiments.plan.preflight import check_endpoint
    from blockpact.worlds.world_files import load_world

    if args.seeds < 1 or args.episodes < 1 or args.parallel < 1:
        raise UserError("--seeds, --episodes and --parallel must be at least 1")
    scenario = apply_overrides(load_scenario(Path(args.world)), args)
    check_backend(scenario.backend)
    if "human" in scenario.population_kinds:
        if args.server:
            raise ScenarioError(f"{scenario.where('players')}: a `human` slot plays on the embedded server only "
                                "(leave out --server): on an external server blockpact cannot read a person's inventory")
        if lockstep_choice(args.lockstep, scenario.backend):
            raise ScenarioError(f"{scenario.where('players')}: a person does not wait for the bots' turns: a scenario "
                                "with a `human` slot runs without lockstep (--no-lockstep)")
        if args.parallel > 1:
            raise ScenarioError(f"{scenario.where('players')}: a person plays one episode at a time: a scenario with a "
                                "`human` slot runs with --parallel 1")
    live_options = LiveOptions(args.server, args.mc_version, args.auth, args.viewer,
                               lockstep_choice(args.lockstep, scenario.backend))
    live_options.check(scenario.backend)
    spec = load_world(scenario.world, args.mc_version)
    warnings = require_something_of_value(spec)
    llm = llm_settings_for(scenario, args)
    budget = budget_for(args.llm_budget, llm)
    plan = dataclasses.replace(scenario_plan(scenario, spec, llm), world_warnings=warnings)
    for c in plan.conditions:
        if c.contract_text and (warning := free_text_warning(c.contract_text, sorted(spec.players), spec,
                                                             f"{scenario.name}: condition {c.name}")):
            print(f"blockpact: warning: {warning}", file=sys.stderr)
    if llm is not None:
        check_endpoint(llm)  # once, before any unit starts and before anything is written
        plan = dataclasses.replace(plan, llm={**(plan.llm or {}), "budget": budget.to_json() if budget else None})
    if scenario.backend == "minecraft":
        plan = dataclasses.replace(plan, live={"server": args.server, "auth": args.auth, "viewer": args.viewer,
                                               "lockstep": live_options.lockstep})
    return plan, scenario.name
