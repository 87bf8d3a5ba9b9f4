"""The scripted negotiator's appraisal of a contract it did not propose: played on the simulator by the scripted
cooperative players, as the search plays its own candidates, and refused when it leaves the player below its
outside option (what it gets without a contract) or below what the player's own proposal gives it."""

from __future__ import annotations

from blockpact.agents.scripted.contract_search import TOLERANCE, SearchResult, WorldFactory, play, settled_rewards
from blockpact.judge.contract import parse_contract
from blockpact.worlds.spec.schema import WorldSpec


class Appraiser:
    """`await appraiser(proposal)`: why `player` refuses it, or None to accept. Each text is played once."""

    def __init__(self, spec: WorldSpec, player: str, found: SearchResult, world_factory: WorldFactory | None = None,
                 budget: float | None = None) -> None:
        self.spec, self.player, self.found = spec, player, found
        self.world_factory, self.budget = world_factory, budget
        self._seen: dict[str, str | None] = {}

    async def __call__(self, proposal: str) -> str | None:
        if proposal not in self._seen:
            self._seen[proposal] = await self._appraise(proposal)
        return self._seen[proposal]

    async def _appraise(self, proposal: str) -> str | None:
        contract = parse_contract(proposal, sorted(self.spec.players), spec=self.spec)
        loose = contract.free_text()
        if loose:
            n, clause = loose[0]
            return f"clause {n} is not in the controlled form ({clause.why}), so I cannot tell what it gives me"
        if self.player not in contract.parties():
            return "it does not bind me"
        obs = await play(self.spec, contract, self.found.seed, self.world_factory, self.budget, "a proposal")
        mine = settled_rewards(contract, obs)[self.player]
        outside = self.found.outside[self.player]
        if mine < outside - TOLERANCE:
            return f"played on the simulator it gives me {mine:g}, less than the {outside:g} I get without a contract"
        own = self.found.best.rewards[self.player] if self.found.best.admissible else outside
        if mine < own - TOLERANCE:
            return f"played on the simulator it gives me {mine:g}, less than the {own:g} of the contract I propose"
        return None
