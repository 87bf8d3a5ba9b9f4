"""What a run's inputs must satisfy before a RunPlan is made from them (from flags or a scenario file):
the conditions a `--contract` value names, a world in which rewards can say something, an LLM endpoint for LLM
agents, and an `--llm-budget` that can work."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from blockpact.errors import UserError
from blockpact.experiments.plan.contract_arg import CONTRACT_MODES, EXPECTED, contract_text
from blockpact.experiments.plan.run_plan import ConditionSpec
from blockpact.experiments.plan.settings import run_settings
from blockpact.llm.budget import Budget
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.settings import LLMSettings


def conditions_for(contract: str | None) -> list[ConditionSpec]:
    """`--contract none|negotiate|TEXT|@FILE` as conditions; None: run.toml's default conditions."""
    if contract is None:
        return [ConditionSpec(mode, mode) for mode in run_settings().run.conditions]
    if contract in CONTRACT_MODES:
        return [ConditionSpec(contract, contract)]
    text = contract_text(contract)
    if not text.strip():
        raise UserError(f"--contract: empty contract text (expected {EXPECTED})")
    return [ConditionSpec("contract", "given", text)]


def require_something_of_value(spec: WorldSpec) -> tuple[str, ...]:
    """Welfare and Gini of a world where no player values any item are 0 whatever anyone does; a value on an item
    nobody can come to hold is warned about on stderr (it loads and runs, and would only ever count 0). Returns
    those warnings, for the RunPlan (`world_warnings`: run_start records them without working them out again)."""
    from blockpact.worlds.rules.obtainable import world_warnings  # the rules' data: only when a world is run

    warnings = tuple(world_warnings(spec))
    for warning in warnings:
        print(f"blockpact: warning: world {spec.name}: {warning}", file=sys.stderr)
    if any(v > 0 for player in spec.players.values() for v in player.values.values()):
        return warnings
    raise UserError(f"world {spec.name}: no player values any item, so every reward would be 0 and welfare and Gini "
                    "would say nothing. `blockpact run` is for dilemmas (worlds whose players value items, see "
                    "`blockpact world list`); for task worlds use `blockpact org run`")


def require_llm(settings: LLMSettings) -> None:
    """--agents llm needs an endpoint and a model; say how to configure them."""
    if (problem := settings.problem()) is not None:
        raise UserError(f"--agents llm needs an LLM endpoint: {problem}. Check the configuration with "
                        "`blockpact llm check`, or run the scripted agents (--agents scripted)")


def budget_for(text: str | None, llm: LLMSettings | None) -> Budget | None:
    """The parsed `--llm-budget`; refused when it cannot work (no LLM agents, dollars without prices)."""
    if text is None:
        return None
    if llm is None:
        raise UserError("--llm-budget applies to --agents llm only")
    budget = Budget.parse(text)
    if budget.unit == "usd":
        from blockpact.llm.accounting import price_of

        unpriced = sorted({r.model for r in llm.roles.values() if r.model and price_of(llm.prices, r.model) is None})
        if unpriced:
            raise UserError(f"--llm-budget {text}: no price for {', '.join(unpriced)} in the LLM config's [prices] "
                            "(every call would cost $0); give a budget in tokens, or add prices")
    return budget
