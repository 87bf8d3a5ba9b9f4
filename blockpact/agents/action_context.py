"""What one round's action prompt says about the player and the world: the input of every action agent
(LLM or scripted), apart from the agents so that the prompts can render it without importing them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from blockpact.worlds.spec.schema import WorldSpec


@dataclass
class ActionContext:
    """Everything one round's prompt says; the loop updates the last-round fields."""

    player: str
    world: WorldSpec
    task: str
    contract: str | None = None
    inventory: Mapping[str, int] = field(default_factory=dict)
    others_inventories: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    observation: Mapping[str, Any] = field(default_factory=dict)  # the body's observe(): what the player sees now
    chat_log: Sequence[str] = ()
    last_code: str | None = None
    last_error: str | None = None
    critic_critique: str | None = None
    judge_critique: str | None = None
    last_outcome: str | None = None  # how the last episode ended for this player (rewards, each clause's status)
    lessons: Sequence[str] = ()  # the player's reflection after its last episode
