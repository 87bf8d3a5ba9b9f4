"""The scripted negotiator's contract: a search over candidate contracts, each played on the simulator.

Candidates are built from what the world file says, for any number of players:
- who cleans: blocks that dynamics rules need kept low (pollution) go to 0, 1 or 2 cleaners;
- how much to take: for a renewed resource, a quota per period per player (for a grow rule the
  share of what regrows to the cap in one period; for a regrow rule a fraction of the stock), or none;
- crafting: a valued block that only a tool nobody has can harvest, when the tool's ingredients are
  spread over the players: the holders deposit them into a chest and signal, the player holding most
  waits for them and crafts the tool;
- division of labour: each valued block to the player expecting most from it (with the tools that
  takes), when players value blocks differently;
- gifts: an item goes to the player who values it most;
- and every candidate shares the rewards equally among all players (the surplus goes to everyone).

Each candidate is played once by the scripted cooperative players on the simulator and settled by
the formal judge; the search keeps the highest welfare among contracts with Gini <= MAX_GINI (every
candidate binds every player). The best welfare seen is the search's reference optimum.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.clauses import Assignment, Clause, Craft, Deposit, Give, Pool, Quota, Signal, WaitFor
from blockpact.judge.contract import ForEach, parse_contract, render_contract
from blockpact.judge.formal import judge_formal
from blockpact.judge.metrics import gini
from blockpact.judge.observables import observables_from_events
from blockpact.judge.verdict import rewards_after
from blockpact.worlds.spec.schema import GrowRule, RegrowRule, WorldSpec

if TYPE_CHECKING:
    from blockpact.bridge.sim import SimWorld

WorldFactory = Callable[[WorldSpec, int], "SimWorld"]  # (spec, seed) -> a simulated world

MAX_GINI = 0.1
QUOTA_PERIOD = 60.0  # seconds, for regrow rules (a grow rule's own period is used for it)
REGROW_FRACTIONS = (0.5,)  # of a regrowing stock, per QUOTA_PERIOD, over all players
OBJECTIVE = f"the highest social welfare on the simulator among contracts with Gini <= {MAX_GINI} that bind every player"


@dataclass(frozen=True)
class Candidate:
    name: str  # what it tries, for the negotiator's message and the report
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class Evaluation:
    candidate: Candidate
    welfare: float
    gini: float | None  # None when a reward is negative
    rewards: dict[str, float]

    @property
    def admissible(self) -> bool:
        return self.gini is not None and self.gini <= MAX_GINI


@dataclass(frozen=True)
class SearchResult:
    best: Evaluation
    evaluations: tuple[Evaluation, ...]
    seed: int

    @property
    def reference_welfare(self) -> float:
        return max(e.welfare for e in self.evaluations)

    def summary(self) -> str:
        """What was optimised and what was found, for the negotiator's message."""
        b = self.best
        n = len(self.evaluations)
        return (f"I searched {n} candidate contract{'s' if n != 1 else ''}, each played on the simulator (seed {self.seed}), "
                f"for {OBJECTIVE}. Best: {b.candidate.name}: welfare {b.welfare:g}, Gini {b.gini:.3f}"
                f" (best welfare of any candidate: {self.reference_welfare:g}).")


