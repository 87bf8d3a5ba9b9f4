"""The social-optimum contract of a world, derived from its spec alone (for the scripted negotiator).

- each valued block kind goes to the player who expects most emeralds from it (ties: first by name);
- a block that dynamics rules need kept low (`when = "slime_block in river <= 7"`) is cleaned by a
  player with no valued assignment (else the one expecting least);
- with more than two players the transfer only balances the richest and the poorest (a rough
  baseline; the contracting paper has two players);
- each player needing a tool for their blocks takes one chest tool that harvests them (the weakest
  that does); when two need the same single tool, they take turns with a signal;
- a transfer roughly equalises expected rewards: a fixed amount when outcomes are certain (fixed
  drops, no dynamics), else a share of the payer's items' value.
"""

from __future__ import annotations

from collections import Counter

from blockpact.judge.clauses import Assignment, Clause, FixedTransfer, ProportionalTransfer, TurnTaking
from blockpact.worlds.rules import game as rules
from blockpact.worlds.spec.schema import WorldSpec
from blockpact.worlds.state import WorldState

# Shares are rounded to this step (5%), fixed amounts to half emeralds.
SHARE_STEP = 0.05
AMOUNT_STEP = 0.5


def _block_values(state: WorldState, players: list[str], blocks: list[str]) -> dict[str, dict[str, float]]:
    spec = state.spec
    return {
        p: {b: sum(spec.value(p, item) * n for item, n in rules.expected_drops(state, b).items()) for b in blocks}
        for p in players
    }


def kept_low_blocks(spec: WorldSpec) -> list[str]:
    """Blocks whose count a rule needs low: a condition with an upper limit, or a probability that
    falls as the block fills its region (Melting Pot's pollution)."""
    limited = {c.block for rule in spec.rules for c in rule.when if c.op in ("<=", "<")}
    scaled = {
        r.probability_from.block for r in spec.rules
        if getattr(r, "probability_from", None) is not None and r.probability_from.full_at < r.probability_from.zero_at
    }
    return sorted(limited | scaled)


def _tool_clauses(state: WorldState, assigned: dict[str, list[str]]) -> list[Clause]:
    tools = sorted({item for chest in state.chests.values() for item in chest if item in state.data.tools()})
    all_blocks = set(state.spec.blocks.values())

    def strength(tool: str) -> tuple[int, str]:
        return (sum(rules.can_harvest(state, b, tool) for b in all_blocks), tool)

    needs = {
        p: sorted((t for t in tools if all(rules.can_harvest(state, b, t) for b in blocks)), key=strength)
        for p, blocks in assigned.items()
        if blocks and any(rules.harvest_tools(state, b) for b in blocks)
    }
    holder: dict[str, str] = {}
    clauses: list[Clause] = []
    for player in sorted(needs, key=lambda p: (len(needs[p]), p)):
        free = [t for t in needs[player] if t not in holder]
        if free:
            holder[free[0]] = player
            clauses.append(Assignment(player, "take", free[0]))
        elif needs[player]:
            shared = needs[player][0]
            clauses.append(TurnTaking(holder[shared], shared, player, True))
    return clauses


def _transfer(state: WorldState, assigned: dict[str, list[str]], values: dict[str, dict[str, float]],
              counts: Counter[str]) -> Clause | None:
    expected = {p: sum(values[p][b] * counts[b] for b in blocks) for p, blocks in assigned.items()}
    payer = max(expected, key=lambda p: (expected[p], p))
    payee = min(expected, key=lambda p: (expected[p], p))
    gap = expected[payer] - expected[payee]
    if gap <= 0:
        return None
    certain = not state.spec.rules and all(
        b not in state.spec.drops or len(state.spec.drops[b].counts) == 1 for b in assigned[payer]
    )
    if certain:
        return FixedTransfer(payer, payee, round(gap / 2 / AMOUNT_STEP) * AMOUNT_STEP)
    items = sorted({i for b in assigned[payer] for i in rules.expected_drops(state, b) if state.spec.value(payer, i) > 0})
    share = round(gap / (2 * expected[payer]) / SHARE_STEP) * SHARE_STEP
    return ProportionalTransfer(payer, payee, round(share, 4), items[0]) if items else None


def _assigned(state: WorldState, players: list[str], values: dict[str, dict[str, float]], blocks: list[str]) -> dict[str, list[str]]:
    assigned: dict[str, list[str]] = {p: [] for p in players}
    for block in blocks:
        if any(values[p][block] > 0 for p in players):
            best = max(players, key=lambda p: (values[p][block], -players.index(p)))
            assigned[best].append(block)
    return assigned


def assignment_clauses(spec: WorldSpec) -> list[Clause]:
    """Each valued block to the player expecting most from it, with the tool clauses that needs; empty
    when every player values every block alike (then an assignment only idles players)."""
    state = WorldState(spec)
    players = sorted(spec.players)
    blocks = sorted(set(spec.blocks.values()))
    values = _block_values(state, players, blocks)
    if all(len({values[p][b] for p in players}) == 1 for b in blocks):
        return []
    assigned = _assigned(state, players, values, blocks)
    return [Assignment(p, "mine", b) for p in players for b in assigned[p]] + _tool_clauses(state, assigned)


def social_optimum_clauses(spec: WorldSpec) -> list[Clause]:
    state = WorldState(spec)
    players = sorted(spec.players)
    counts = Counter(spec.blocks.values())
    blocks = sorted(counts)
    values = _block_values(state, players, blocks)
    assigned = _assigned(state, players, values, blocks)
    clauses: list[Clause] = [Assignment(p, "mine", b) for p in players for b in assigned[p]]
    for block in kept_low_blocks(spec):
        idle = [p for p in players if not assigned[p]]
        cleaner = idle[0] if idle else min(players, key=lambda p: (sum(values[p][b] * counts[b] for b in assigned[p]), p))
        clauses.append(Assignment(cleaner, "mine", block))
    clauses += _tool_clauses(state, assigned)
    transfer = _transfer(state, assigned, values, counts)
    return clauses + ([transfer] if transfer else [])
