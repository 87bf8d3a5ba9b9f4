"""Token and cost accounting per role and per run, from the endpoint's `usage` fields."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from blockpact.llm.settings import Price

# Providers report dated snapshots ("gpt-4o-2024-08-06") of the models price tables name.
_DATE_SUFFIX = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Usage:
    """Tokens of one call; `estimated`: the server reported none, so they were counted from the text
    (`wire.estimate_tokens`, ~4 characters a token)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

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
    estimated_calls: int = 0  # calls whose tokens were estimated (the server reported none)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_cost_usd: float = 0.0
    wall_s: float = 0.0  # summed call latencies (overlapping calls count each)
    sent_tokens: int = 0  # tokens of calls answered over HTTP (not from the cache): what a token budget counts

    def add(self, other: RoleTotals) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


class Accounting:
    """Running totals of one client (one run); safe to update from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roles: dict[str, RoleTotals] = {}

    def record(self, role: str, usage: Usage, cost: float, cached: bool, wall_s: float = 0.0) -> None:
        with self._lock:
            totals = self._roles.setdefault(role, RoleTotals())
            totals.calls += 1
            totals.prompt_tokens += usage.prompt_tokens
            totals.completion_tokens += usage.completion_tokens
            totals.estimated_calls += usage.estimated
            totals.wall_s += wall_s
            if cached:
                totals.cached_calls += 1
                totals.cached_cost_usd += cost
            else:
                totals.cost_usd += cost
                totals.sent_tokens += usage.total_tokens

    def record_failure(self, role: str, wall_s: float = 0.0) -> None:
        with self._lock:
            totals = self._roles.setdefault(role, RoleTotals())
            totals.failed_calls += 1
            totals.wall_s += wall_s

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
