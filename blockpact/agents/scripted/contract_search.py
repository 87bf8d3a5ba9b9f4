"""The scripted negotiator's contract: a search over candidate contracts, each played on the simulator.

First the world is played without a contract by the scripted greedy players: what each player gets there is its
outside option (what it has without agreeing to anything). Then every candidate of `candidates` is played once by
the scripted cooperative players and judged by the formal judge, and settled: equal shares when they leave every
player at least its outside option, else fixed transfers that give each player its outside option plus an equal
part of the surplus. A candidate that cannot leave everyone at its outside option (its welfare is below the sum of
the outside options) is not admissible. The search keeps the admissible contract of the highest welfare; the best
welfare of any candidate is its reference optimum. Settlement clauses change nobody's play, so each candidate is
played once, and its settled rewards are judged from the same events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blockpact.agents.scripted.candidates import Candidate, candidates
from blockpact.judge.clauses import Clause, FixedTransfer, Pool
from blockpact.judge.contract import Contract, parse_contract, render_contract
from blockpact.judge.formal import judge_formal
from blockpact.judge.metrics import gini
from blockpact.judge.observables import EpisodeObservables, observables_from_events
from blockpact.judge.verdict import rewards_after
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.bridge.sim import SimWorld

__all__ = ["OBJECTIVE", "Candidate", "Evaluation", "SearchResult", "best_contract", "candidates", "evaluate", "search"]

WorldFactory = Callable[[WorldSpec, int], "SimWorld"]  # (spec, seed) -> a simulated world

MAX_GINI = 0.1  # of equal shares: always 0; of transfers: as unequal as the outside options are
TOLERANCE = 0.01  # emeralds a settled reward may fall short of an outside option by rounding
OBJECTIVE = ("the highest social welfare on the simulator among contracts that bind every player and leave each "
             "at least its outside option (its reward playing without a contract)")


@dataclass(frozen=True)
class Evaluation:
    candidate: Candidate  # the whole contract: what players do, then the settlement
    welfare: float
    gini: float | None  # None when a reward is negative
    rewards: dict[str, float]
    admissible: bool = True  # nobody below its outside option
    settlement: str = "equal shares"
    produced: float = 0.0  # what the final inventories (and owned chests) are worth, before any settlement


@dataclass(frozen=True)
class SearchResult:
    best: Evaluation
    evaluations: tuple[Evaluation, ...]
    seed: int
    outside: dict[str, float]  # each player's reward without a contract (scripted greedy players)
    episodes: int = 0  # simulated episodes played, the no-contract one included

    @property
    def reference_welfare(self) -> float:
        return max(e.welfare for e in self.evaluations)

    @property
    def none_welfare(self) -> float:
        return sum(self.outside.values())

    def summary(self) -> str:
        """What was optimised and what was found, for the negotiator's message."""
        b = self.best
        n = len(self.evaluations)
        fair = f"Gini {b.gini:.3f}" if b.gini is not None else "a negative reward"
        outside = ", ".join(f"{p} {v:g}" for p, v in sorted(self.outside.items()))
        if not b.admissible:
            return (f"I searched {n} candidate contract{'s' if n != 1 else ''}, each played on the simulator (seed {self.seed}), "
                    f"for {OBJECTIVE}. Without a contract: welfare {self.none_welfare:g} ({outside}). None leaves every "
                    f"player at least that (best welfare of any candidate: {self.reference_welfare:g}): I propose no contract.")
        return (f"I searched {n} candidate contract{'s' if n != 1 else ''}, each played on the simulator (seed {self.seed}), "
                f"for {OBJECTIVE}. Without a contract: welfare {self.none_welfare:g} ({outside}). "
                f"Best: {b.candidate.name}: welfare {b.welfare:g}, {fair}, settled by {b.settlement}"
                f" (best welfare of any candidate: {self.reference_welfare:g}).")


async def play(spec: WorldSpec, contract: Contract | None, seed: int, world_factory: WorldFactory | None = None,
               budget: float | None = None, label: str = "") -> EpisodeObservables:
    """One simulated episode: the scripted cooperative players under `contract`, or greedy ones without (None)."""
    from blockpact.agents.scripted.cooperative import ScriptedCooperativeAgent
    from blockpact.agents.scripted.greedy import ScriptedGreedyAgent
    from blockpact.agents.scripted.world_facts import WorldFacts
    from blockpact.bridge.protocols import lost_programs
    from blockpact.bridge.runtime import BridgeBroken
    from blockpact.bridge.sim import SimWorld

    players = sorted(spec.players)
    world = (world_factory or SimWorld)(spec, seed)
    facts = WorldFacts(spec)
    try:
        agents = {p: ScriptedGreedyAgent(p, spec, facts) if contract is None else ScriptedCooperativeAgent(p, spec, contract, facts)
                  for p in players}
        results = await world.run_programs({p: a.proposal().code for p, a in agents.items()},
                                           budget=spec.episode_seconds if budget is None else budget, trusted=agents)
        lost = lost_programs(results)
        if lost is not None:  # a candidate scored on a lost episode would steer the search without anybody knowing
            raise BridgeBroken(f"the contract search's episode of {label!r} was lost: {lost}")
        world.finish()
        events = list(world.events)
    finally:
        await world.close()
    return observables_from_events(spec, events)


def settled_rewards(contract: Contract, obs: EpisodeObservables) -> dict[str, float]:
    return {p: r + obs.group_sharing.get(p, 0.0) for p, r in rewards_after(obs, judge_formal(contract, obs)).items()}


