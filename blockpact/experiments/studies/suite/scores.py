"""What one suite unit (one world, one population, one seed) measured, read from its run directory through the
functions `compare` reads runs with (metrics.json) and the typed event records (the formal judge's clause scores,
the negotiation). A unit that did not complete is reported with its status and no numbers."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.experiments.studies.compare_sources import load_run
from blockpact.experiments.log.records import SeedRecord, read_run
from blockpact.experiments.studies.sweep import UNIT_ERROR
from blockpact.experiments.studies.suite.causes import add, agreement_causes, seed_causes
from blockpact.experiments.studies.suite.manifest import SuiteWorld


@dataclass(frozen=True)
class Agreement:
    """The contract side of a unit: what was proposed and adopted, how much of it the formal judge reads, and which
    clauses were kept or broken, by whom."""

    proposals: int  # negotiation turns that proposed a contract
    adopted: bool  # a contract bound the players
    adopted_round: int | None  # the round of the accept that adopted it
    clauses: int  # clauses of the adopted contract
    formal_clauses: int  # of those, read by the formal judge (the rest is free text)
    kept: int  # clauses the formal judge found kept (a breakable clause nobody broke)
    broken: int  # clauses someone broke
    broken_by: dict[str, int] = field(default_factory=dict)  # player -> clauses it broke

    @property
    def formal_share(self) -> float | None:
        return self.formal_clauses / self.clauses if self.clauses else None

    @property
    def breach_rate(self) -> float | None:
        """Broken among the clauses that could be broken (kept + broken)."""
        judged = self.kept + self.broken
        return self.broken / judged if judged else None


@dataclass(frozen=True)
class UnitScore:
    world: str
    population: str
    seed: int
    status: str  # "complete", or why there are no numbers ("failed: endpoint", "missing", "interrupted")
    welfare: float | None = None
    score: float | None = None
    gini: float | None = None
    survival: float | None = None  # 1 when no renewable resource collapsed, 0 when one did; None without dynamics
    agreement: Agreement | None = None
    tokens: int = 0
    cost_usd: float = 0.0
    llm_calls: int = 0
    agent_errors: dict[str, int] = field(default_factory=dict)  # what the agents got wrong, per kind
    causes: dict[str, int] = field(default_factory=dict)  # what the unit failed at, per kind (suite.causes)
    promises: dict[str, int] | None = None  # made, kept, broken: what the players said they would do (promises.py)


def unit_score(run_dir: Path, world: SuiteWorld, population: str, seed: int) -> UnitScore:
    """The unit's measures; its status says why there are none (not run, cut short, a failed seed)."""
    if not (run_dir / "events.jsonl").is_file():
        return UnitScore(world.name, population, seed, "missing")
    if (run_dir / UNIT_ERROR).is_file():  # its worker failed, whatever metrics.json it left
        first = (run_dir / UNIT_ERROR).read_text(encoding="utf-8").splitlines()[0][:120]
        return UnitScore(world.name, population, seed, f"failed: {first}")
    if (run_dir / "events.jsonl").stat().st_size == 0:  # stopped (SIGINT, SIGTERM) before its first event
        return UnitScore(world.name, population, seed, "interrupted")
    source = load_run(run_dir)
    metrics = source.metrics
    [(condition, measured)] = metrics["conditions"].items()  # a suite unit plays one condition
    llm = (metrics.get("llm") or {}).get("total") or {}
    cost = {"tokens": int(llm.get("prompt_tokens", 0)) + int(llm.get("completion_tokens", 0)),
            "cost_usd": float(llm.get("cost_usd") or 0.0), "llm_calls": int(llm.get("calls", 0))}
    errors: dict[str, int] = {}
    for kinds in (measured.get("agent_errors") or {}).get("by_player", {}).values():
        for kind, n in kinds.items():
            errors[kind] = errors.get(kind, 0) + n
    seeds = read_run(run_dir / "events.jsonl").of_condition(condition)
    causes = add(seed_causes(seeds), errors)
    if not measured["runs"]:
        failures = measured.get("failures") or {}
        status = f"failed: {', '.join(sorted(failures))}" if failures else "interrupted"
        return UnitScore(world.name, population, seed, status, agent_errors=errors, causes=causes, **cost)
    [run] = measured["runs"]
    [record] = [s for s in seeds if s.completed]
    agreed = agreement(record)
    add(causes, agreement_causes(record, agreed.proposals, agreed.clauses, agreed.formal_clauses, agreed.broken))
    return UnitScore(world.name, population, seed, "complete", welfare=run["welfare"], score=world.score(run["welfare"]),
                     gini=run["gini"], survival=_survival(metrics, condition), agreement=agreed,
                     agent_errors=errors, causes=causes, promises=_promises(run), **cost)


def _promises(run: dict[str, Any]) -> dict[str, int] | None:
    tally = run.get("promises")
    return {k: int(tally[k]) for k in ("made", "kept", "broken")} if tally else None


def _survival(metrics: dict[str, Any], condition: str) -> float | None:
    commons = metrics.get("commons")
    if not commons or "conditions" not in commons:
        return None
    return commons["conditions"][condition].get("survival_rate")


def agreement(seed: SeedRecord) -> Agreement:
    """From the seed's negotiation and the formal judge's scores of the last episode (the one measured)."""
    proposals = sum(1 for t in seed.turns if t.proposal)
    adopted = bool(seed.contract) and seed.contract_source in ("negotiated", "given")
    scores: list[dict[str, Any]] = []
    final = seed.final
    if adopted and final is not None:
        formal = [j for j in final.judgments if j.source == "formal"]
        scores = formal[0].clauses if formal else []
    broken_by: dict[str, int] = {}
    for s in scores:
        for player in s.get("broken_by") or []:
            broken_by[player] = broken_by.get(player, 0) + 1
    return Agreement(
        proposals=proposals, adopted=adopted, adopted_round=seed.accepted_round if adopted else None,
        clauses=len(scores), formal_clauses=sum(1 for s in scores if s.get("formal")),
        kept=sum(1 for s in scores if s.get("status") == "kept"),
        broken=sum(1 for s in scores if s.get("status") == "broken"), broken_by=broken_by)
