"""Steps said in order ("A, then B") are planned in that order, and a wait said as a step holds back only the later
steps of its clause: the plan steps that carry out each part of a clause come after those of the part before it."""

from __future__ import annotations

from blockpact.agents.scripted.plan_steps import Step, blocks_of
from blockpact.judge.contract import Assignment, Craft, Deposit, Quota, Return, Signal, WaitFor, Withdraw, parts
from blockpact.judge.clauses import Clause, ForEach, Steps


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
