"""Mining what a plan's player mines: a step per block (with the tool it takes, held, lent or taken from a chest,
within every quota window the contract sets), and the spare blocks it mines for itself when a step of its part
fails for good."""

from __future__ import annotations

from blockpact.agents.scripted.plan_steps import Limit, Step
from blockpact.judge.contract import Assignment, Quota, TotalQuota, parts


class MiningPart:
    """The mining part of a plan's compiler (`contract_plan._Compiler`), which holds the state it reads."""

    def mining(self) -> None:
        self.mine_steps(self.targets, self.filler, fallback=False)
        mentioned = {part.target for clause in self.contract.clauses for part in parts(clause)
                     if isinstance(part, (Assignment, Quota, TotalQuota))}
        values = self.facts.block_values(self.player)
        spare = {b: [] for b in sorted(values, key=lambda b: (-values[b], b))
                 if b not in self.targets and b not in self.assigned_to_others and b not in mentioned | self.excluded}
        if spare:  # what it does for itself when a step of its part fails for good (a tool another player took)
            self.mine_steps(spare, True, fallback=True)

    def mine_steps(self, targets: dict[str, list[Limit]], filler: bool, *, fallback: bool) -> None:
        facts, me = self.facts, self.player
        held = set(self.spec.players[me].inventory)
        lacking = [b for b in targets if facts.needs_tool(b) and not any(facts.harvests(t, b) for t in held)]
        from_chest = [b for b in lacking if fallback or not any(facts.harvests(t, b) for t in self.tool_steps)]
        options = [o for o in facts.tool_options(from_chest, prefer_weakest=True, exclude=frozenset(self.reserved))
                   if self.spec.chests[o.chest].owner in (None, "shared", me)]
        tools_id = "spare tools" if fallback else "tools"
        from_chests = self.plan.add(Step(tools_id, "take_tool", f"take {' or '.join(o.item for o in options)}", filler=filler,
                                         args={"options": [{"chest": list(o.chest), "item": o.item} for o in options],
                                               "fallback": fallback})) if options else None
        for block, limits in targets.items():
            after: list[str] = []
            harvest_with = sorted(t for t in facts.tools() if facts.harvests(t, block)) if facts.needs_tool(block) else []
            if block in lacking:
                mine_with = [self.tool_steps[t] for t in self.tool_steps if facts.harvests(t, block)]
                if mine_with and not fallback:
                    after = mine_with[:1]
                elif from_chests is not None and any(facts.harvests(o["item"], block) for o in from_chests.args["options"]):  # type: ignore[union-attr]
                    after = [from_chests.id]
                else:
                    if not filler:
                        self.plan.notes.append(f"no tool it holds, is lent, crafts or may take harvests {block}")
                    continue
            renew = block in facts.renewing_blocks
            rest = list(self.spec.players[me].spawn) if renew and facts.grows_on_free_cells(block) else None
            limit_args = [{"count": x.count, "period": x.period, "from": x.start, "until": x.until} for x in limits]
            self.plan.add(Step(
                f"{'spare' if fallback else 'mine'}:{block}", "mine",
                ("if its part fails: " if fallback else "") + self.mine_words(block, limits, renew), after=after, filler=filler,
                args={"block": block, "want": None, "renew": renew, "harvest_with": harvest_with, "rest": rest,
                      "centre": self.centres.get(block, self.centres.get(None)),
                      "limits": limit_args, "guards": self.guards.get(block, []), "fallback": fallback}))

    @staticmethod
    def mine_words(block: str, limits: list[Limit], renew: bool) -> str:
        bounds = []
        for x in limits:
            when = f" every {x.period:g} s" if x.period else " in all"
            if x.start is not None or x.until is not None:
                when += f" from {x.start or 0:g} s" + (f" to {x.until:g} s" if x.until is not None else "")
            bounds.append(f"at most {x.count}{when}")
        return f"mine {block}" + (f" ({', '.join(bounds)})" if bounds else "") + (", as it grows back" if renew else "")
