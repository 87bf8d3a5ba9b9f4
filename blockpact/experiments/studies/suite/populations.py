"""Who plays the suite: a population fills every slot of a world with one kind of player and plays one condition.

- `greedy`: scripted greedy players, no contract (the score's 0);
- `cooperative`: scripted negotiators, who propose the contract search's best, accept it and keep it;
- `llm` or `llm:MODEL`: LLM negotiators and action agents on the endpoint of the usual `--llm-*` options.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from blockpact.experiments.plan.run_plan import ConditionSpec
from blockpact.experiments.plan.scenario import Scenario
from blockpact.experiments.studies.suite.manifest import SuiteError

DEFAULT = ("greedy", "cooperative")


@dataclass(frozen=True)
class Population:
    label: str  # names the population in the leaderboard and its units' folders
    slot: str  # the scenario slot kind every player gets
    condition: ConditionSpec

    def scenario(self, scenario: Scenario, players: list[str], seed: int) -> Scenario:
        """The world's scenario played by this population on one seed, under this population's condition: every
        slot named (an `llm:MODEL` slot is where the run's LLM settings find their model), the formal judge only."""
        return dataclasses.replace(scenario, slots={p: self.slot for p in players}, default_slot=self.slot,
                                   conditions=[self.condition], seeds=[seed], judge_model=None)


def population(name: str) -> Population:
    """A population by its name on the command line."""
    if name == "greedy":
        return Population("greedy", "scripted:greedy", ConditionSpec("none", "none"))
    if name == "cooperative":
        return Population("cooperative", "scripted", ConditionSpec("negotiate", "negotiate"))
    if name == "llm" or (name.startswith("llm:") and len(name) > 4):
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        return Population(label, name, ConditionSpec("negotiate", "negotiate"))
    raise SuiteError(f"unknown population {name!r} (expected greedy, cooperative, llm or llm:MODEL)")


def populations(names: list[str]) -> list[Population]:
    out = [population(n.strip()) for n in names if n.strip()]
    labels = [p.label for p in out]
    if not out or len(set(labels)) != len(labels):
        raise SuiteError(f"expected one or more different populations, got {', '.join(names) or 'none'}")
    return out