def _quota_options(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[tuple[str, list[Clause]]]:
    """(name, clauses) per quota choice: none, or one quota per renewed valued resource."""
    valued = {b for p in players for b in facts.block_values(p)}
    per_rule: list[list[tuple[str, Clause]]] = []
    for rule in spec.rules:
        if rule.block not in valued:
            continue
        stock = facts.block_counts.get(rule.block, 0)
        if isinstance(rule, GrowRule) and rule.factor > 1:
            cap = rule.cap if rule.cap is not None else stock
            takes = [(cap - math.ceil(cap / rule.factor), rule.every)]
        elif isinstance(rule, RegrowRule):
            takes = [(int(stock * f), QUOTA_PERIOD) for f in REGROW_FRACTIONS]
        else:
            continue
        options = []
        for take, period in takes:
            q = take // len(players)
            if q > 0:
                parts = tuple(Quota(p, "mine", rule.block, q, "at_most", period) for p in players)
                options.append((f"at most {q} {rule.block} each every {period:g} s", ForEach("each player", parts)))
        if options:
            per_rule.append(options)
    if not per_rule:
        return [("", [])]
    choices: list[tuple[str, list[Clause]]] = [("no quota", [])]
    for combo in itertools.product(*per_rule):
        choices.append((", ".join(name for name, _ in combo), [c for _, c in combo]))
    return choices


def _cleaning_options(facts: WorldFacts, players: list[str], kept_low: list[str]) -> list[tuple[str, list[Clause]]]:
    if not kept_low:
        return [("", [])]
    out = []
    for k in range(min(2, len(players) - 1) + 1):
        cleaners = players[len(players) - k:]
        clauses = [Assignment(c, "mine", b) for c in cleaners for b in kept_low]
        out.append((f"{k} cleaner{'s' if k != 1 else ''}" + (f" ({', '.join(cleaners)})" if k else ""), clauses))
    return out


def _crafting(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[Clause]:
    """Clauses that pool spread ingredients so one player crafts the tool a valued block needs."""
    if not spec.chests or "crafting_table" not in facts.block_counts:
        return []
    chest_name = sorted(spec.chests.items())[0][1].name
    valued = sorted({b for p in players for b in facts.block_values(p)})
    have = {t for p in players for t in spec.players[p].inventory} | {t.item for t in facts.chest_tools()}
    for block in valued:
        if not facts.needs_tool(block) or any(facts.harvests(t, block) for t in have):
            continue
        for tool in sorted(t for t in facts.tools() if facts.harvests(t, block)):
            needed = facts.ingredients(tool, 1)
            held = {p: {i: spec.players[p].inventory.get(i, 0) for i in needed} for p in players}
            if not needed or any(sum(h[i] for h in held.values()) < n for i, n in needed.items()):
                continue
            crafter = max(players, key=lambda p: (sum(min(held[p][i], n) for i, n in needed.items()), -players.index(p)))
            clauses: list[Clause] = []
            for giver in players:
                items = [i for i in needed if giver != crafter and held[giver][i] > 0]
                clauses += [Deposit(giver, i, None, chest_name) for i in items]
                if items:
                    clauses += [Signal(giver, crafter), WaitFor(crafter, giver)]
            return [*clauses, Craft(crafter, tool, 1)]
    return []


def _gifts(spec: WorldSpec, facts: WorldFacts, players: list[str]) -> list[Clause]:
    """Each item some players value more than others goes to the one valuing it most."""
    items = sorted({i for p in players for i in spec.players[p].values})
    clauses: list[Clause] = []
    for item in items:
        values = {p: spec.value(p, item) for p in players}
        if len(set(values.values())) < 2:
            continue
        best = max(players, key=lambda p: (values[p], -players.index(p)))
        clauses += [Give(p, best, item, None) for p in players if p != best]
    return clauses


def candidates(spec: WorldSpec) -> list[Candidate]:
    from blockpact.agents.negotiation_plan import assignment_clauses, kept_low_blocks

    facts = WorldFacts(spec)
    players = sorted(spec.players)
    share = Pool(tuple(players))
    crafting, gifts = _crafting(spec, facts, players), _gifts(spec, facts, players)
    assignments = assignment_clauses(spec)
    division = [("", [])] + ([("each block to whoever values it most", assignments)] if assignments else [])
    giving = [("", [])] + ([("gifts to whoever values most", gifts)] if gifts else [])
    making = [("", [])] + ([("pooled materials to craft a tool", crafting)] if crafting else [])
    out = []
    for (gift_name, given), (craft_name, crafted), (assign_name, assigned), (clean_name, cleaning), (quota_name, quotas) in (
        itertools.product(giving, making, division, _cleaning_options(facts, players, kept_low_blocks(spec)),
                          _quota_options(spec, facts, players))
    ):
        name = "; ".join(x for x in (assign_name, clean_name, quota_name, craft_name, gift_name, "equal shares") if x)
        out.append(Candidate(name, (*assigned, *cleaning, *quotas, *crafted, *given, share)))
    return out  # simplest first: the search keeps the first of equally good candidates


async def evaluate(spec: WorldSpec, candidate: Candidate, seed: int, world_factory: WorldFactory | None = None,
                   budget: float | None = None) -> Evaluation:
    """Play `candidate` with the scripted cooperative players on the simulator and settle it. `world_factory`:
    where (default a SimWorld); `budget`: each program's simulated seconds (default the episode's length)."""
    from blockpact.agents.scripted.cooperative import ScriptedCooperativeAgent
    from blockpact.bridge.protocols import lost_programs
    from blockpact.bridge.runtime import BridgeBroken
    from blockpact.bridge.sim import SimWorld

    players = sorted(spec.players)
    contract = parse_contract(render_contract(candidate.clauses, world=spec.name), players, spec=spec)
    world = (world_factory or SimWorld)(spec, seed)
    try:
        programs = {p: ScriptedCooperativeAgent(p, spec, contract).proposal().code for p in players}
        results = await world.run_programs(programs, budget=spec.episode_seconds if budget is None else budget)
        lost = lost_programs(results)
        if lost is not None:  # a candidate scored on a lost episode would steer the search without anybody knowing
            raise BridgeBroken(f"the contract search's episode of {candidate.name!r} was lost: {lost}")
        world.finish()
        events = list(world.events)
    finally:
        await world.close()
    obs = observables_from_events(spec, events)
    rewards = {p: r + obs.group_sharing.get(p, 0.0) for p, r in rewards_after(obs, judge_formal(contract, obs)).items()}
    fair = None if any(v < 0 for v in rewards.values()) else gini(rewards.values())
    return Evaluation(candidate, sum(rewards.values()), fair, rewards)


async def search(spec: WorldSpec, seed: int = 0, world_factory: WorldFactory | None = None,
                 budget: float | None = None) -> SearchResult:
    evaluations = [await evaluate(spec, c, seed, world_factory, budget) for c in candidates(spec)]
    admissible = [e for e in evaluations if e.admissible] or evaluations
    best = max(admissible, key=lambda e: e.welfare)  # the first of equals: candidates come simplest first
    return SearchResult(best, tuple(evaluations), seed)


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
