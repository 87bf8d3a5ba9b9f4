"""A contract compiled into one player's plan: steps with dependencies, for the cooperative program to carry out.

From the formal clauses, the world's recipes (minecraft-data, as the simulator reads them) and what every player
and chest holds, the plan says what the player waits for (a signal, deposits in a chest), fetches, makes (every
recipe level, a crafting table or furnace placed where none stands), mines (with the tool it takes, crafts or is
lent, within every quota window), deposits, returns and signals, and in which order. Every clause it cannot keep
is noted with the reason. Settlement clauses (transfers, gifts, sharing, penalties) need no action.
"""

from __future__ import annotations

import re

from blockpact.agents.scripted.plan_making import MakingPart
from blockpact.agents.scripted.plan_mining import MiningPart
from blockpact.agents.scripted.plan_order import OrderingPart
from blockpact.agents.scripted.plan_putting_away import PuttingAwayPart
from blockpact.agents.scripted.plan_steps import Limit, Plan, Step, blocks_of, quota_share
from blockpact.agents.scripted.plan_tools import ToolsPart
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.judge.contract import (
    Assignment, Contract, Craft, Deposit, Exclusion, FixedTransfer, FreeText, Give, MineOnly, Penalty, PerUnitTransfer, Pool,
    ProportionalTransfer, Quota, RegionLimit, Return, RewardSplit, Signal, ThresholdTransfer, TotalQuota, TurnTaking,
    WaitFor, Withdraw, parts,
)
from blockpact.judge.clauses import ChestPayment, Clause, FailurePayment, gated_waits
from blockpact.worlds.spec.schema import Vec

__all__ = ["Limit", "Plan", "Step", "plan_for"]

SETTLED = (Give, Pool, RewardSplit, Penalty, FixedTransfer, ProportionalTransfer, PerUnitTransfer, ThresholdTransfer,
           ChestPayment)
KNOWN = (Assignment, Quota, TotalQuota, TurnTaking, Craft, Deposit, WaitFor, Signal, MineOnly, *SETTLED)
FILLER_PATIENCE = 0.2  # of the episode: how long a player waits for deposits or a tool before mining for itself


