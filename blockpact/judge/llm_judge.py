"""The LLM judge: reads the contract and what happened, answers JSON transfers and critiques.

Replies are checked (JSON object, known players, finite numbers, zero-sum); an unusable reply is
sent back with the reason, as the contracting paper does, and after the configured number of
attempts the judgment is reported invalid (no transfers) with every reason, never guessed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.llm.repair import ask_until_usable, find_json_object
from blockpact.judge.contract import Contract
from blockpact.judge.observables import EpisodeObservables
from blockpact.judge.verdict import Judgment, no_transfers
from blockpact.prompt_files import prompt_template
from blockpact.settings import bounds, load_settings

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient

HERE = Path(__file__).parent
SETTINGS_FILE = HERE / "judge.toml"
PROMPTS = HERE / "prompts"
_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class JudgeSettings:
    role: str  # an LLM role of llm.toml
    attempts: int = bounds(ge=1)
    zero_sum_tolerance: float = bounds(ge=0)


@dataclass(frozen=True)
class JudgeFile:
    """`judge.toml`'s schema."""

    llm_judge: JudgeSettings


def load_judge_settings(path: Path = SETTINGS_FILE) -> JudgeSettings:
    return load_settings(path, JudgeFile).llm_judge


class InvalidReply(ValueError):
    """Why a judge reply cannot be used (sent back to the model)."""


def _json_object(text: str) -> dict[str, Any]:
    try:  # anywhere in prose or fences; the reasons below when there is none
        return find_json_object(text, required="transfers")
    except ValueError:
        pass
    fenced = _FENCED.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise InvalidReply("no JSON object found in the answer")
    try:
        value = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        raise InvalidReply(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(value, dict):
        raise InvalidReply("the answer must be a JSON object")
    return value


def _per_player(value: Any, key: str, players: Sequence[str]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidReply(f"'{key}' must be an object keyed by player name")
    names = {p.lower(): p for p in players}
    out: dict[str, Any] = {}
    for name, entry in value.items():
        player = names.get(str(name).strip().lower())
        if player is None:
            raise InvalidReply(f"'{key}' names unknown player '{name}' (players: {', '.join(players)})")
        out[player] = entry
    return out


def validate_reply(text: str, players: Sequence[str], tolerance: float) -> tuple[dict[str, float], dict[str, str], str]:
    """(transfers for every player, critiques, reasoning) from a reply, or InvalidReply."""
    reply = _json_object(text)
    if "transfers" not in reply:
        raise InvalidReply("the object has no 'transfers'")
    transfers = no_transfers(players)
    for player, amount in _per_player(reply["transfers"], "transfers", players).items():
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not math.isfinite(amount):
            raise InvalidReply(f"the transfer for {player} must be a finite number, got {json.dumps(amount)}")
        transfers[player] = float(amount)
    total = sum(transfers.values())
    if abs(total) > tolerance:
        raise InvalidReply(
            f"the transfers add up to {total:g}, not 0: every emerald one player pays, another receives"
        )
    critiques = {p: "" for p in players}
    for player, text_ in _per_player(reply.get("critiques", {}), "critiques", players).items():
        if not isinstance(text_, str):
            raise InvalidReply(f"the critique for {player} must be a string")
        critiques[player] = text_
    reasoning = reply.get("reasoning", "")
    return transfers, critiques, reasoning if isinstance(reasoning, str) else json.dumps(reasoning)


def _lines(rows: Sequence[str], empty: str) -> str:
    return "\n".join(rows) if rows else empty


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {item}" for item, n in sorted(counts.items())) or "nothing"


def case_prompt(contract: Contract, obs: EpisodeObservables) -> str:
    """The user message describing one episode to the judge."""
    return prompt_template(PROMPTS, "judge_case").substitute(
        world=obs.world,
        description=obs.description,
        contract=contract.text,
        tasks=_lines([f"- {p}: {obs.tasks[p]}" for p in obs.players if obs.tasks.get(p)], "(none recorded)"),
        values=_lines([f"- {p}: {_values(obs.values.get(p, {}))}" for p in obs.players], "(none)"),
        chat=_lines([f"[{t:.1f} s] {p}: {m}" for t, p, m in obs.chat], "(no messages)"),
        signals=_lines([f"[{t:.1f} s] {p} signalled {task or '(no task)'}" for t, p, task in obs.signals], "(none)"),
        mined=_lines([f"- {p}: {_counts(obs.mined.get(p, {}))}" for p in obs.players], "(nothing)"),
        collected=_lines([f"- {p}: {_counts(obs.collected.get(p, {}))}" for p in obs.players], "(nothing)"),
        inventories=_lines([f"- {p}: {_counts(obs.inventories.get(p, {}))}" for p in obs.players], "(empty)"),
        chests=_lines([f"- chest at {pos}: {_counts(items)}" for pos, items in obs.chests.items()], "(no chests)"),
    )


def _values(values: Mapping[str, float]) -> str:
    return ", ".join(f"{item} {v:g}" for item, v in sorted(values.items())) or "nothing has value"


class LLMJudge:
    def __init__(self, client: LLMClient, settings: JudgeSettings | None = None) -> None:
        self.client = client
        self.settings = settings or load_judge_settings()

    async def judge(self, contract: Contract, obs: EpisodeObservables) -> Judgment:
        if contract.empty:
            return Judgment(no_transfers(obs.players), {p: "" for p in obs.players}, "llm", reasoning="No contract: no transfers.")
        players = ", ".join(obs.players)
        messages: list[dict[str, str]] = [
            {"role": "system", "content": prompt_template(PROMPTS, "judge").substitute(players=players)},
            {"role": "user", "content": case_prompt(contract, obs)},
        ]
        asked = await ask_until_usable(
            self.client, self.settings.role, messages,
            lambda reply: validate_reply(reply, obs.players, self.settings.zero_sum_tolerance),
            lambda reason: {"role": "user", "content": prompt_template(PROMPTS, "judge_retry").substitute(reason=reason, players=players)},
            self.settings.attempts, errors=(InvalidReply,))
        problems = [f"attempt {i}: {p}" for i, p in enumerate(asked.problems, start=1)]
        if asked.value is not None:
            transfers, critiques, reasoning = asked.value
            return Judgment(transfers, critiques, "llm", reasoning=reasoning, attempts=asked.attempts, problems=problems)
        return Judgment(
            no_transfers(obs.players),
            {p: "" for p in obs.players},
            "llm",
            valid=False,
            error=f"the LLM judge gave no valid judgment in {self.settings.attempts} attempts: {problems[-1]}",
            attempts=self.settings.attempts,
            problems=problems,
        )
