"""The clause forms a negotiator is shown, made from the clause kinds themselves and the world's own names.

Each example is a clause object rendered to its controlled-form sentence and read back by the parser
with the world: only sentences that read back to the same clause are shown, so the list cannot drift
from the language (a clause kind the parser stops reading disappears from the prompt, and a test fails).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from blockpact.judge.clauses import (
    Assignment, ChestPayment, Clause, Deposit, Exclusion, FailurePayment, FixedTransfer, ForEach, Give, MineOnly, Penalty,
    PerUnitTransfer, Pool, ProportionalTransfer, Quota, RegionLimit, Return, RewardSplit, Signal, Steps, ThresholdTransfer, TotalQuota,
    TurnTaking, WaitFor, Window, Withdraw,
)
from blockpact.judge.contract import parse_contract
from blockpact.judge.contract_render import render_clause
from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class Names:
    """The world's names an example uses: two players, a block, an item, a chest, a region, a tool."""

    me: str
    other: str
    block: str
    item: str
    chest: str | None
    region: str | None
    tool: str | None
    condition: object | None
    half: float  # half the episode, in seconds
    players: tuple[str, ...] = ()


def _names(spec: WorldSpec, player: str) -> Names:
    """The names the examples use: the block whose drops are worth most, an item it drops, a chest
    holding a tool (else any), the region holding that block (else any), a condition of the rules."""
    from blockpact.worlds.rules import game
    from blockpact.worlds.state import WorldState

    state = WorldState(spec)
    others = [p for p in sorted(spec.players) if p != player] or [player]

    def worth(block: str) -> float:
        return sum(spec.value(p, i) * n for p in spec.players for i, n in game.expected_drops(state, block).items())

    blocks = sorted(set(spec.blocks.values()), key=lambda b: (-worth(b), b))
    block = blocks[0] if blocks else "stone"
    drops = sorted(game.expected_drops(state, block), key=lambda i: (-spec.value(player, i), i))
    chests = sorted(spec.chests.values(), key=lambda c: (not any(_is_tool(i) for i in c.items), c.name))
    tools = sorted(i for i in (chests[0].items if chests else {}) if _is_tool(i))
    regions = sorted(spec.regions.values(), key=lambda r: (not any(r.contains(c) and b == block for c, b in spec.blocks.items()), r.name))
    conditions = [c for r in spec.rules for c in r.when]
    return Names(player, others[0], block, drops[0] if drops else "emerald", chests[0].name if chests else None,
                 regions[0].name if regions else None, tools[0] if tools else None,
                 conditions[0] if conditions else None, spec.episode_seconds / 2, tuple(sorted(spec.players)))


def _is_tool(item: str) -> bool:
    return item.endswith(("_pickaxe", "_axe", "_shovel", "_hoe", "_sword", "_shears"))


Example = Callable[[Names], Clause | None]

