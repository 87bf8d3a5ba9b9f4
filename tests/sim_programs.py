"""Small Python programs on the simulator's primitive API, for tests that need cheap episodes.

The product's scripted players write JavaScript (blockpact.agents.scripted); these Python ones play
the same two strategies directly on `AgentAPI`, without Node: `greedy` plays for itself;
`social_split` follows the welfare-maximising assignment of each valued block to the player who
values it most. `run_policy` plays one finished episode with every player on one policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from blockpact.worlds.rules import game as rules
from blockpact.worlds.sim.primitives import AgentAPI
from blockpact.worlds.sim.simulator import Simulation
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.state import WorldState

Policy = Callable[[AgentAPI], Awaitable[object]]


def block_values(state: WorldState, player: str) -> dict[str, float]:
    """Expected emeralds to `player` for harvesting one block of each kind present in the world."""
    out: dict[str, float] = {}
    for block in sorted(set(state.spec.blocks.values())):
        value = sum(state.spec.value(player, item) * n for item, n in rules.expected_drops(state, block).items())
        if value > 0:
            out[block] = value
    return out


def chest_tools(state: WorldState) -> list[tuple[tuple[int, int, int], str]]:
    return [(pos, item) for pos, chest in sorted(state.chests.items()) for item in sorted(chest) if item in state.data.tools()]


async def _take_tool(api: AgentAPI, blocks: list[str], prefer_weakest: bool) -> None:
    """Take one tool from a chest: the one that harvests the most of `blocks` (or the weakest that
    harvests them all, leaving better tools to others), falling back when another player was first."""
    state = api.state
    if any(all(rules.can_harvest(state, b, t) for b in blocks) for t in api.inventory if t in state.data.tools()):
        return
    options = chest_tools(state)

    def score(option: tuple[tuple[int, int, int], str]) -> tuple:
        tool = option[1]
        covered = sum(rules.can_harvest(state, b, tool) for b in blocks)
        capability = sum(rules.can_harvest(state, b, tool) for b in set(state.spec.blocks.values()))
        return (-covered, capability if prefer_weakest else -capability, tool)

    for pos, tool in sorted(options, key=score):
        got = await api.get_item_from_chest(pos, {tool: 1})
        if got:
            return


async def _mine_all(api: AgentAPI, blocks: list[str]) -> None:
    for block in blocks:
        while await api.mine_block(block, 64):
            pass


def greedy(api: AgentAPI) -> Awaitable[None]:
    """Scripted greedy player: best tool for itself, then mines whatever is worth most to it."""
    values = block_values(api.state, api.name)
    targets = sorted(values, key=lambda b: (-values[b], b))

    async def run() -> None:
        await _take_tool(api, targets, prefer_weakest=False)
        await _mine_all(api, targets)

    return run()


def social_assignment(state: WorldState) -> dict[str, list[str]]:
    """Each valued block kind goes to the player who values it most (ties: first player by name)."""
    per_player = {p: block_values(state, p) for p in sorted(state.spec.players)}
    assignment: dict[str, list[str]] = {p: [] for p in per_player}
    for block in sorted({b for v in per_player.values() for b in v}):
        best = max(per_player, key=lambda p: (per_player[p].get(block, 0.0), -sorted(per_player).index(p)))
        assignment[best].append(block)
    return assignment


def social_split(api: AgentAPI) -> Awaitable[None]:
    """Scripted cooperative player: mines only the blocks the welfare-maximising split gives it."""
    mine = social_assignment(api.state)[api.name]

    async def run() -> None:
        if mine:
            await _take_tool(api, mine, prefer_weakest=True)
            await _mine_all(api, mine)

    return run()


POLICIES: dict[str, Callable[[AgentAPI], Awaitable[object]]] = {"greedy": greedy, "social_split": social_split}


def run_policy(spec: WorldSpec, policy: str, seed: int) -> Simulation:
    """One finished episode in which every player runs `policy`."""
    sim = Simulation(spec, seed=seed)
    asyncio.run(sim.run({p: POLICIES[policy] for p in spec.players}))
    sim.finish()
    return sim
