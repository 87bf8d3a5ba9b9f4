"""How a contract is read, clause by clause: in a formal form (the formal judge settles it, the scripted
players can follow it) or as free text that neither reads (and why).

Uses only the judge's public parser (`parse_contract`) and what its clause objects say about themselves
(`FreeText` and its reason), so it keeps working whatever grammar is behind the parser. Used by
`blockpact contract check`, by `blockpact run` (a warning before the run) and by metrics.json and the
report (a warning for every contract a run played under, given or negotiated).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from blockpact.judge.contract import FreeText, parse_contract, render_clause


@dataclass(frozen=True)
class ClauseReading:
    number: int
    text: str  # the clause as written
    formal: bool
    form: str  # the formal form ("FixedTransfer(payer=..., ...)"), or "free text"
    reason: str | None  # why a free-text clause is not formal

    def line(self) -> str:
        if self.formal:
            return f"{self.number}. formal  {self.form}: {self.text}"
        return f"{self.number}. free text ({self.reason or 'not in the controlled form'}): {self.text}"


def _form(clause: object) -> str:
    if not dataclasses.is_dataclass(clause):
        return repr(clause)
    fields = ", ".join(f"{f.name}={getattr(clause, f.name)!r}" for f in dataclasses.fields(clause))
    return f"{type(clause).__name__}({fields})"


def _sentence(clause: object, world: str | None) -> str:
    """The clause in the controlled form (a clause kind the renderer does not know: its form)."""
    try:
        return render_clause(clause, world=world)  # type: ignore[arg-type]
    except TypeError:
        return _form(clause)


def read_contract(text: str, players: Sequence[str], world: str | None) -> list[ClauseReading]:
    contract = parse_contract(text, sorted(players), world=world)
    readings = []
    for number, clause in enumerate(contract.clauses, 1):
        if isinstance(clause, FreeText):
            readings.append(ClauseReading(number, clause.text, False, "free text", clause.reason or None))
        else:
            readings.append(ClauseReading(number, _sentence(clause, world), True, _form(clause), None))
    return readings


def free_text_warning(text: str, players: Sequence[str], world: str | None, where: str) -> str | None:
    """One line listing the clauses of `text` that no formal check and no scripted player reads, or None."""
    loose = [r for r in read_contract(text, players, world) if not r.formal]
    if not loose:
        return None
    listed = "; ".join(f"clause {r.number} {r.text!r} ({r.reason or 'not in the controlled form'})" for r in loose)
    return (f"{where}: {len(loose)} clause(s) no formal check and no scripted player reads (only an LLM judge "
            f"can, and no transfer follows from them for the formal judge): {listed}")
