"""Who played an LLM run and what it cost: per role, the model(s) and endpoint(s) asked, calls (cached
and failed among them), prompt and completion tokens (estimated ones marked), dollars from the price
table and summed call time; the same in total; and the `--llm-budget` with what it stopped.

Computed from the run's `llm_call` and `unit_not_run` events alone (so `blockpact report` rebuilds it),
for metrics.json (`llm`), the summary printed by `blockpact run` and the report's "LLM calls" section.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from blockpact.llm.accounting import price_of
from blockpact.llm.budget import Budget

if TYPE_CHECKING:
    from blockpact.experiments.log.records import RunRecord

# `blockpact run` exit status when the run stopped early on purpose (the LLM budget was spent).
EXIT_STOPPED = 3
ESTIMATE_NOTE = ("tokens marked ~ were estimated (the server reported none): about 4 characters of text a token "
                 "plus 4 per message")
_SUMS = ("calls", "cached_calls", "failed_calls", "estimated_calls", "prompt_tokens", "completion_tokens")


def _totals(calls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: 0 for k in _SUMS} | {"cost_usd": 0.0, "wall_s": 0.0}
    for c in calls:
        out["calls"] += 1
        out["cached_calls"] += bool(c.get("cached"))
        out["failed_calls"] += bool(c.get("error"))
        out["estimated_calls"] += bool(c.get("estimated"))
        out["prompt_tokens"] += int(c.get("prompt_tokens") or 0)
        out["completion_tokens"] += int(c.get("completion_tokens") or 0)
        out["cost_usd"] += float(c.get("cost_usd") or 0.0)
        out["wall_s"] += float(c.get("latency_s") or 0.0)
    out["tokens_estimated"] = out["estimated_calls"] > 0
    out["cost_usd"] = round(out["cost_usd"], 6)
    out["wall_s"] = round(out["wall_s"], 3)
    return out


def llm_accounting(run: RunRecord) -> dict[str, Any] | None:
    """metrics.json's `llm` block; None for scripted runs."""
    if run.config.agents != "llm":
        return None
    calls = [c for s in run.seeds for c in s.llm_calls]
    roles: dict[str, dict[str, Any]] = {}
    for role in sorted({c["role"] for c in calls}):
        mine = [c for c in calls if c["role"] == role]
        roles[role] = {
            "models": sorted({c["model"] for c in mine}),
            "reply_models": sorted({c["reply_model"] for c in mine if c.get("reply_model")}),
            "endpoints": sorted({c["base_url"] for c in mine}),
            **_totals(mine),
        }
    recorded = run.config.llm or {}
    prices = recorded.get("prices") or {}

    def unpriced(mine: list[dict[str, Any]]) -> list[str]:
        """Models asked (not from the cache) that the price table has no price for: their cost is unknown, not 0."""
        return sorted({c["model"] for c in mine if not c.get("cached")
                       and price_of(prices, c["model"], c.get("reply_model") or "") is None})

    for role, block in roles.items():
        block["unpriced_models"] = unpriced([c for c in calls if c["role"] == role])
    budget = Budget.from_json(recorded.get("budget"))
    not_run = list(run.not_run)
    sent = [c for c in calls if not c.get("cached") and not c.get("error")]
    used = Budget.spent(budget, sum(c["prompt_tokens"] + c["completion_tokens"] for c in sent),
                        sum(float(c.get("cost_usd") or 0.0) for c in sent)) if budget else 0.0
    return {
        "endpoint": recorded.get("base_url"),
        "model": recorded.get("model"),
        "roles": roles,
        "models": {model: _totals(c for c in calls if c["model"] == model) for model in sorted({c["model"] for c in calls})},
        "total": {**_totals(calls), "unpriced_models": unpriced(calls)},
        "estimate": ESTIMATE_NOTE,
        "budget": None if budget is None else {
            **budget.to_json(), "described": budget.describe(), "used": used, "used_described": budget.describe(used),
            "spent": any(str(c.get("error") or "").startswith("LLMBudgetSpent") for c in calls),
            "units_not_run": not_run},
    }


def stop_message(metrics: Mapping[str, Any]) -> str:
    llm = metrics.get("llm") or {}
    budget = llm.get("budget") or {}
    units = budget.get("units_not_run") or []
    reason = units[0]["reason"] if units else "the run stopped before its end"
    return f"{reason}; {len(units)} unit{'s' if len(units) != 1 else ''} not run"


def tokens_text(totals: Mapping[str, Any], key: str) -> str:
    """A token count, marked `~` when some of it was estimated."""
    return f"{'~' if totals['tokens_estimated'] else ''}{totals[key]:,}"


def calls_text(totals: Mapping[str, Any]) -> str:
    """'10', '10 (5 cached)', '10 (5 cached, 1 failed)'."""
    notes = [f"{totals[k]} {label}" for k, label in (("cached_calls", "cached"), ("failed_calls", "failed")) if totals[k]]
    return f"{totals['calls']}" + (f" ({', '.join(notes)})" if notes else "")


def cost_text(totals: Mapping[str, Any]) -> str:
    """'$0.0123'; 'n/a (no price)' when no model asked has a price (not $0.0000); both when some have."""
    missing = totals.get("unpriced_models") or []
    if not missing:
        return f"${totals['cost_usd']:.4f}"
    if not totals["cost_usd"]:
        return "n/a (no price)"
    return f"${totals['cost_usd']:.4f} + n/a (no price for {', '.join(missing)})"


def rows(metrics: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per role and a total row, as text, for the summary table and the report."""
    llm = metrics.get("llm")
    if not llm:
        return []
    out = []
    for name, t in [*llm["roles"].items(), ("total", llm["total"])]:
        out.append({
            "role": name,
            "model": ", ".join(t.get("models", [llm.get("model") or ""])) if name != "total" else "",
            "endpoint": ", ".join(t.get("endpoints", [])) if name != "total" else (llm.get("endpoint") or ""),
            "calls": calls_text(t),
            "prompt_tokens": tokens_text(t, "prompt_tokens"),
            "completion_tokens": tokens_text(t, "completion_tokens"),
            "cost": cost_text(t),
            "wall": f"{t['wall_s']:.1f} s",
        })
    return out


def budget_text(budget: Mapping[str, Any]) -> str:
    text = f"budget {budget['described']}, used {budget['used_described']}"
    if budget["spent"]:
        text += f": spent; {len(budget['units_not_run'])} units not run"
    return text


def llm_table(metrics: Mapping[str, Any]) -> tuple[list[str], list[list[str]], str, str, list[int]] | None:
    """The summary's "LLM calls" table as (headers, rows, title, caption, sections) for console_tables.print_table
    (None for scripted runs)."""
    view = rows(metrics)
    if not view:
        return None
    llm = metrics["llm"]
    title = f"LLM calls: {llm.get('model') or '?'} at {llm.get('endpoint') or '?'}"
    several_models = len({r["model"] for r in view[:-1]}) > 1
    headers = ["role", *(["model"] if several_models else []), "calls", "prompt tok", "completion tok", "cost",
               "call time"]
    body = [[r["role"], *([r["model"]] if several_models else []), r["calls"], r["prompt_tokens"],
             r["completion_tokens"], r["cost"], r["wall"]] for r in view]
    notes = [ESTIMATE_NOTE] if llm["total"]["tokens_estimated"] else []
    if (budget := llm.get("budget")) is not None:
        notes.append(budget_text(budget))
    return headers, body, title, "\n".join(notes), [len(view) - 2]
