"""A judgment (per-player transfers and critiques), rewards after it, and where two judgments disagree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from blockpact.judge.observables import EpisodeObservables


@dataclass
class Judgment:
    """Emeralds each player receives (negative: pays) and what each did against the contract.

    Emerald transfers are zero-sum and uncapped (a gift of items moves what the items are worth to
    each side, which need not be): a player may end with a negative emerald balance, as in the
    contracting paper. An invalid judgment (the LLM judge gave no usable answer) transfers nothing.
    """

    transfers: dict[str, float]
    critiques: dict[str, str]
    source: str  # "formal" | "llm"
    reasoning: str = ""
    valid: bool = True
    error: str | None = None
    attempts: int = 0  # LLM replies asked for (0 for the formal judge)
    problems: list[str] = field(default_factory=list)  # why earlier LLM replies were rejected
    clauses: list[dict[str, Any]] = field(default_factory=list)  # the formal judge's score of each clause

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def no_transfers(players: Sequence[str]) -> dict[str, float]:
    return {p: 0.0 for p in players}


def rewards_after(obs: EpisodeObservables, judgment: Judgment) -> dict[str, float]:
    """Final reward per player: what the final inventory is worth to them plus the judged transfers."""
    return {p: obs.inventory_value(p) + judgment.transfers.get(p, 0.0) for p in obs.players}


@dataclass(frozen=True)
class Disagreement:
    player: str
    formal: float
    llm: float

    @property
    def difference(self) -> float:
        return self.llm - self.formal

    def __str__(self) -> str:
        return f"{self.player}: formal {self.formal:+g}, llm {self.llm:+g} (difference {self.difference:+g})"


def compare_judgments(formal: Judgment, llm: Judgment, tolerance: float = 1e-6) -> list[Disagreement]:
    """Players whose transfer differs between the two judgments by more than `tolerance`."""
    players = sorted(set(formal.transfers) | set(llm.transfers))
    pairs = ((p, formal.transfers.get(p, 0.0), llm.transfers.get(p, 0.0)) for p in players)
    return [Disagreement(p, a, b) for p, a, b in pairs if abs(a - b) > tolerance]
