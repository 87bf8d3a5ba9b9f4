"""What a simulated body uses of its world (`SimWorld` is one), stated apart so that body.py does not import
world.py, which creates the bodies."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from blockpact.bridge.protocols import ProgramResult
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.spec.schema import WorldSpec


class WorldView(Protocol):
    spec: WorldSpec
    sim: Simulation
    compute_budget: float  # seconds of computing time a program may take
    max_calls_per_instant: int

    @property
    def now(self) -> float: ...

    async def run_programs(
        self,
        programs: Mapping[str, str],
        *,
        skills: Mapping[str, Sequence[str]] | None = None,
        until: float | None = None,
        budget: float | None = None,
        trusted: Collection[str] = (),
    ) -> dict[str, ProgramResult]: ...