class _Compiler(ToolsPart, MakingPart, MiningPart, PuttingAwayPart, OrderingPart):
    def __init__(self, contract: Contract, player: str, facts: WorldFacts, episode_seconds: float) -> None:
        self.contract, self.player, self.facts = contract, player, facts
        self.spec = facts.spec
        self.patience = FILLER_PATIENCE * episode_seconds
        self.plan = Plan()
        self.blocking: list[str] = []
        self.targets: dict[str, list[Limit]] = {}  # block -> limits, in the order the contract names them
        self.at_least: dict[str, int] = {}
        self.assigned_to_others: set[str] = set()
        self.reserved: set[str] = set()  # tools others take, or that turn-taking hands round
        self.tool_steps: dict[str, str] = {}  # tool item -> the step after which the player holds it
        self.turn_chest: dict[str, Vec] = {}
        self.firsts: list[TurnTaking] = []
        self.turn_parts: list[tuple[int, TurnTaking]] = []
        self.deposits: list[tuple[int, Deposit]] = []
        self.crafts: list[tuple[int, Craft]] = []
        self.signals = False
        self.signal_by: float | None = None  # the earliest deadline a signal clause of its sets
        self.excluded: set[str] = set()  # blocks it must not mine
        self.guards: dict[str, list[dict[str, object]]] = {}  # block -> conditions under which it must not mine it
        self.centres: dict[str | None, list[int]] = {}  # block (None: any) -> the centre of the region it mines in
        self.returns: list[tuple[int, Return]] = []
        self.withdrawn: dict[str, list[tuple[int, str]]] = {}  # item -> (count, step) of each withdrawal a clause asks
        self.only: set[str] | None = None  # the blocks a "mines only" clause leaves it (None: no such clause)
        # waits said as a step ("waits for Ada's signal, then takes ..."): hold back only the later steps of their clause
        self.gated = {id(wait): later for clause in contract.clauses for wait, later in gated_waits(clause)}
        self.gates: list[tuple[str, int, tuple[Clause, ...]]] = []  # (wait step, clause number, the steps it holds back)
        self.held_back: list[tuple[int, Exclusion]] = []  # "does not take X until Ann has signalled" (plan_order)

    def note(self, number: int, text: str) -> None:
        self.plan.notes.append(f"clause {number}: {text}")

    def compile(self) -> Plan:
        me = self.player
        for n, clause in enumerate(self.contract.clauses, 1):
            for part in parts(clause):
                self.read(n, part, me)
        if self.only is not None:  # every other block of the world is ruled out; the blocks left are its work
            self.excluded.update(b for b in set(self.spec.blocks.values()) if b not in self.only)
            for block in sorted(self.only - self.assigned_to_others - self.excluded):
                self.targets.setdefault(block, [])
        self.filler = not self.targets
        if self.filler:  # no blocks the contract names: what is worth something to it and nobody else's
            values = self.facts.block_values(me)
            for b in sorted((b for b in values if b not in self.assigned_to_others), key=lambda b: (-values[b], b)):
                self.targets[b] = []
        for block in self.excluded:
            self.targets.pop(block, None)
        for n, part in self.turn_parts:
            self.turn(n, part)
        self.turns()
        for n, craft in self.crafts:
            self.make(n, craft)
        self.mining()
        self.put_away()
        if self.signals:
            self.signal_when_done()
        self.order_steps()
        self.hold_back()
        for step in self.plan.steps:
            if step.id not in self.blocking:
                step.after = [*self.blocking, *(a for a in step.after if a not in self.blocking)]
        self.plan.notes.sort(key=lambda note: int(m.group(1)) if (m := re.match(r"clause (\d+)", note)) else 1 << 30)
        order = {"wait_signal": 0, "deposit": 1, "signal": 2}
        self.plan.steps.sort(key=lambda s: (s.filler, order.get(s.op, 3) if not s.args.get("again") else 3))
        return self.plan

    def read(self, n: int, part: object, me: str) -> None:
        if isinstance(part, FailurePayment):  # the payment is avoided by doing the deed: planned as if promised
            self.read(n, part.deed, me)
            return
        if isinstance(part, Assignment):
            blocks = blocks_of(part.verb, part.target, self.facts)
            if part.verb in ("mine", "collect") and not blocks:
                self.note(n, f"no block in this world yields {part.target}")
            if part.player == me:
                for b in blocks:
                    self.targets.setdefault(b, [])
                if part.verb == "take":
                    self.take_tool(n, part.target)
            else:
                self.assigned_to_others.update(blocks)
                if part.verb == "take":
                    self.reserved.add(part.target)
        elif isinstance(part, (Quota, TotalQuota)):
            share = quota_share(part, me)
            if share is None:
                return
            if part.verb == "take":
                self.note(n, f"takes only the tools it needs, which keeps the quota on {part.target}")
                return
            blocks = blocks_of(part.verb, part.target, self.facts)
            if not blocks:
                self.note(n, f"no block in this world yields {part.target}")
            for b in blocks:
                per = self.facts.max_drop(b, part.target) if part.verb == "collect" else 1
                limits = self.targets.setdefault(b, [])
                if part.bound == "at_most":
                    window = getattr(part, "window", None)  # a time window, where the contract language has them
                    limits.append(Limit(share // per, part.period, window and window.start, window and window.end))
                else:
                    self.at_least[b] = max(self.at_least.get(b, 0), -(-share // per))
        elif isinstance(part, TurnTaking):
            self.reserved.add(part.item)
            if me in (part.first, part.then):
                self.turn_parts.append((n, part))
        elif isinstance(part, Craft) and part.player == me:
            self.crafts.append((n, part))
            if part.by is not None:
                self.note(n, f"makes the {part.item} as soon as it has what it takes; the deadline of {part.by:g} s is "
                             "not watched")
        elif isinstance(part, Deposit) and part.player == me:
            if self.facts.chest_named(part.chest) is None:
                self.note(n, f"the world has no chest named {part.chest!r}")
            else:
                self.deposits.append((n, part))
        elif isinstance(part, WaitFor) and part.player == me:
            later = self.gated.get(id(part))
            step = self.plan.add(Step(f"wait:{part.signaller}" + (f":{n}" if later else ""), "wait_signal",
                                      f"wait for {part.signaller}'s signal" + (f" (clause {n}'s later steps)" if later else ""),
                                      args={"from": part.signaller, "blocking": True, "patience": 0}))
            if later is None:
                self.blocking.append(step.id)
            else:
                self.gates.append((step.id, n, later))
        elif isinstance(part, (WaitFor, Signal)):
            self.signals |= (part.signaller if isinstance(part, WaitFor) else part.player) == me
            if isinstance(part, Signal) and part.player == me and part.by is not None:
                self.signal_by = part.by if self.signal_by is None else min(self.signal_by, part.by)
        elif isinstance(part, Exclusion):
            if part.player == me:
                self.exclude(n, part)
        elif isinstance(part, MineOnly):
            if part.player == me:
                self.only = set(part.blocks) if self.only is None else self.only & set(part.blocks)
                if part.window is not None:
                    self.note(n, "mines only these blocks for the whole episode (its window only narrows it)")
        elif isinstance(part, Withdraw):
            if part.player == me:
                self.withdraw(n, part)
        elif isinstance(part, Return):
            if part.player == me:
                self.returns.append((n, part))
        elif isinstance(part, RegionLimit):
            if part.player == me and part.region in self.spec.regions:
                box = self.spec.regions[part.region]
                self.centres[part.target] = [(lo + hi) // 2 for lo, hi in zip(box.lo, box.hi)]
                self.note(n, f"mines from the {part.region}'s centre, nearest blocks first, which may lie outside it")
        elif isinstance(part, FreeText):
            # why, when the world refused it (no such chest, a block it never has); a sentence outside the grammar is its own why
            why = f" ({part.reason})" if part.reason and not part.reason.startswith("not in the controlled form") else ""
            self.plan.notes.append(f"clause {n} is free text a script cannot follow{why}: {part.text}")
        elif not isinstance(part, KNOWN):
            self.note(n, f"a {part.kind} clause, which the scripted player does not act on")
        if getattr(part, "player", me) != me or isinstance(part, (FreeText, Exclusion)):
            return
        if getattr(part, "window", None) is not None and not isinstance(part, (Quota, TotalQuota)):
            self.note(n, f"its time window is not kept by the scripted player, which acts on the {part.kind} throughout")
        if getattr(part, "condition", None) is not None:
            self.note(n, f"its condition ({part.condition}) is not watched: the {part.kind} is kept at all times")
        if getattr(part, "region", None) is not None and not isinstance(part, RegionLimit):
            self.note(n, f"mines the nearest blocks, inside the {part.region} or not")

    def exclude(self, n: int, part: Exclusion) -> None:
        if part.until_signals_from:
            self.held_back.append((n, part))
            return
        if part.verb == "take" and part.target is not None:
            self.reserved.add(part.target)
        elif part.verb == "take" and part.chest:  # "takes nothing from the pot": none of what the chest holds
            held = next((c.items for c in self.spec.chests.values() if c.name == part.chest), {})
            self.reserved.update(held)
            self.note(n, f"takes no tool from the {part.chest} chest")
        elif part.target is None:
            self.note(n, f"stays out of the {part.region} only as far as its own blocks lie elsewhere")
        elif part.condition is not None and part.window is None and part.condition.region in self.spec.regions:
            box, cond = self.spec.regions[part.condition.region], part.condition
            for block in blocks_of(part.verb, part.target, self.facts):
                # Mining the counted block lowers the count, and the others may dig between its count and its dig:
                # a margin of two digs for each other player keeps "while fewer than N" from being crossed by the crowd.
                margin = 2 * (len(self.spec.players) - 1) if block == cond.block and cond.op in ("<", "<=") else 0
                self.guards.setdefault(block, []).append({"block": cond.block, "op": cond.op, "count": cond.count + margin,
                                                          "lo": list(box.lo), "hi": list(box.hi)})
                self.note(n, f"counts the {cond.block} in the {cond.region} before each dig of {block}, and does not "
                          f"mine it while {cond.block} in {cond.region} {cond.op} {cond.count + margin}"
                          + (f" ({cond.count} and a margin of {margin} for the others' digs)" if margin else ""))
            return
        else:
            self.excluded.update(blocks_of(part.verb, part.target, self.facts))
        if part.window is not None or part.condition is not None:
            self.note(n, "kept for the whole episode (its window or condition only narrows it)")

    def withdraw(self, n: int, part: Withdraw) -> None:
        chest = self.facts.chest_named(part.chest) if part.chest else self.facts.chest_with(part.item)
        if chest is None:
            self.note(n, f"no chest to take {part.item} from")
            return
        step_id = f"withdraw:{n}" if self.plan.find(f"withdraw:{n}") is None else f"withdraw:{n}:{part.item}"
        self.plan.add(Step(step_id, "take", f"take {part.count} {part.item} from the chest at {list(chest)}",
                           # the program's take fills the inventory up to `count`: what it holds already is not taken
                           args={"chest": list(chest), "item": part.item,
                                 "count": part.count + self.spec.players[self.player].inventory.get(part.item, 0)}))
        self.withdrawn.setdefault(part.item, []).append((part.count, step_id))  # held once taken: a recipe uses them
        if part.item in self.facts.tools():  # a tool it takes is a tool it mines with
            self.tool_steps.setdefault(part.item, step_id)


def plan_for(contract: Contract, player: str, facts: WorldFacts) -> Plan:
    return _Compiler(contract, player, facts, facts.spec.episode_seconds).compile()