def _parse(spec: WorldSpec, clauses: tuple[Clause, ...]) -> Contract:
    """The contract of `clauses`, with its text. Not parsed back: the candidates are clause values already, which
    parse back to themselves (tests/test_contract_search.py), and the Earley parser takes ~10-30 ms a new clause."""
    return Contract(render_contract(clauses, world=spec.name), tuple(clauses))


def _transfers(base: dict[str, float], outside: dict[str, float]) -> list[Clause] | None:
    """Fixed transfers from `base` to each player's outside option plus an equal part of the surplus (None: no surplus)."""
    players = sorted(base)
    surplus = sum(base.values()) - sum(outside.values())
    if surplus < -TOLERANCE:
        return None
    owed = {p: round(outside[p] + surplus / len(players) - base[p], 2) for p in players}
    payers = [[p, -v] for p, v in owed.items() if v < 0]
    payees = [[p, v] for p, v in owed.items() if v > 0]
    clauses: list[Clause] = []
    for payee in payees:
        for payer in payers:
            amount = round(min(payee[1], payer[1]), 2)
            if amount >= 0.01:
                clauses.append(FixedTransfer(payer[0], payee[0], amount))
                payee[1] -= amount
                payer[1] -= amount
    return clauses


NO_SETTLEMENT = "nothing: each already holds its outside option and an equal part of the surplus"
SETTLEMENT_NAMES = {"equal shares": "equal shares", NO_SETTLEMENT: "no settlement"}


def settle(spec: WorldSpec, candidate: Candidate, obs: EpisodeObservables, outside: dict[str, float]) -> Evaluation:
    """The candidate with its settlement, judged on the episode it was played in."""
    players = sorted(spec.players)
    ir = lambda rewards: all(rewards[p] >= outside[p] - TOLERANCE for p in players)  # noqa: E731
    shared = (*candidate.clauses, Pool(tuple(players)))
    rewards = settled_rewards(_parse(spec, shared), obs)
    settlement, clauses = "equal shares", shared
    if not ir(rewards):
        base = settled_rewards(_parse(spec, candidate.clauses), obs)
        transfers = _transfers(base, outside)
        if transfers == []:  # each already holds its outside option and an equal part of the surplus
            clauses, rewards, settlement = candidate.clauses, base, NO_SETTLEMENT
        elif transfers is not None:
            clauses = (*candidate.clauses, *transfers)
            rewards = settled_rewards(_parse(spec, clauses), obs)
            settlement = "transfers: each its outside option and an equal part of the surplus"
    fair = None if any(v < 0 for v in rewards.values()) else gini(rewards.values())
    name = f"{candidate.name}; {SETTLEMENT_NAMES.get(settlement, 'transfers over outside options')}"
    produced = sum(obs.inventory_value(p) for p in players)
    return Evaluation(Candidate(name, clauses), sum(rewards.values()), fair, rewards, ir(rewards), settlement, produced)


async def evaluate(spec: WorldSpec, candidate: Candidate, seed: int, world_factory: WorldFactory | None = None,
                   budget: float | None = None, outside: dict[str, float] | None = None) -> Evaluation:
    """Play `candidate` with the scripted cooperative players on the simulator and settle it. `world_factory`:
    where (default a SimWorld); `budget`: each program's simulated seconds (default the episode's length);
    `outside`: each player's outside option (default none: equal shares)."""
    obs = await play(spec, _parse(spec, candidate.clauses), seed, world_factory, budget, candidate.name)
    return settle(spec, candidate, obs, outside or {p: float("-inf") for p in spec.players})


async def outside_options(spec: WorldSpec, seed: int = 0, world_factory: WorldFactory | None = None,
                          budget: float | None = None) -> dict[str, float]:
    """What each player gets without a contract: the scripted greedy players' episode."""
    obs = await play(spec, None, seed, world_factory, budget, "no contract")
    return settled_rewards(parse_contract("", sorted(spec.players), spec=spec), obs)


async def search(spec: WorldSpec, seed: int = 0, world_factory: WorldFactory | None = None,
                 budget: float | None = None) -> SearchResult:
    outside = await outside_options(spec, seed, world_factory, budget)
    evaluations = [await evaluate(spec, c, seed, world_factory, budget, outside) for c in candidates(spec)]
    admissible = [e for e in evaluations if e.admissible]
    # Of equal welfare, the one whose welfare is most in what players hold (not made by settling gifts), then the first:
    # candidates come simplest first.
    best = max(admissible or evaluations, key=lambda e: (round(e.welfare, 6), round(e.produced, 6)))
    return SearchResult(best, tuple(evaluations), seed, outside, len(evaluations) + 1)


_RESULTS: dict[tuple[str, str], SearchResult] = {}  # one search per world per process (every seed of a run)


async def best_contract(spec: WorldSpec, seed: int = 0, world_factory: WorldFactory | None = None,
                        budget: float | None = None) -> SearchResult:
    """The search's result for `spec`, computed once per world text in a process (`world_factory` and
    `budget` as for `evaluate`; a budget past the episode's length changes no outcome: the end stops
    the programs first)."""
    key = (spec.name, repr(spec))  # the whole spec: a test may change a loaded world's episode length
    if key not in _RESULTS:
        _RESULTS[key] = await search(spec, seed, world_factory, budget)
    return _RESULTS[key]
