"""A world as the loader understands it: every name checked, every placement resolved to a cell."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from blockpact.worlds.spec.institution import InstitutionSpec

Vec = tuple[int, int, int]

COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
    "!=": operator.ne,
}


@dataclass(frozen=True)
class Region:
    name: str
    lo: Vec  # inclusive corners, lo <= hi on every axis
    hi: Vec
    words: tuple[str, ...] = ()  # other names contracts may call it by ("north field"), besides its own

    def contains(self, p: Vec) -> bool:
        return all(self.lo[i] <= p[i] <= self.hi[i] for i in range(3))

    def cells(self) -> Iterator[Vec]:
        for x in range(self.lo[0], self.hi[0] + 1):
            for y in range(self.lo[1], self.hi[1] + 1):
                for z in range(self.lo[2], self.hi[2] + 1):
                    yield (x, y, z)

    @property
    def volume(self) -> int:
        return (self.hi[0] - self.lo[0] + 1) * (self.hi[1] - self.lo[1] + 1) * (self.hi[2] - self.lo[2] + 1)


@dataclass(frozen=True)
class Condition:
    """`<block> in <region> <op> <count>`, e.g. `slime_block in river <= 7`."""

    block: str
    region: str
    op: str
    count: int

    def holds(self, actual: int) -> bool:
        return COMPARISONS[self.op](actual, self.count)

    def __str__(self) -> str:
        return f"{self.block} in {self.region} {self.op} {self.count}"


@dataclass(frozen=True)
class Drop:
    """What digging a block yields: `item` in one of `counts`, drawn with `weights`."""

    item: str
    counts: tuple[int, ...]
    weights: tuple[float, ...]

    @property
    def expected(self) -> float:
        return sum(c * w for c, w in zip(self.counts, self.weights))

    @property
    def cdf(self) -> tuple[float, ...]:
        """Cumulative weights, summed in order, the last set to 1 (so rounding never leaves a draw past it)."""
        return (*accumulate(self.weights[:-1]), 1.0)

    def count_at(self, u: float) -> int:
        """The count a uniform `u` in [0, 1) picks: the first whose cumulative weight exceeds it. The step
        kernel walks `cdf` the same way, and so does the server plugin (`bridge/js/server/plugin/drops.js`)."""
        return next(c for c, edge in zip(self.counts, self.cdf) if u < edge)


@dataclass(frozen=True)
class ProbabilityFrom:
    """Scales a rule's probability by how much of `region` holds `block` (Melting Pot's apple regrowth).

    The fraction is the count of `block` over the region's volume: at or past `full_at` the rule keeps
    its whole probability, at or past `zero_at` none, and linearly in between.
    """

    block: str
    region: str
    full_at: float
    zero_at: float

    def factor(self, fraction: Any) -> Any:
        """Works on a float or on a numpy array of fractions (the step-level API's batch)."""
        return np.clip((self.zero_at - fraction) / (self.zero_at - self.full_at), 0.0, 1.0)


@dataclass(frozen=True)
class RegrowRule:
    """Each block removed from its original cell in `region` comes back with `probability` per second."""

    block: str
    region: str
    probability: float
    when: tuple[Condition, ...] = ()
    kind: str = "regrow"
    probability_from: ProbabilityFrom | None = None


@dataclass(frozen=True)
class SpawnRule:
    """New `block`s appear on cells of `region` holding one of `on`, with `probability` per second."""

    block: str
    region: str
    probability: float
    on: tuple[str, ...]
    cap: int | None
    per: str  # "region": at most one new block a second; "cell": every free cell draws on its own
    when: tuple[Condition, ...] = ()
    kind: str = "spawn"
    probability_from: ProbabilityFrom | None = None


@dataclass(frozen=True)
class GrowRule:
    """Every `every` seconds the count of `block` in `region` is multiplied by `factor`, up to `cap`."""

    block: str
    region: str
    every: float
    factor: float
    cap: int | None
    on: tuple[str, ...]
    when: tuple[Condition, ...] = ()
    kind: str = "grow"


Rule = RegrowRule | SpawnRule | GrowRule


@dataclass(frozen=True)
class ChestSpec:
    name: str
    position: Vec
    items: dict[str, int]
    owner: str | None = None  # whose the contents are at the end: a player, "shared" (all equally), or nobody

    def share(self, player: str, players: int) -> float:
        """The part of this chest's contents that counts for `player` at the end of an episode."""
        if self.owner == "shared":
            return 1.0 / players
        return 1.0 if self.owner == player else 0.0


@dataclass(frozen=True)
class PlayerSpec:
    name: str
    spawn: Vec
    inventory: dict[str, int]
    values: dict[str, float]  # emeralds per item; emeralds themselves are always worth 1
    briefing: str = ""  # what only this player reads (role, goals, private knowledge)


@dataclass(frozen=True)
class GroupSpec:
    """Players who pool `share` of what each earns while the group stands ([start, end) in seconds;
    end None: the episode's end) and split it equally (AdaSociety's reward-sharing groups). With
    `shared_observation`, each member's observation also shows what the other members see and hold."""

    name: str
    members: tuple[str, ...]
    share: float = 1.0
    start: float = 0.0
    end: float | None = None
    shared_observation: bool = False

    @property
    def text(self) -> str:
        """"pair: Ann, Ben pool 50% from 3 s to 5.5 s": who shares what and when (world show, world render)."""
        until = "the end" if self.end is None else f"{self.end:g} s"
        return (f"{self.name}: {', '.join(self.members)} pool {self.share:.0%} from {self.start:g} s to {until}"
                + (", shared observation" if self.shared_observation else ""))

    def stands_at(self, t: float) -> bool:
        return self.start <= t and (self.end is None or t < self.end)


@dataclass
class WorldSpec:
    name: str
    title: str
    description: str
    source: Path | None
    mc_version: str
    origin: Vec
    size: Vec
    blocks: dict[Vec, str]  # every non-air cell
    regions: dict[str, Region]
    chests: dict[Vec, ChestSpec]
    players: dict[str, PlayerSpec]
    harvest: dict[str, frozenset[str]]  # block -> tools that harvest it (overrides minecraft-data)
    drops: dict[str, Drop]  # block -> drop (overrides minecraft-data)
    rules: list[Rule]
    episode_seconds: float
    length_known: bool
    extra: dict[str, object] = field(default_factory=dict)
    groups: tuple[GroupSpec, ...] = ()
    institution: InstitutionSpec | None = None  # [institution]: meetings between episodes (None: a fixed contract)

    def in_bounds(self, p: Vec) -> bool:
        return all(self.origin[i] <= p[i] < self.origin[i] + self.size[i] for i in range(3))

    def description_for(self, player: str) -> str:
        """The shared description, and the player's private briefing after it when it has one."""
        briefing = self.players[player].briefing.strip() if player in self.players else ""
        shared = self.description.strip()
        return f"{shared}\n\nYour private briefing (only you read this): {briefing}" if briefing else shared

    def value(self, player: str, item: str) -> float:
        if item == "emerald":
            return 1.0
        return self.players[player].values.get(item, 0.0)