# (what the form is for, how to build one from the world's names): every clause kind of the language.
FORMS: list[tuple[str, Example]] = [
    ("who alone mines what", lambda n: Assignment(n.me, "mine", n.block)),
    ("who does not", lambda n: Exclusion(n.other, "mine", n.block)),
    ("mining no other block", lambda n: MineOnly(n.me, (n.block,))),
    ("mining only in a region", lambda n: RegionLimit(n.me, "mine", None, n.region) if n.region else None),
    ("a quota per period", lambda n: Quota(n.me, "mine", n.block, 5, "at_most", 60.0)),
    ("a quota in a time window", lambda n: Quota(n.me, "mine", n.block, 5, "at_most", window=Window(0.0, n.half))),
    ("a quota from a moment on", lambda n: Quota(n.other, "mine", n.block, 2, "at_least", window=Window(n.half))),
    ("a quota while the world is in some state",
     lambda n: Quota(n.me, "mine", n.block, 3, "at_most", 60.0, condition=n.condition) if n.condition else None),
    ("a total for several players", lambda n: TotalQuota((n.me, n.other), "mine", n.block, 10, "at_most")),
    ("a total per period, in a time window",
     lambda n: TotalQuota((n.me, n.other), "mine", n.block, 20, "at_most", 60.0, window=Window(0.0, n.half))),
    ("putting into a chest", lambda n: Deposit(n.me, n.item, 2, n.chest) if n.chest else None),
    ("putting into a chest by a deadline", lambda n: Deposit(n.me, n.item, 2, n.chest, by=n.half) if n.chest else None),
    ("taking from a chest", lambda n: Withdraw(n.other, n.tool or n.item, 1, n.chest) if n.chest else None),
    ("returning to a chest", lambda n: Return(n.other, n.tool, n.chest) if n.chest and n.tool else None),
    ("whoever takes a tool puts it back",
     lambda n: ForEach(f"whoever takes the {n.tool}", tuple(Return(p, n.tool, n.chest) for p in n.players))  # type: ignore[arg-type]
     if n.chest and n.tool else None),
    ("taking turns with a tool", lambda n: TurnTaking(n.me, n.tool, n.other, True) if n.tool else None),
    ("steps in order", lambda n: Steps((Deposit(n.me, n.item, 1, n.chest), Signal(n.me, n.other)), True) if n.chest else None),
    ("waiting for a signal", lambda n: WaitFor(n.other, n.me)),
    ("not taking a tool before a signal",
     lambda n: Exclusion(n.other, "take", n.tool, chest=n.chest, until_signals_from=(n.me,)) if n.tool and n.chest else None),
    ("a signal", lambda n: Signal(n.me, n.other)),
    ("a signal by a deadline", lambda n: Signal(n.me, n.other, by=n.half)),
    ("a gift of items at the end", lambda n: Give(n.me, n.other, n.item, 2)),
    ("a payment", lambda n: FixedTransfer(n.me, n.other, 11)),
    ("a share of value", lambda n: ProportionalTransfer(n.me, n.other, 0.5, n.item)),
    ("a payment per item", lambda n: PerUnitTransfer(n.me, n.other, 1.5, n.item)),
    ("a payment per item another player gains", lambda n: PerUnitTransfer(n.me, n.other, 2, n.item, "collect", 0, n.other)),
    ("a payment per item beyond a number", lambda n: PerUnitTransfer(n.other, n.me, 2, n.item, "collect", 3)),
    ("a payment per item beyond a number in each period",
     lambda n: PerUnitTransfer(n.other, n.me, 2, n.block, "mine", 5, None, 60.0)),
    ("a payment if more than a number", lambda n: ThresholdTransfer(n.other, n.me, 10, "mine", n.block, 4)),
    ("a payment on what a chest holds at the end",
     lambda n: ChestPayment(n.other, n.me, 5, n.chest, n.item, ">=", 2) if n.chest else None),
    ("a payment if a deed is not done",
     lambda n: FailurePayment(Deposit(n.me, n.item, 2, n.chest, by=n.half), (n.other,), 5) if n.chest else None),
    ("sharing rewards equally", lambda n: Pool((n.me, n.other))),
    ("splitting the total reward", lambda n: RewardSplit((n.me, n.other), (0.6, 0.4))),
    ("a penalty", lambda n: Penalty((), None, 5, ())),
]


def contract_forms(spec: WorldSpec, player: str) -> list[tuple[str, str]]:
    """(what it is for, sentence) for each clause kind, in the world's names, that the parser reads back."""
    names = _names(spec, player)
    players = sorted(spec.players)
    out = []
    for purpose, build in FORMS:
        try:
            clause = build(names)
        except (TypeError, ValueError):
            continue
        if clause is None:
            continue
        sentence = render_clause(clause, world=spec.name)
        [read] = parse_contract(f"1. {sentence}", players, spec=spec).clauses or (None,)
        if read == clause:
            out.append((purpose, sentence))
    return out


def forms_text(spec: WorldSpec, player: str) -> str:
    return "\n".join(f'  "{sentence}"  ({purpose})' for purpose, sentence in contract_forms(spec, player))
