"""How a contract is read, clause by clause: in a formal form (the formal judge settles it, the scripted
players can follow it) or as free text that neither reads (and why).

Uses only the judge's public parser (`parse_contract`) and what its clause objects say about themselves
(`FreeText` and its reason), so it keeps working whatever grammar is behind the parser. Used by
`blockpact contract check`, by `blockpact run` (a warning before the run), by metrics.json and the
report (a warning for every contract a run played under, given or negotiated), and by the negotiators
(every proposal's reading, agents/negotiation_reading.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from blockpact.judge.contract import FreeText, parse_contract, render_clause
from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class ClauseReading:
    number: int
    text: str  # the clause as written
    formal: bool
    form: str  # the formal form ("FixedTransfer(payer=..., ...)"), or "free text"
    reason: str | None  # why a free-text clause is not formal
    kind: str = "free text"  # the clause kind ("exclusion", "deposit then signal (in this order)", ...)

    def line(self) -> str:
        if self.formal:
            return f"{self.number}. formal  {self.form}: {self.text}"
        return f"{self.number}. free text ({self.reason or 'not in the controlled form'}): {self.text}"


def _form(clause: object) -> str:
    if not dataclasses.is_dataclass(clause):
        return repr(clause)
    shown = [f for f in dataclasses.fields(clause)
             if f.default is dataclasses.MISSING or getattr(clause, f.name) != f.default]  # defaults left out
    fields = ", ".join(f"{f.name}={_form(getattr(clause, f.name)) if dataclasses.is_dataclass(getattr(clause, f.name)) else repr(getattr(clause, f.name))}" for f in shown)
    return f"{type(clause).__name__}({fields})"


def _sentence(clause: object, world: str | None) -> str:
    """The clause in the controlled form (a clause kind the renderer does not know: its form)."""
    try:
        return render_clause(clause, world=world)  # type: ignore[arg-type]
    except TypeError:
        return _form(clause)


def read_contract(text: str, players: Sequence[str], world: str | WorldSpec | None) -> list[ClauseReading]:
    """Each clause's reading; with the world's spec (not only its name) clauses may name its chests and regions."""
    spec = world if isinstance(world, WorldSpec) else None
    name = spec.name if spec is not None else world
    contract = parse_contract(text, sorted(players), world=name, spec=spec)
    readings = []
    for number, clause in enumerate(contract.clauses, 1):
        if isinstance(clause, FreeText):
            readings.append(ClauseReading(number, clause.text, False, "free text", clause.reason or None))
        else:
            readings.append(ClauseReading(number, _sentence(clause, name), True, _form(clause), None, clause.kind))
    return readings


def free_text_warning(text: str, players: Sequence[str], world: str | WorldSpec | None, where: str) -> str | None:
    """One line listing the clauses of `text` that no formal check and no scripted player reads, or None."""
    loose = [r for r in read_contract(text, players, world) if not r.formal]
    if not loose:
        return None
    listed = "; ".join(f"clause {r.number} {r.text!r} ({r.reason or 'not in the controlled form'})" for r in loose)
    return (f"{where}: {len(loose)} clause(s) no formal check and no scripted player reads (only an LLM judge "
            f"can, and no transfer follows from them for the formal judge): {listed}")
