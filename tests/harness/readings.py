"""One check for the tables of phrasings: a clause reads as the controlled-form sentence it means (rendered back and
read again to the same clause), or, where none is given, stays free text with its reason."""

from __future__ import annotations

from blockpact.judge.contract import parse_contract, render_clause
from blockpact.worlds.spec.schema import WorldSpec


def read_clause(spec: WorldSpec, text: str):
    """The one clause `text` reads as in `spec`'s world."""
    [clause] = parse_contract(f"1. {text}", sorted(spec.players), spec=spec).clauses
    return clause


def assert_reads_as(spec: WorldSpec, text: str, reading: str | None) -> None:
    clause = read_clause(spec, text)
    if reading is None:
        assert not clause.formal, f"read as {render_clause(clause, world=spec.name)!r}"
        assert clause.why
        return
    assert clause.formal, clause.why
    assert render_clause(clause, world=spec.name) == reading
    assert parse_contract(f"1. {reading}", sorted(spec.players), spec=spec).clauses == (clause,)
