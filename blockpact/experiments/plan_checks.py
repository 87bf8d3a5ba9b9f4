"""What a run's inputs must satisfy before a RunPlan is made from them (from flags or a scenario file):
the conditions a `--contract` value names, and a world in which rewards can say something."""

from __future__ import annotations

import sys

from blockpact.errors import UserError
from blockpact.experiments.contract_arg import CONTRACT_MODES, EXPECTED, contract_text
from blockpact.experiments.records import ConditionSpec
from blockpact.experiments.settings import run_settings
from blockpact.worlds.spec.schema import WorldSpec


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
