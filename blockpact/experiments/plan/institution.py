"""Checks of an institution (worlds/spec/institution.py: the `[institution]` table and its parser) against a
run's world and population, when a run is planned; each error names the file, line and key."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from blockpact.worlds.spec.institution import (
    CHANGEABLE, InstitutionSpec, institution_from_record, parse_institution,
)

__all__ = ["CHANGEABLE", "InstitutionSpec", "check_players", "check_population", "institution_from_record",
           "parse_institution"]

Fail = Callable[[str, str], Exception]


def check_players(institution: InstitutionSpec | None, players: list[str], world: str, fail: Fail) -> None:
    """Every player the institution names (leader, weights, veto holders, candidates) is one of the world's."""
    if institution is None:
        return
    named = {"institution.leader": [institution.leader] if institution.leader else [],
             "institution.weights": sorted(institution.weights), "institution.veto": list(institution.veto),
             "institution.candidates": list(institution.candidates)}
    for key, names in named.items():
        unknown = [n for n in names if n not in players]
        if unknown:
            raise fail(key, f"no player {', '.join(map(repr, unknown))} in world {world!r} "
                            f"(players: {', '.join(players)})")


def check_population(institution: InstitutionSpec | None, population: Mapping[str, str], fail: Fail) -> None:
    """Scripted and LLM members hold meetings (agents/scripted/voting.py, agents/meeting_member.py); a `human` slot
    has no voting part yet."""
    if institution is None:
        return
    humans = sorted(p for p, kind in population.items() if kind == "human")
    if humans:
        raise fail("institution", f"{', '.join(humans)} {'is' if len(humans) == 1 else 'are'} a `human` slot: "
                                  "meetings are voted by scripted and LLM members only in this version (human "
                                  "members are not supported yet)")
