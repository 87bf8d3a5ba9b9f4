"""The judge stage of an episode: the contract (if any) judged on the episode's world events.

The formal judge settles clauses with explicit transfers; its judgment is logged and its transfers
are applied to the inventory values. The LLM judge joins here once LLM agents run (both are logged,
and the report compares them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from blockpact.experiments.protocol import EpisodeLog
from blockpact.judge.contract import parse_contract
from blockpact.judge.formal import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.events import Event
from blockpact.worlds.spec import WorldSpec


@dataclass
class Settlement:
    inventory_rewards: dict[str, float]
    transfers: dict[str, float]
    rewards: dict[str, float]
    critiques: dict[str, str]  # non-empty judge critiques, for the next episode


def settle(spec: WorldSpec, contract_text: str | None, events: Sequence[Event], log: EpisodeLog) -> Settlement:
    obs = observables_from_events(spec, events)
    players = sorted(spec.players)
    inventory = {p: float(obs.inventory_value(p)) for p in players}
    transfers = {p: 0.0 for p in players}
    critiques: dict[str, str] = {}
    if contract_text is not None:
        contract = parse_contract(contract_text, players, world=spec.name)
        judgment = judge_formal(contract, obs)
        log.judgment("formal", judgment.transfers, judgment.critiques, judgment.reasoning)
        transfers.update(judgment.transfers)
        critiques = {p: text for p, text in judgment.critiques.items() if text}
        for player, text in sorted(critiques.items()):
            log.critique(player, "judge", text)
    rewards = {p: inventory[p] + transfers[p] for p in players}
    return Settlement(inventory, transfers, rewards, critiques)
