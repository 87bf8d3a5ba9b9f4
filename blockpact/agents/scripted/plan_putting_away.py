"""Putting away what a plan's player owes: its deposits (as soon as it holds the items, or what it has near a
deadline), the items it takes and must put back, the tools it returns when taking turns, and its signals."""

from __future__ import annotations

from blockpact.agents.scripted.plan_steps import Step

DEADLINE_MARGIN = 15.0  # seconds before a deadline the player stops mining to put a tool back, or deposits what it has


class PuttingAwayPart:
    """The deposits, returns and signals of a plan's compiler (`contract_plan._Compiler`), which holds the state it reads."""

    def put_away(self) -> None:
        facts = self.facts
        mines = {s.args["block"]: s.id for s in self.plan.steps if s.op == "mine"}
        makes = [s.id for s in self.plan.steps if s.op in ("craft", "smelt")]
        for n, dep in self.deposits:
            chest = facts.chest_named(dep.chest)
            from_mining = [mines[b] for b in facts.blocks_dropping(dep.item) if b in mines] + (
                [mines[dep.item]] if dep.item in mines else [])
            after = from_mining or (makes[-1:] if dep.item in {s.args.get("item") for s in self.plan.steps if s.op == "craft"} else [])
            by = None if dep.by is None else max(dep.by - DEADLINE_MARGIN, 0.0)
            if by is not None:  # a deadline: deposit as soon as it holds the items (or what it has, near the deadline)
                after = makes[-1:] if not from_mining and after else []
            self.plan.add(Step(f"deposit:{n}", "deposit",
                               f"deposit {'all' if dep.count is None else dep.count} {dep.item} into the chest at {list(chest)}"
                               + (f" by {dep.by:g} s" if dep.by is not None else ""),
                               after=after, args={"chest": list(chest), "item": dep.item, "count": dep.count,
                                                  "again": bool(from_mining) and dep.count is None and by is None,
                                                  "by": by}))
        for n, back in self.returns:  # "puts every item it takes back": after its withdrawals and its first round
            chest = facts.chest_named(back.chest) if back.chest else facts.chest_with(back.item)
            if chest is None:
                self.note(n, f"no chest to put the {back.item} back into")
                continue
            after = [s.id for s in self.plan.steps if s.op == "mine" or (s.op == "take" and s.args.get("item") == back.item)]
            if back.by is not None:  # stop mining with the tool in time to put it back by the deadline
                stop = max(back.by - DEADLINE_MARGIN, 0.0)
                for step in self.plan.steps:
                    if step.op == "mine" and back.item in step.args.get("harvest_with", []):
                        step.args["limits"].append({"count": 0, "period": None, "from": stop, "until": None})
                self.note(n, f"stops mining with the {back.item} at {stop:g} s to put it back by {back.by:g} s")
            self.plan.add(Step(f"putback:{n}", "deposit", f"put every {back.item} back into the chest at {list(chest)}",
                               after=after, args={"chest": list(chest), "item": back.item, "count": None, "again": False,
                                                  "by": None}))
        for part in self.firsts:
            users = [s.id for s in self.plan.steps if s.op == "mine" and self.tool_steps.get(part.item) in s.after]
            take = self.tool_steps.get(part.item)
            chest = self.turn_chest[part.item]
            back = self.plan.find(f"return:{part.item}") or self.plan.add(Step(
                f"return:{part.item}", "deposit", f"return the {part.item} to the chest at {list(chest)}",
                after=[*([take] if take else []), *users], args={"chest": list(chest), "item": part.item, "count": 1, "again": False}))
            if part.signal:
                self.plan.add(Step(f"returned:{part.item}:{part.then}", "signal", f"signal {part.then} that the {part.item} is back",
                                   after=[back.id], args={"task": f"the {part.item} is back in the chest"}))

    def signal_when_done(self) -> None:
        """Signal once the deposits, crafts and returns others may wait for are done; with a deadline, by then even if
        they are not (the program sends it when the deadline nears, `DEADLINE_MARGIN` before it)."""
        after = [s.id for s in self.plan.steps if s.op in ("deposit", "craft", "smelt", "place") and s.id.split(":")[0] != "return"]
        after += [s.id for s in self.plan.steps if s.id.startswith("return:")]
        by = None if self.signal_by is None else max(self.signal_by - DEADLINE_MARGIN, 0.0)
        self.plan.add(Step("done", "signal", "signal that its part is done" + (
            f" (by {self.signal_by:g} s, done or not)" if self.signal_by is not None else ""),
            after=after, args={"task": "done", "by": by}))
