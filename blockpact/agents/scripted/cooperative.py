"""ScriptedCooperativeAgent: keeps every clause of a contract in the controlled form it is party to.

The contract is compiled into a plan with dependencies (`contract_plan`): what it waits for, fetches, makes through
every recipe level, mines within every quota window, deposits, returns and signals. The program (templates/
cooperative.js) carries the plan out step by step, retrying a step that fails and giving it up (and saying so)
after a few tries. Transfers, gifts, reward sharing and penalties are settled by the judge and need no action. Every
clause it cannot keep is listed, with the reason, in its explanation ("Not followed: ...").
"""

from __future__ import annotations

from blockpact.agents.action import Proposal
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_settings import action_settings
from blockpact.agents.scripted.contract_plan import Plan, plan_for
from blockpact.agents.scripted.program import scripted_proposal, search_radius
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.contract import Contract
from blockpact.worlds.spec.schema import WorldSpec

MAX_FAILURES = 4  # tries of one step before it is given up
RETRY_SECONDS = 5.0  # between tries
LOOK_SECONDS = 3.0  # between looks into a chest it waits on (and the longest it listens for a signal at once)
REGROW_DELAY = 1.0  # after a quota window opens: what grows at the window's start has grown


class ScriptedCooperativeAgent:
    """Follows `contract` as far as it is in the controlled form. Deterministic; no LLM."""

    def __init__(self, player: str, spec: WorldSpec, contract: Contract, facts: WorldFacts | None = None) -> None:
        if player not in spec.players:
            raise ValueError(f"{player!r} is not a player of world {spec.name!r}")
        self.player = player
        self.spec = spec
        self.contract = contract
        self.facts = facts or WorldFacts(spec)
        self.plan: Plan = plan_for(contract, player, self.facts)

    async def propose(self, ctx: ActionContext) -> Proposal:
        return self.proposal()

    def proposal(self) -> Proposal:
        plan = self.plan
        doing = "; ".join(s.what for s in plan.steps) or "nothing"
        notes = f" Not followed: {'; '.join(n.rstrip('.') for n in plan.notes)}." if plan.notes else ""
        return scripted_proposal(
            "cooperative.js",
            {
                "STEPS": [s.js() for s in plan.steps],
                "MAX_FAILURES": MAX_FAILURES,
                "EPISODE_SECONDS": self.spec.episode_seconds,
                "RETRY_SECONDS": RETRY_SECONDS,
                "LOOK_SECONDS": LOOK_SECONDS,
                "REGROW_DELAY": REGROW_DELAY,
                "IDLE_SECONDS": action_settings().scripted.idle_seconds,
                "SEARCH_RADIUS": search_radius(),
            },
            explain=f"Scripted cooperative player {self.player} keeping the contract: {doing}.{notes}",
            plan=[s.what + (f" (after: {', '.join(s.after)})" if s.after else "") for s in plan.steps] or ["Nothing to do."],
        )
