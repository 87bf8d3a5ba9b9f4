"""Welfare from what happened against welfare after the judge, per condition.

The settled welfare (the sum of rewards after the judge's transfers) can exceed what the players hold:
a gift is settled at the receiver's value with no item moving in the world (docs/measures.md). So a
condition is read twice against the run's no-contract condition: the gain in inventory welfare (what
the players' final inventories and owned chests are worth, before the judge) and the gain in settled
welfare. A condition whose settled welfare rises while its inventory welfare does not made its gain
on paper, by the settlement alone, and is flagged with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TOLERANCE = 1e-9  # emeralds: below this a gain is no gain


def number(value: float) -> str:
    return f"{round(value, 6):g}"


def _mean(condition: Mapping[str, Any], measure: str) -> float | None:
    return condition[measure]["mean"]


def baseline_name(conditions: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The run's first no-contract condition, the one every other is measured against."""
    return next((name for name, c in conditions.items() if c["contract_mode"] == "none"), None)


def gain_over_baseline(condition: Mapping[str, Any], baseline: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """Mean settled and inventory welfare over the baseline's, and whether the gain is the settlement's alone.

    `from_settlement` is the part of the settled gain the inventories do not show (gifts' value differences)."""
    means = [_mean(c, m) for c in (condition, baseline) for m in ("welfare", "inventory_welfare")]
    if any(v is None for v in means):
        return None
    settled, inventory, base_settled, base_inventory = means
    settled_gain, inventory_gain = settled - base_settled, inventory - base_inventory
    return {
        "baseline": name,
        "settled": settled_gain,
        "inventory": inventory_gain,
        "from_settlement": settled_gain - max(inventory_gain, 0.0) if settled_gain > TOLERANCE else 0.0,
        "settlement_alone": settled_gain > TOLERANCE and inventory_gain <= TOLERANCE,
    }


def add_gains(conditions: dict[str, dict[str, Any]]) -> list[str]:
    """Set each condition's `gain_over_no_contract` (None for the baseline itself, or without one) and return a
    warning per condition whose welfare gain comes from the settlement alone."""
    base = baseline_name(conditions)
    warnings = []
    for name, c in conditions.items():
        gain = None if base is None or name == base else gain_over_baseline(c, conditions[base], base)
        c["gain_over_no_contract"] = gain
        if gain and gain["settlement_alone"]:
            warnings.append(
                f"condition {name}: its welfare gain over {base} (+{number(gain['settled'])}) comes from the judge's "
                f"settlement alone: inventory welfare {number(c['inventory_welfare']['mean'])} against "
                f"{number(conditions[base]['inventory_welfare']['mean'])} without a contract (a gift is settled at "
                f"the receiver's value and moves no item; docs/measures.md)")
    return warnings
