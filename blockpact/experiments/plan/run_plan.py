"""What a run of contract experiments is: its conditions, seeds and episodes on a world, and who plays it where;
each (condition, seed) unit is played as one piece. The flags of `blockpact run`, a scenario file, a sweep's unit
and a resume each end in a `RunPlan`, which the run records in its run_start event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class ConditionSpec:
    name: str
    contract_mode: str  # "none" | "negotiate" | "given"
    contract_text: str | None = None


Unit = tuple[ConditionSpec, int]  # a (condition, seed): negotiated, played and ended as one piece


@dataclass(frozen=True)
class RunPlan:
    spec: WorldSpec
    backend: str
    agents: str
    conditions: list[ConditionSpec]
    seeds: list[int]
    episodes: int
    # Recorded in run_start so `blockpact resume` rebuilds the same participants: the LLM settings
    # without the key (llm_record.settings_record), the live server options (None: not used).
    llm: Mapping[str, Any] | None = None
    live: Mapping[str, Any] | None = None
    # Scenario runs (experiments/plan/scenario.py): who fills each player slot ({player: "llm:MODEL" |
    # "scripted" | "scripted:greedy" | "scripted:cooperative"}), the judges, and the scenario file.
    population: Mapping[str, str] | None = None
    judge: Mapping[str, Any] | None = None
    scenario: Mapping[str, Any] | None = None
    # The world's warnings (obtainable.world_warnings) when the checks before the run said them on stderr
    # (plan_checks); None: worked out when the run starts. Either way they are computed once, for run_start.
    world_warnings: tuple[str, ...] | None = None

    @property
    def units(self) -> list[Unit]:
        """Every (condition, seed), in the order a run plays them."""
        return [(condition, seed) for condition in self.conditions for seed in self.seeds]

    @property
    def total_episodes(self) -> int:
        return len(self.units) * self.episodes
