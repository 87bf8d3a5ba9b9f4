"""Steps said in order ("A, then B") are planned in that order, and a wait said as a step holds back only the later
steps of its clause: the plan steps that carry out each part of a clause come after those of the part before it."""

from __future__ import annotations

from blockpact.agents.scripted.plan_steps import Step, blocks_of
from blockpact.judge.contract import Assignment, Craft, Deposit, Quota, Return, Signal, WaitFor, Withdraw, parts
from blockpact.judge.clauses import Clause, Exclusion, ForEach, Steps


class OrderingPart:
    """The ordering part of a plan's compiler (`contract_plan._Compiler`), which holds the state it reads."""

    def order_steps(self) -> None:
        """Steps said in order ("A, then B") are done in that order: the plan steps that carry out B come after those
        that carry out A; a wait said as a step holds back every later step of its clause."""
        def serving(ids: set[str]) -> list[Step]:
            return [st for st in self.plan.steps if any(st.id == h or st.id.startswith(h + ":") for h in ids)]

        for n, clause in enumerate(self.contract.clauses, 1):
            for sequence in ordered_sequences(clause):
                before = {st.id: list(st.after) for st in self.plan.steps}
                done: list[Step] = []
                for part in sequence:
                    own = serving(self.carrying_out(n, (part,)))
                    for step in own:
                        step.after = [*step.after, *(d.id for d in done if d not in own and d.id not in step.after)]
                    done += [st for st in own if st not in done]
                if _has_cycle(self.plan.steps):  # the order contradicts what the plan needs first: kept unordered
                    for st in self.plan.steps:
                        st.after = before.get(st.id, st.after)
                    self.note(n, "its steps cannot be done in the order it says with the rest of the plan")
        for wait, n, later in self.gates:
            for step in serving(self.carrying_out(n, later)):
                if step.id != wait and wait not in step.after:
                    step.after = [*step.after, wait]

    def hold_back(self) -> None:
        """"Bo does not take the iron_pickaxe until Ann has signalled": every step of Bo's that would take it (or mine
        the block, or take from the chest) waits for a signal from each sender first; nothing else waits."""
        for n, ban in self.held_back:
            acts = [st for st in self.plan.steps if _does(st, ban, self)]
            if not acts:
                continue
            waits = [self.plan.add(Step(f"wait:{s}:{n}", "wait_signal", f"wait for {s}'s signal (clause {n})",
                                        args={"from": s, "blocking": True, "patience": 0})) for s in ban.until_signals_from]
            for step in acts:
                step.after = [*step.after, *(w.id for w in waits if w.id not in step.after)]
            if _has_cycle(self.plan.steps):
                for step in acts:
                    step.after = [a for a in step.after if a not in {w.id for w in waits}]
                self.plan.steps = [st for st in self.plan.steps if st not in waits]
                self.note(n, "not kept: the signal it waits for comes only after the steps it holds back")

    def carrying_out(self, n: int, later: tuple[Clause, ...]) -> set[str]:
        """The ids (or id prefixes) of this player's plan steps that carry out the parts `later` of clause `n`."""
        me, held = self.player, set()
        for part in (leaf for step in later for leaf in parts(step)):
            if getattr(part, "player", me) != me:
                continue
            if isinstance(part, Withdraw):
                held.add(f"withdraw:{n}")
            elif isinstance(part, Deposit):
                held.add(f"deposit:{n}")
            elif isinstance(part, Return):
                held |= {f"putback:{n}", f"return:{part.item}"}
            elif isinstance(part, Craft):
                held |= {f"make:{n}", f"fetch:{n}"}
            elif isinstance(part, Signal):
                held.add("done")
            elif isinstance(part, WaitFor):
                held.add(f"wait:{part.signaller}:{n}" if id(part) in self.gated else f"wait:{part.signaller}")
            elif isinstance(part, (Assignment, Quota)) and part.verb == "take":
                held.add(f"take:{part.target}")
            elif isinstance(part, (Assignment, Quota)):
                held |= {f"mine:{b}" for b in blocks_of(part.verb, part.target, self.facts)}
        return held


def _has_cycle(steps: list[Step]) -> bool:
    after = {s.id: s.after for s in steps}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str) -> bool:
        if state.get(node) == 1:
            return True
        if state.get(node) == 2 or node not in after:
            return False
        state[node] = 1
        if any(visit(a) for a in after[node]):
            return True
        state[node] = 2
        return False

    return any(visit(s.id) for s in steps)


def ordered_sequences(clause: Clause) -> list[tuple[Clause, ...]]:
    """The steps of each sequence said in order within `clause` ("A, then B, then C")."""
    if isinstance(clause, Steps):
        own = [tuple(clause.parts)] if clause.ordered else []
        return own + [s for p in clause.parts for s in ordered_sequences(p)]
    if isinstance(clause, ForEach):
        return [s for p in clause.parts for s in ordered_sequences(p)]
    return []


def _does(step: Step, ban: Exclusion, plan: OrderingPart) -> bool:
    """Whether carrying out `step` would do what `ban` holds back: mining its block, taking its item (from its chest)."""
    if ban.verb in ("mine", "collect"):  # no target: any mining
        return step.op == "mine" and (ban.target is None or step.args.get("block") in blocks_of(ban.verb, ban.target, plan.facts))
    chest = plan.facts.chest_named(ban.chest) if ban.chest else None
    options = step.args.get("options") if step.op == "take_tool" else [step.args] if step.op in ("take", "wait_items") else []
    return any((ban.target is None or o.get("item") == ban.target)  # type: ignore[union-attr]
               and (chest is None or list(o.get("chest") or []) == list(chest)) for o in options or [])  # type: ignore[union-attr]

