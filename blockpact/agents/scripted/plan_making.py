"""Making what a crafting clause names: what the player can make it from (its inventory, what others deposit for it,
what it may take from chests), where to fetch each missing item, and the recipe steps (every level, a crafting table
or furnace placed where none stands) after the fetches."""

from __future__ import annotations

from collections import Counter

from blockpact.agents.scripted.plan_steps import Step
from blockpact.judge.contract import Craft, Deposit, parts
from blockpact.worlds.spec.schema import Vec


class MakingPart:
    """The crafting part of a plan's compiler (`contract_plan._Compiler`), which holds the state it reads."""

    def holdings(self) -> tuple[Counter[str], dict[str, tuple[Vec, bool]]]:
        """What the player can make things from: its inventory, what others deposit, what it may take from chests;
        and for each item not held, where to fetch it (the chest, and whether to wait for a deposit)."""
        me, facts = self.player, self.facts
        have: Counter[str] = Counter(self.spec.players[me].inventory)
        source: dict[str, tuple[Vec, bool]] = {}
        for clause in self.contract.clauses:
            for part in parts(clause):
                if isinstance(part, Deposit) and part.player != me and (chest := facts.chest_named(part.chest)) is not None:
                    held = self.spec.players[part.player].inventory.get(part.item, 0)
                    have[part.item] += held if part.count is None else min(part.count, held) or part.count
                    source.setdefault(part.item, (chest, True))
        for pos, chest in sorted(self.spec.chests.items()):
            if chest.owner in (None, "shared", me):
                for item, count in chest.items.items():
                    if item not in self.reserved:
                        have[item] += count
                        source.setdefault(item, (pos, False))
        return have, source

    def make(self, n: int, craft: Craft) -> None:
        facts = self.facts
        have, source = self.holdings()
        own = Counter(self.spec.players[self.player].inventory)
        taken: list[str] = []  # the withdrawals a clause asks: what they bring is held, not fetched again
        for item, withdrawals in self.withdrawn.items():
            own[item] += sum(count for count, _ in withdrawals)
            have[item] = max(have[item], own[item])
            taken += [step_id for _, step_id in withdrawals]
        plan = facts.planner.plan(craft.item, craft.count, have, table=facts.on_map("crafting_table"),
                                  furnace=facts.on_map("furnace"))
        if plan is None:
            held = ", ".join(f"{k} {v}" for k, v in sorted(have.items())) or "nothing"
            self.note(n, f"cannot make {craft.item} from what it holds, is deposited for it or may take ({held})")
            return
        taken = [step_id for step_id in taken if self.plan.find(step_id).args["item"] in plan.used]  # type: ignore[union-attr]
        previous = list(taken)
        near: Vec = self.spec.players[self.player].spawn
        for item, count in sorted(plan.used.items()):
            lacking = count - own[item]
            if lacking <= 0 or item not in source:
                continue
            chest, deposited = source[item]
            near = chest
            after = []
            if deposited:
                wait = self.plan.find(f"deposits:{list(chest)}") or self.plan.add(
                    Step(f"deposits:{list(chest)}", "wait_items", f"wait for the deposits into the chest at {list(chest)}",
                         args={"chest": list(chest), "items": {}, "blocking": False, "patience": self.patience,
                               "gives_up": True}))
                wait.after = [*wait.after, *(t for t in taken if t not in wait.after)]  # what is left once it has taken its part
                wait.args["items"][item] = lacking + facts.spec.chests[chest].items.get(item, 0)  # type: ignore[index]
                after = [wait.id]
            fetch = self.plan.add(Step(f"fetch:{n}:{item}", "take", f"take {lacking} {item} from the chest at {list(chest)}",
                                       after=[*after, *taken], args={"chest": list(chest), "item": item, "count": count}))
            previous.append(fetch.id)
        for i, step in enumerate(plan.steps):
            args: dict[str, object] = {"item": step.item, "count": step.count}
            if step.kind == "smelt":
                args["fuel"] = step.fuel
            if step.kind == "place":
                args["positions"] = [list(c) for c in facts.free_cells_near(near)]
            made = self.plan.add(Step(f"make:{n}:{i}", step.kind, step.describe(), after=list(previous), args=args))
            previous = [made.id]
        if previous and craft.item in facts.tools():
            self.tool_steps.setdefault(craft.item, previous[0])
