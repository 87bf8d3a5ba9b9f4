"""How an episode ended, told to each player: what it held and what that was worth to it, what the judge
moved, each clause's status with who broke it, and every player's reward. The critic judges the program
with it and the player reflects on it; the next episode's action prompt shows it again.

Only the formal judge's clause statuses are told (an LLM judge's reading is in its critique): a status
here is what the event log shows, never a model's opinion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from blockpact.agents.action_prompts import items_text
from blockpact.judge.contract import split_clauses
from blockpact.judge.contract_render import number


def signed(x: float) -> str:
    return ("+" if x >= 0 else "") + number(round(x, 6))


def _clause_line(score: Mapping[str, Any], text: str) -> str:
    status = str(score.get("status", "?"))
    if status == "broken":
        who = ", ".join(score.get("broken_by") or []) or "?"
        why = " ".join(score.get("breaches") or [])
        return f"{score['clause']}. broken by {who}: {text}" + (f" ({why})" if why else "")
    if status == "not applicable":
        return f"{score['clause']}. not applicable ({score.get('not_applicable', '')}): {text}"
    if status == "excused":
        why = " ".join(str(e.get("text", "")) for e in score.get("excused") or [] if isinstance(e, dict))
        return f"{score['clause']}. excused: {text}" + (f" ({why})" if why else "")
    if status == "free text":
        return f"{score['clause']}. free text, not enforced: {text}"
    return f"{score['clause']}. {status}: {text}"


def recap(player: str, contract: str | None, clauses: Sequence[Mapping[str, Any]], inventory: Mapping[str, int],
          inventory_rewards: Mapping[str, float], transfers: Mapping[str, float], rewards: Mapping[str, float]) -> str:
    """One player's account of the episode's end (plain lines, for prompts)."""
    worth, moved, total = inventory_rewards[player], transfers.get(player, 0.0), rewards[player]
    lines = [f"Your inventory at the end: {items_text(inventory)} (worth {number(round(worth, 6))} emeralds to you)."]
    if contract is None:
        shared = f" The world's groups moved {signed(moved)} emeralds to you." if moved else ""
        lines.append(f"No contract was in force.{shared} Your reward: {number(round(total, 6))}.")
    else:
        lines.append(f"The judge moved {signed(moved)} emeralds to you; your reward: {number(round(total, 6))}.")
        texts = split_clauses(contract)
        lines.append("The contract's clauses as the formal judge scored them:")
        for score in clauses:
            n = int(score.get("clause", 0))
            text = texts[n - 1] if 0 < n <= len(texts) else "?"
            lines.append(_clause_line(score, text))
    others = ", ".join(f"{p} {number(round(r, 6))}" for p, r in sorted(rewards.items()))
    lines.append(f"Every player's reward: {others}.")
    return "\n".join(lines)
