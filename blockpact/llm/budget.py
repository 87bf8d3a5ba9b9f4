"""`--llm-budget`: a limit on what a run may spend, in tokens or US dollars.

Only calls answered over HTTP count (a cache hit costs nothing). The check is made before each
request, so calls already in flight when the limit is reached may overshoot it by their own size.
When it is spent, the next request raises `LLMBudgetSpent`, which is not an `LLMError`: no agent
treats it as a bad reply to work around; it ends the unit it happens in, and the run starts no more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from blockpact.errors import UserError

_BUDGET = re.compile(r"^\s*(?P<dollar>\$)?\s*(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>k|m)?\s*(?P<kind>tokens?|tok|usd|\$)?\s*$",
                     re.IGNORECASE)


class LLMBudgetSpent(Exception):
    """The run's LLM budget is spent: no further request is sent."""


@dataclass(frozen=True)
class Budget:
    """A limit in `tokens` (prompt + completion) or in `usd` (from the price table)."""

    amount: float
    unit: str  # "tokens" | "usd"

    @classmethod
    def parse(cls, text: str) -> Budget:
        """'200000', '200k', '200k tokens', '$1.50', '1.5usd'."""
        match = _BUDGET.match(text)
        if match is None:
            raise UserError(f"--llm-budget: {text!r} is neither a number of tokens (e.g. 200000, 200k tokens) "
                            "nor dollars (e.g. $1.50, 1.5usd)")
        amount = float(match["amount"]) * {"k": 1e3, "m": 1e6}.get((match["unit"] or "").lower(), 1)
        dollars = bool(match["dollar"]) or (match["kind"] or "").lower() in ("usd", "$")
        if amount <= 0:
            raise UserError(f"--llm-budget must be positive, got {text!r}")
        return cls(amount, "usd" if dollars else "tokens")

    def spent(self, tokens: int, usd: float) -> float:
        return usd if self.unit == "usd" else float(tokens)

    def describe(self, value: float | None = None) -> str:
        amount = self.amount if value is None else value
        return f"${amount:.4g}" if self.unit == "usd" else f"{amount:,.0f} tokens"

    def to_json(self) -> dict[str, Any]:
        return {"amount": self.amount, "unit": self.unit}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Budget | None:
        return cls(float(data["amount"]), str(data["unit"])) if data else None
