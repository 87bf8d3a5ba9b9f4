"""ScriptedCooperativeAgent: keeps every clause of a contract in the controlled form it is party to.

Assignments say who mines (or collects) what; quotas cap (per period) what it mines, a total quota
is split equally among its players; it crafts, deposits into named chests, waits for the signals it
must wait for and signals when done; a turn-taking clause says who uses a shared tool first.
Transfers, gifts, reward sharing and penalties are settled by the judge and need no action. A
player the contract assigns no blocks mines what is worth something to it and is not assigned to
anyone else. Free-text clauses cannot be followed by a script and are listed as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from blockpact.agents.action import Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_settings import action_settings
from blockpact.agents.scripted.program import scripted_proposal, search_radius
from blockpact.agents.scripted.world_facts import ChestTool, WorldFacts
from blockpact.judge.contract import (
    Assignment,
    Contract,
    Craft,
    Deposit,
    Exclusion,
    FreeText,
    Quota,
    RegionLimit,
    Return,
    Signal,
    Steps,
    TotalQuota,
    TurnTaking,
    WaitFor,
    Withdraw,
    parts,
)
from blockpact.worlds.spec.schema import WorldSpec


@dataclass
class ContractPlan:
    """What one player does under a contract."""

    targets: list[str] = field(default_factory=list)  # blocks to mine, in order
    tools: list[ChestTool] = field(default_factory=list)  # tools to take, best first
    turn: dict[str, object] | None = None  # the JS template's `turn`
    notes: list[str] = field(default_factory=list)  # clauses it cannot follow, and why
    period: float | None = None  # quota period in seconds: mine in rounds of this length
    per_round: dict[str, int] = field(default_factory=dict)  # block -> most blocks per period
    totals: dict[str, int] = field(default_factory=dict)  # block -> most blocks over the episode
    at_least: dict[str, int] = field(default_factory=dict)  # block -> fewest blocks to mine
    crafts: list[tuple[str, int]] = field(default_factory=list)  # (item, recipe runs)
    fetch: dict[str, list[tuple[tuple[int, int, int], str, int]]] = field(default_factory=dict)  # crafted item -> ingredients to take
    deposits: list[tuple[tuple[int, int, int], str, int | None]] = field(default_factory=list)
    wait_for: list[str] = field(default_factory=list)
    signal: bool = False
    signal_late: bool = False  # "deposits ..., then signals": the signal comes after the first deposits
    windows: dict[str, list[dict[str, object]]] = field(default_factory=dict)  # block -> quota windows
    excluded: set[str] = field(default_factory=set)  # blocks it must not mine
    withdrawals: list[tuple[tuple[int, int, int], str, int]] = field(default_factory=list)
    returns: list[tuple[tuple[int, int, int], str]] = field(default_factory=list)
    region: str | None = None  # mines from this region's centre (mineBlock takes the nearest blocks)


def _blocks_of(verb: str, target: str, facts: WorldFacts) -> list[str]:
    if verb == "mine":
        return [target] if target in facts.block_counts else []
    if verb == "collect":
        return facts.blocks_dropping(target)
    return []


def _cap(plan: ContractPlan, block: str, blocks_allowed: int, period: float | None) -> None:
    if period is None:
        plan.totals[block] = min(plan.totals.get(block, blocks_allowed), blocks_allowed)
        return
    if plan.period is not None and plan.period != period:
        plan.notes.append(f"quotas with different periods: rounds of {plan.period:g} s are used")
        period = plan.period
    plan.period = period
    plan.per_round[block] = min(plan.per_round.get(block, blocks_allowed), blocks_allowed)


def _quota(number: int, clause: Quota | TotalQuota, player: str, plan: ContractPlan, facts: WorldFacts) -> bool:
    """Apply a quota to `player`'s plan; True when it concerns the player."""
    share = clause.count if isinstance(clause, Quota) else clause.count // len(clause.players)
    if isinstance(clause, Quota) and clause.player != player or isinstance(clause, TotalQuota) and player not in clause.players:
        return False
    if clause.verb == "take":
        plan.notes.append(f"clause {number}: takes only the tools it needs, which keeps the quota on {clause.target}")
        return True
    blocks = _blocks_of(clause.verb, clause.target, facts)
    if not blocks:
        plan.notes.append(f"clause {number}: no block in this world yields {clause.target}")
    for note in _unfollowed(number, clause):
        plan.notes.append(note)
    for block in blocks:
        per_block = facts.max_drop(block, clause.target) if clause.verb == "collect" else 1
        if clause.bound == "at_most" and clause.window is not None:
            window = clause.window
            if clause.period is not None:
                plan.period = plan.period or clause.period
            plan.windows.setdefault(block, []).append({
                "from": window.start, "to": window.end, "count": share // per_block, "perPeriod": clause.period is not None})
            if block not in plan.targets:
                plan.targets.append(block)
        elif clause.bound == "at_most":
            _cap(plan, block, share // per_block, clause.period)
            if block not in plan.targets:
                plan.targets.append(block)
        else:
            plan.at_least[block] = max(plan.at_least.get(block, 0), math.ceil(share / per_block))
            if block not in plan.targets:
                plan.targets.append(block)
    return True


def _unfollowed(number: int, clause: object) -> list[str]:
    """What of a clause the script cannot keep exactly (it says so rather than pretend)."""
    notes = []
    if getattr(clause, "condition", None) is not None:
        notes.append(f"clause {number}: its condition ({clause.condition}) is not watched; the limit is kept at all times")  # type: ignore[attr-defined]
    if getattr(clause, "region", None) is not None:
        notes.append(f"clause {number}: mines from the {clause.region}'s centre (mineBlock takes the nearest blocks)")  # type: ignore[attr-defined]
    return notes


def _exclude(number: int, part: Exclusion, plan: ContractPlan, facts: WorldFacts) -> None:
    if part.verb == "take":
        plan.excluded.add(f"item:{part.target}")
    elif part.target is None:
        plan.notes.append(f"clause {number}: stays away from nothing in particular; mines outside the {part.region} only by chance")
    else:
        plan.excluded.update(_blocks_of(part.verb, part.target, facts))
    if part.window is not None or part.condition is not None:
        plan.notes.append(f"clause {number}: kept for the whole episode (its window or condition only narrows it)")


def _steps_order(contract: Contract, player: str, plan: ContractPlan) -> None:
    """"puts ..., then signals": signal after the deposits of the first round."""
    for clause in contract.clauses:
        for step in [clause] if isinstance(clause, Steps) else []:
            kinds = [type(p) for p in step.parts if getattr(p, "player", None) == player]
            if step.ordered and Signal in kinds and any(k in kinds[:kinds.index(Signal)] for k in (Deposit, Return)):
                plan.signal_late = True


def plan_for(contract: Contract, player: str, facts: WorldFacts) -> ContractPlan:
    plan = ContractPlan()
    assigned_to_others: set[str] = set()
    taken_by_others: set[str] = set()
    own_takes: list[str] = []
    for number, clause in enumerate(contract.clauses, 1):
        for part in parts(clause):
            if isinstance(part, Assignment):
                blocks = _blocks_of(part.verb, part.target, facts)
                if part.verb in ("mine", "collect") and not blocks:
                    plan.notes.append(f"clause {number}: no block in this world yields {part.target}")
                if part.player == player:
                    plan.targets.extend(b for b in blocks if b not in plan.targets)
                    if part.verb == "take":
                        own_takes.append(part.target)
                else:
                    assigned_to_others.update(blocks)
                    if part.verb == "take":
                        taken_by_others.add(part.target)
            elif isinstance(part, (Quota, TotalQuota)):
                _quota(number, part, player, plan, facts)
            elif isinstance(part, TurnTaking) and plan.turn is None and player in (part.first, part.then):
                chest = facts.chest_with(part.item)
                if chest is None:
                    plan.notes.append(f"clause {number}: no chest holds a {part.item}")
                    continue
                first = part.first == player
                plan.turn = {"role": "first" if first else "then", "item": part.item, "chest": list(chest),
                             "other": part.then if first else part.first}
            elif isinstance(part, Craft) and part.player == player:
                plan.crafts.append((part.item, facts.recipe_runs(part.item, part.count)))
            elif isinstance(part, Deposit) and part.player == player:
                chest = facts.chest_named(part.chest)
                if chest is None:
                    plan.notes.append(f"clause {number}: the world has no chest named {part.chest!r}")
                else:
                    plan.deposits.append((chest, part.item, part.count))
            elif isinstance(part, WaitFor):
                if part.player == player and part.signaller not in plan.wait_for:
                    plan.wait_for.append(part.signaller)
                plan.signal |= part.signaller == player
            elif isinstance(part, Signal):
                plan.signal |= part.player == player
            elif isinstance(part, Exclusion) and part.player == player:
                _exclude(number, part, plan, facts)
            elif isinstance(part, Withdraw) and part.player == player:
                chest = facts.chest_named(part.chest) if part.chest else facts.chest_with(part.item)
                if chest is None:
                    plan.notes.append(f"clause {number}: no chest to take {part.item} from")
                else:
                    plan.withdrawals.append((chest, part.item, part.count if part.count is not None else 64))
            elif isinstance(part, Return) and part.player == player:
                chest = facts.chest_named(part.chest) if part.chest else facts.chest_with(part.item)
                if chest is not None:
                    plan.returns.append((chest, part.item))
            elif isinstance(part, RegionLimit) and part.player == player:
                plan.region = part.region
                plan.notes.extend(_unfollowed(number, part))
            elif isinstance(part, FreeText):
                plan.notes.append(f"clause {number} is free text a script cannot follow: {part.text}")
    _steps_order(contract, player, plan)
    _plan_fetches(contract, player, plan, facts)
    if not plan.targets:
        values = facts.block_values(player)
        plan.targets = sorted((b for b in values if b not in assigned_to_others), key=lambda b: (-values[b], b))
    plan.targets = [b for b in plan.targets if b not in plan.excluded]
    shared = {str(plan.turn["item"])} if plan.turn else set()
    reserved = frozenset(taken_by_others | shared | {e[5:] for e in plan.excluded if e.startswith("item:")})
    for item in own_takes:
        chest = facts.chest_with(item)
        if chest is not None:
            plan.tools.append(ChestTool(chest, item))
    if plan.turn is not None:
        plan.tools.append(ChestTool(tuple(plan.turn["chest"]), str(plan.turn["item"])))  # type: ignore[arg-type]
    plan.tools.extend(t for t in facts.tool_options(plan.targets, prefer_weakest=True, exclude=reserved) if t not in plan.tools)
    return plan


def _plan_fetches(contract: Contract, player: str, plan: ContractPlan, facts: WorldFacts) -> None:
    """For each craft: the ingredients the player lacks, from the chest others deposit them into
    (else a chest holding them). Each fetch names how many the craft takes in all (the program takes
    what it holds less than that): a crafter holding part of an ingredient still fetches the rest."""
    deposited = {part.item: facts.chest_named(part.chest) for c in contract.clauses for part in parts(c)
                 if isinstance(part, Deposit) and part.player != player}
    own = facts.spec.players[player].inventory
    for item, runs in plan.crafts:
        for ingredient, n in facts.ingredients(item, runs).items():
            lacking = n - own.get(ingredient, 0)
            chest = deposited.get(ingredient) or facts.chest_with(ingredient)
            if lacking > 0 and chest is not None:
                plan.fetch.setdefault(item, []).append((chest, ingredient, n))


def _target(plan: ContractPlan, block: str, present: int) -> dict[str, object]:
    count = plan.per_round.get(block, max(present, plan.at_least.get(block, 0), 1))
    return {"block": block, "count": count, "total": plan.totals.get(block),
            "windows": [{**w, "used": 0} for w in plan.windows.get(block, [])]}


def _centre(spec: WorldSpec, region: str | None) -> list[int] | None:
    if region is None or region not in spec.regions:
        return None
    box = spec.regions[region]
    return [(lo + hi) // 2 for lo, hi in zip(box.lo, box.hi)]


class ScriptedCooperativeAgent:
    """Follows `contract` as far as it is in the controlled form. Deterministic; no LLM."""

    def __init__(self, player: str, spec: WorldSpec, contract: Contract, facts: WorldFacts | None = None) -> None:
        if player not in spec.players:
            raise ValueError(f"{player!r} is not a player of world {spec.name!r}")
        self.player = player
        self.spec = spec
        self.contract = contract
        self.facts = facts or WorldFacts(spec)
        self.plan = plan_for(contract, player, self.facts)

    async def propose(self, ctx: ActionContext) -> Proposal:
        return self.proposal()

    def _steps(self, tool_text: str, targets: str, renewing: bool) -> list[str]:
        plan = self.plan
        steps = [f"Wait for {other}'s signal." for other in plan.wait_for]
        if plan.turn and plan.turn["role"] == "then":
            steps.append(f"Wait for {plan.turn['other']}'s signal that the {plan.turn['item']} is back in the chest.")
        steps += [f"Take {tool_text}."]
        steps += [f"Craft {item} ({runs} times)." for item, runs in plan.crafts]
        limits = [f"at most {n} {b} every {plan.period:g} s" for b, n in plan.per_round.items()]
        limits += [f"at most {w['count']} {b}{' a period' if w['perPeriod'] else ''} from {w['from']:g} s"
                   + (f" to {w['to']:g} s" if w["to"] is not None else "") for b, ws in plan.windows.items() for w in ws]
        limits += [f"at most {n} {b} in all" for b, n in plan.totals.items()]
        steps.append(f"Mine {targets}" + (f" ({', '.join(limits)})." if limits else "."))
        steps += [f"Deposit {'all' if n is None else n} {item} into the chest at {list(pos)}." for pos, item, n in plan.deposits]
        if plan.turn and plan.turn["role"] == "first":
            steps.append(f"Return the {plan.turn['item']} to the chest and signal {plan.turn['other']}.")
        if plan.signal:
            steps.append("Signal that its first round is done.")
        if plan.period is not None:
            steps.append(f"Repeat every {plan.period:g} seconds until the scenario ends.")
        elif renewing:
            steps.append("Keep mining what grows back until the scenario ends.")
        return steps

    def proposal(self) -> Proposal:
        plan, facts = self.plan, self.facts
        renewing = any(b in facts.renewing_blocks for b in plan.targets)
        targets = ", ".join(plan.targets) or "nothing"
        tool_text = " or ".join(t.item for t in plan.tools) or "no tool"
        notes = f" Not followed: {'; '.join(n.rstrip('.') for n in plan.notes)}." if plan.notes else ""
        return scripted_proposal(
            "cooperative.js",
            {
                "TURN": plan.turn,
                "PERIOD": plan.period,
                "WAIT_FOR": plan.wait_for,
                "SIGNAL": plan.signal,
                "CRAFTS": [
                    {"item": item, "count": runs,
                     "fetch": [{"chest": list(c), "item": i, "count": n} for c, i, n in plan.fetch.get(item, [])]}
                    for item, runs in plan.crafts
                ],
                "DEPOSITS": [{"chest": list(pos), "item": item, "count": n} for pos, item, n in plan.deposits],
                "SIGNAL_LATE": plan.signal_late,
                "WITHDRAWALS": [{"chest": list(pos), "item": item, "count": n} for pos, item, n in plan.withdrawals],
                "RETURNS": [{"chest": list(pos), "item": item} for pos, item in plan.returns],
                "REGION_CENTRE": _centre(self.spec, plan.region),
                "WAIT_SECONDS": self.spec.episode_seconds,
                "TOOLS": [{"chest": list(t.chest), "item": t.item} for t in plan.tools],
                "TARGETS": [_target(plan, b, facts.block_counts[b]) for b in plan.targets],
                "RENEWING": renewing,
                "IDLE_SECONDS": action_settings().scripted.idle_seconds,
                "SEARCH_RADIUS": search_radius(),
            },
            explain=f"Scripted cooperative player {self.player} keeping the contract: takes {tool_text} and mines {targets}.{notes}",
            plan=self._steps(tool_text, targets, renewing),
        )
