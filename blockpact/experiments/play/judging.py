"""The judge stage of an episode: the contract (if any) judged on the episode's world events.

The formal judge always settles the clauses with explicit transfers. With LLM agents the LLM judge
reads the same contract and observables too; both judgments are logged (the report compares them)
and the run's settings say whose transfers apply. An LLM judgment that is invalid (replies, none
usable) is logged as such and the formal judge's transfers apply instead; an endpoint that gives no
answer at all fails the unit (cause `endpoint`, experiments/play/failures.py). What the world's
reward-sharing groups move (blockpact.judge.groups) is added to the transfers, with or without a
contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from blockpact.experiments.play.protocol import EpisodeLog
from blockpact.judge.contract import parse_contract
from blockpact.judge.formal import judge_formal
from blockpact.judge.llm_judge import LLMJudge
from blockpact.judge.observables import observables_from_events
from blockpact.judge.verdict import Judgment, no_transfers
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec


@dataclass
class Settlement:
    inventory_rewards: dict[str, float]
    transfers: dict[str, float]
    rewards: dict[str, float]
    critiques: dict[str, str]  # per player, the judges' critiques for the next episode ("" when none)
    applied: str | None  # whose transfers apply: "formal" | "llm"; None without a contract
    inventories: dict[str, dict[str, int]] = field(default_factory=dict)  # what each player held at the end
    clauses: list[dict[str, Any]] = field(default_factory=list)  # the formal judge's score of each clause


@dataclass(frozen=True)
class Judges:
    llm: LLMJudge | None = None
    apply_llm: bool = True  # the LLM judge's transfers apply when it gave a valid judgment


def _combined_critiques(judgments: Sequence[Judgment], players: Sequence[str], applied: str) -> dict[str, str]:
    """One text per player; with two judges, each line says which judge wrote it and whose transfers applied."""
    out: dict[str, str] = {}
    for player in players:
        texts = [(j.source, j.critiques.get(player, "").strip()) for j in judgments if j.valid]
        texts = [(source, text) for source, text in texts if text]
        if len(texts) == 1:
            out[player] = texts[0][1]
        else:
            out[player] = "\n".join(f"{source} judge{' (its transfers applied)' if source == applied else ''}: {text}"
                                     for source, text in texts)
    return out


async def settle(spec: WorldSpec, contract_text: str | None, events: Sequence[Event], log: EpisodeLog,
                 judges: Judges) -> Settlement:
    obs = observables_from_events(spec, events)
    players = sorted(spec.players)
    inventory = {p: float(obs.inventory_value(p)) for p in players}
    shared = {p: obs.group_sharing.get(p, 0.0) for p in players}  # the world's groups, counted with the transfers
    if contract_text is None:
        return Settlement(inventory, dict(shared), {p: inventory[p] + shared[p] for p in players}, {p: "" for p in players}, None,
                          obs.inventories)
    contract = parse_contract(contract_text, players, spec=spec)
    judgments = [judge_formal(contract, obs)]
    if judges.llm is not None:
        judgments.append(await judges.llm.judge(contract, obs))  # an LLMError ends the unit (cause endpoint)
    for j in judgments:
        log.judgment(j.source, j.transfers, j.critiques, j.reasoning, valid=j.valid, error=j.error,
                     attempts=j.attempts, problems=j.problems, clauses=j.clauses)
    by_source = {j.source: j for j in judgments}
    llm = by_source.get("llm")
    applied = llm if judges.apply_llm and llm is not None and llm.valid else by_source["formal"]
    transfers = {p: float(applied.transfers.get(p, 0.0)) + shared[p] for p in players}
    critiques = _combined_critiques(judgments, players, applied.source)
    for player, text in critiques.items():
        if text:
            log.critique(player, "judge", text)
    rewards = {p: inventory[p] + transfers[p] for p in players}
    return Settlement(inventory, transfers, rewards, critiques, applied.source, obs.inventories,
                      by_source["formal"].clauses)
