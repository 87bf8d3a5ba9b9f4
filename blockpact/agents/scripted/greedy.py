"""ScriptedGreedyAgent: plays for itself (the baseline without a contract)."""

from __future__ import annotations

from blockpact.agents.action import Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_settings import action_settings
from blockpact.agents.scripted.program import scripted_proposal, search_radius
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.worlds.spec.schema import WorldSpec


class ScriptedGreedyAgent:
    """Takes the best tool it can get from the chests, mines whatever is worth most to itself, then
    the rest while time remains. Deterministic; the same program every round."""

    def __init__(self, player: str, spec: WorldSpec, facts: WorldFacts | None = None) -> None:
        if player not in spec.players:
            raise ValueError(f"{player!r} is not a player of world {spec.name!r}")
        self.player = player
        self.spec = spec
        self.facts = facts or WorldFacts(spec)

    async def propose(self, ctx: ActionContext) -> Proposal:
        return self.proposal()

    def proposal(self) -> Proposal:
        facts = self.facts
        values = facts.block_values(self.player)
        blocks = sorted(values, key=lambda b: (-values[b], b))
        tools = facts.tool_options(blocks, prefer_weakest=False)
        renewing = any(b in facts.renewing_blocks for b in blocks)
        order = ", then ".join(f"{b} ({values[b]:g} emeralds each)" for b in blocks) or "nothing (no block is worth anything to it)"
        tool_text = " or ".join(t.item for t in tools) or "no tool"
        plan = [f"Take the best tool still in a chest: {tool_text}.", f"Mine {order}."]
        if renewing:
            plan.append("Keep mining what grows back until the scenario ends.")
        return scripted_proposal(
            "greedy.js",
            {
                "TOOLS": [{"chest": list(t.chest), "item": t.item} for t in tools],
                "TARGETS": [{"block": b, "count": max(facts.block_counts[b], 1)} for b in blocks],
                "RENEWING": renewing,
                "IDLE_SECONDS": action_settings().scripted.idle_seconds,
                "SEARCH_RADIUS": search_radius(),
            },
            explain=f"Scripted greedy player {self.player}: takes {tool_text} and mines {order}.",
            plan=plan,
        )
