"""ScriptedCooperativeAgent: keeps the clauses of a contract in the controlled form.

Assignments say who mines (or collects) what; a turn-taking clause says who uses a shared tool
first. A player the contract assigns no blocks mines what is worth something to it and is not
assigned to anyone else. Free-text clauses cannot be followed by a script and are listed as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blockpact.agents.action import ActionContext, Proposal
from blockpact.agents.action_settings import action_settings
from blockpact.agents.scripted.program import scripted_proposal, search_radius
from blockpact.agents.scripted.world_facts import ChestTool, WorldFacts
from blockpact.judge.contract import Assignment, Contract, FreeText, TurnTaking
from blockpact.worlds.spec import WorldSpec


@dataclass
class ContractPlan:
    """What one player does under a contract."""

    targets: list[str] = field(default_factory=list)  # blocks to mine, in order
    tools: list[ChestTool] = field(default_factory=list)  # tools to take, best first
    turn: dict[str, object] | None = None  # the JS template's `turn`
    notes: list[str] = field(default_factory=list)  # clauses it cannot follow, and why


def _blocks_of(clause: Assignment, facts: WorldFacts) -> list[str]:
    if clause.verb == "mine":
        return [clause.target] if clause.target in facts.block_counts else []
    if clause.verb == "collect":
        return facts.blocks_dropping(clause.target)
    return []


def plan_for(contract: Contract, player: str, facts: WorldFacts) -> ContractPlan:
    plan = ContractPlan()
    assigned_to_others: set[str] = set()
    taken_by_others: set[str] = set()
    own_takes: list[str] = []
    for number, clause in enumerate(contract.clauses, 1):
        if isinstance(clause, Assignment):
            blocks = _blocks_of(clause, facts)
            if clause.verb in ("mine", "collect") and not blocks:
                plan.notes.append(f"clause {number}: no block in this world yields {clause.target}")
            if clause.player == player:
                plan.targets.extend(b for b in blocks if b not in plan.targets)
                if clause.verb == "take":
                    own_takes.append(clause.target)
            else:
                assigned_to_others.update(blocks)
                if clause.verb == "take":
                    taken_by_others.add(clause.target)
        elif isinstance(clause, TurnTaking) and plan.turn is None and player in (clause.first, clause.then):
            chest = facts.chest_with(clause.item)
            if chest is None:
                plan.notes.append(f"clause {number}: no chest holds a {clause.item}")
                continue
            first = clause.first == player
            plan.turn = {"role": "first" if first else "then", "item": clause.item, "chest": list(chest),
                         "other": clause.then if first else clause.first}
        elif isinstance(clause, FreeText):
            plan.notes.append(f"clause {number} is free text a script cannot follow: {clause.text}")
    if not plan.targets:
        values = facts.block_values(player)
        plan.targets = sorted((b for b in values if b not in assigned_to_others), key=lambda b: (-values[b], b))
    shared = {str(plan.turn["item"])} if plan.turn else set()
    reserved = frozenset(taken_by_others | shared)
    for item in own_takes:
        chest = facts.chest_with(item)
        if chest is not None:
            plan.tools.append(ChestTool(chest, item))
    if plan.turn is not None:
        plan.tools.append(ChestTool(tuple(plan.turn["chest"]), str(plan.turn["item"])))  # type: ignore[arg-type]
    plan.tools.extend(t for t in facts.tool_options(plan.targets, prefer_weakest=True, exclude=reserved) if t not in plan.tools)
    return plan


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

    def proposal(self) -> Proposal:
        plan, facts = self.plan, self.facts
        renewing = any(b in facts.renewing_blocks for b in plan.targets)
        targets = ", ".join(plan.targets) or "nothing"
        tool_text = " or ".join(t.item for t in plan.tools) or "no tool"
        steps = []
        if plan.turn and plan.turn["role"] == "then":
            steps.append(f"Wait for {plan.turn['other']}'s signal that the {plan.turn['item']} is back in the chest.")
        steps += [f"Take {tool_text}.", f"Mine {targets}."]
        if plan.turn and plan.turn["role"] == "first":
            steps.append(f"Return the {plan.turn['item']} to the chest and signal {plan.turn['other']}.")
        if renewing:
            steps.append("Keep mining what grows back until the scenario ends.")
        notes = f" Not followed: {'; '.join(n.rstrip('.') for n in plan.notes)}." if plan.notes else ""
        return scripted_proposal(
            "cooperative.js",
            {
                "TURN": plan.turn,
                "WAIT_SECONDS": self.spec.episode_seconds,
                "TOOLS": [{"chest": list(t.chest), "item": t.item} for t in plan.tools],
                "TARGETS": [{"block": b, "count": max(facts.block_counts[b], 1)} for b in plan.targets],
                "RENEWING": renewing,
                "IDLE_SECONDS": action_settings().scripted_idle_seconds,
                "SEARCH_RADIUS": search_radius(),
            },
            explain=f"Scripted cooperative player {self.player} keeping the contract: takes {tool_text} and mines {targets}.{notes}",
            plan=steps,
        )
