"""The tools a plan's player takes: from the chest that holds one or that a deposit clause fills, in turn with
another player (waiting for its signal or for the tool in the chest), or lent (waiting until it is deposited)."""

from __future__ import annotations

from blockpact.agents.scripted.plan_steps import Step
from blockpact.judge.contract import Deposit, TurnTaking, parts
from blockpact.worlds.spec.schema import Vec


class ToolsPart:
    """The tools part of a plan's compiler (`contract_plan._Compiler`), which holds the state it reads."""

    def take_tool(self, n: int, item: str, chest: Vec | None = None) -> None:
        """Take `item` from `chest` (None: the chest holding it, or the one a deposit clause puts it into)."""
        chest = chest or self.facts.chest_with(item) or self.deposited_into(item)
        if chest is None:
            if self.spec.players[self.player].inventory.get(item):
                return
            self.note(n, f"no chest holds a {item}")
            return
        step = self.plan.find(f"take:{item}") or self.plan.add(
            Step(f"take:{item}", "take", f"take the {item} from the chest at {list(chest)}",
                 args={"chest": list(chest), "item": item, "count": 1}))
        self.tool_steps[item] = step.id

    def deposited_into(self, item: str) -> Vec | None:
        """The chest some player's deposit clause puts `item` into."""
        for clause in self.contract.clauses:
            for part in parts(clause):
                if isinstance(part, Deposit) and part.item == item:
                    return self.facts.chest_named(part.chest)
        return None

    def turn(self, n: int, part: TurnTaking) -> None:
        found = self.facts.chest_with(part.item) or self.deposited_into(part.item)
        if found is None:
            self.note(n, f"no chest holds a {part.item} to take turns with")
            return
        chest = self.facts.chest_named(part.chest) if part.chest else found  # where it goes back, and is taken next
        if chest is None:
            self.note(n, f"the world has no chest named {part.chest!r} to return the {part.item} to")
            return
        self.turn_chest[part.item] = chest
        uses = any(self.facts.needs_tool(b) and self.facts.harvests(part.item, b) for b in self.targets)
        passes_on = any(p.first == self.player and p.item == part.item for _, p in self.turn_parts)
        if part.then == self.player and (uses or passes_on):
            wait = Step(f"turn:{part.first}:{part.item}", "wait_signal", f"wait for {part.first} to return the {part.item}",
                        args={"from": part.first, "blocking": False, "patience": self.patience})
            if not part.signal:
                wait = Step(f"turn:{part.first}:{part.item}", "wait_items", f"wait for the {part.item} in the chest at {list(chest)}",
                            args={"chest": list(chest), "items": {part.item: 1}, "blocking": False, "patience": self.patience})
            self.plan.add(wait)
            self.take_tool(n, part.item, chest)
            take = self.plan.find(f"take:{part.item}")
            if take is not None:
                take.after.append(wait.id)
        if part.first == self.player:
            self.take_tool(n, part.item)
            self.firsts.append(part)

    def turns(self) -> None:
        """The tools deposited for the player to take (lent): wait until they are in the chest."""
        for item, step_id in self.tool_steps.items():
            take = self.plan.find(step_id)
            if take is None or self.facts.chest_with(item) is not None:
                continue
            wait = self.plan.add(Step(f"lent:{item}", "wait_items", f"wait for the {item} in the chest at {take.args['chest']}",
                                      args={"chest": take.args["chest"], "items": {item: 1}, "blocking": False,
                                            "patience": self.patience}))
            take.after.append(wait.id)
