"""What every clause kind shares: the window of seconds a clause holds in, and the mixin saying a clause is formal
(the kinds themselves are in `clauses` and `clause_money`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    """The seconds of the episode a clause holds in: [start, end), `end` None for the episode's end.
    Counted from the episode's start; "in the last period" is resolved to seconds with the world."""

    start: float = 0.0
    end: float | None = None

    def holds_at(self, t: float) -> bool:
        return self.start <= t and (self.end is None or t < self.end)


class FormalClause:
    """Mixin: a clause the formal judge scores from the event log."""

    kind = "clause"

    @property
    def formal(self) -> bool:
        return True

    @property
    def why(self) -> str:
        return f"controlled form ({self.kind}): the formal judge scores it from the event log"
