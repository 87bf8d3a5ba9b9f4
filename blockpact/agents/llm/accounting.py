"""Token and cost accounting per role and per run, from the endpoint's `usage` fields."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from blockpact.agents.llm.settings import Price

# Providers report dated snapshots ("gpt-4o-2024-08-06") of the models price tables name.
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def price_of(prices: Mapping[str, Price], *models: str) -> Price | None:
    """The price of the first model found, trying each name as given and without a date suffix."""
    for model in models:
        for name in (model, _DATE_SUFFIX.sub("", model)):
            if name in prices:
                return prices[name]
    return None


def cost_usd(prices: Mapping[str, Price], usage: Usage, *models: str) -> float:
    """Cost in US dollars; 0 for a model with no price."""
    price = price_of(prices, *models)
    return price.cost(usage.prompt_tokens, usage.completion_tokens) if price else 0.0


@dataclass
class RoleTotals:
    """Sums over calls. Tokens include cached replies (they describe the experiment);
    `cost_usd` is money spent in this run, `cached_cost_usd` what cache hits would have cost."""

    calls: int = 0
    cached_calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_cost_usd: float = 0.0

    def add(self, other: RoleTotals) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


class Accounting:
    """Running totals of one client (one run); safe to update from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roles: dict[str, RoleTotals] = {}

    def record(self, role: str, usage: Usage, cost: float, cached: bool) -> None:
        with self._lock:
            totals = self._roles.setdefault(role, RoleTotals())
            totals.calls += 1
            totals.prompt_tokens += usage.prompt_tokens
            totals.completion_tokens += usage.completion_tokens
            if cached:
                totals.cached_calls += 1
                totals.cached_cost_usd += cost
            else:
                totals.cost_usd += cost

    def record_failure(self, role: str) -> None:
        with self._lock:
            self._roles.setdefault(role, RoleTotals()).failed_calls += 1

    def by_role(self) -> dict[str, RoleTotals]:
        with self._lock:
            return {role: RoleTotals(**asdict(t)) for role, t in self._roles.items()}

    def total(self) -> RoleTotals:
        total = RoleTotals()
        for totals in self.by_role().values():
            total.add(totals)
        return total

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form for a run's metrics."""
        return {"roles": {r: asdict(t) for r, t in self.by_role().items()}, "total": asdict(self.total())}
