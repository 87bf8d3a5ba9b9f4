"""A player's reflection after an episode (GovSim's): the lessons it carries into the next episode of the seed.

The "reflection" role answers with at most `limit` lines "- lesson"; the reply replaces the player's earlier
lessons (it is shown them), so what a player remembers stays bounded however many episodes follow. A reply
with no lesson in it is asked again, then recorded as a `ReflectionError` (the player goes on without new
lessons: its earlier ones stand). Scripted players do not reflect: they have nothing to learn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.action_prompts import items_text, render
from blockpact.agents.chat_digest import condensed_chat
from blockpact.llm.repair import ask_until_usable

if TYPE_CHECKING:
    from blockpact.worlds.spec.schema import WorldSpec

LESSONS = 5  # at most this many lessons per player
LESSON_CHARS = 400  # a longer line is cut here: the next prompt stays bounded
ATTEMPTS = 2
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.*\S)\s*$")


@dataclass(frozen=True)
class Recollection:
    """What a player reflects on: its episode as it ended."""

    player: str
    contract: str | None
    code: str | None  # None: it wrote no runnable program
    outcome: str  # how the episode ended for it (rewards, each clause's status)
    critique: str  # the critic's verdict, or why there is none
    chat: Sequence[str]
    lessons: Sequence[str]  # its lessons from earlier episodes
    meetings: bool = False  # the players meet before the next episode and may change the contract there


class ReflectionError(Exception):
    """The reflection role's replies held no lesson."""

    def __init__(self, message: str, replies: list[str]) -> None:
        super().__init__(message)
        self.replies = replies


class Reflector(Protocol):
    async def reflect(self, recollection: Recollection) -> list[str]: ...


def parse_lessons(text: str, limit: int = LESSONS) -> list[str]:
    """The "- lesson" lines of a reply (numbered or starred lines count too); raises ValueError when none."""
    lessons = [m.group(1)[:LESSON_CHARS] for line in text.splitlines() if (m := _BULLET.match(line))]
    if not lessons:
        raise ValueError('no line starts with "- ": write each lesson on its own line, starting with "- "')
    return lessons[:limit]


def reflection_messages(spec: WorldSpec, r: Recollection, limit: int = LESSONS) -> list[dict[str, str]]:
    values = items_text(spec.players[r.player].values, empty="nothing") + " (emeralds themselves: 1)"
    user = render(
        "reflection_user",
        world_title=spec.title or spec.name,
        scenario=spec.description_for(r.player),
        player=r.player,
        values=values,
        contract=r.contract.strip() if r.contract else "No contract.",
        code=r.code.strip() if r.code else "You wrote no runnable program.",
        outcome=r.outcome.strip(),
        critique=r.critique.strip() or "None.",
        chat="\n".join(condensed_chat(r.chat)) if r.chat else "No messages.",
        lessons="\n".join(f"- {lesson}" for lesson in r.lessons) if r.lessons else "None yet (this was your first episode).",
    )
    note = render("reflection_meetings" if r.meetings else "reflection_fixed_contract")  # may the contract change?
    system = render("reflection_system", lessons=limit, contract_note=note)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class LLMReflector:
    """The player's own model, on the "reflection" role."""

    def __init__(self, client: Any, spec: WorldSpec, *, role: str = "reflection", limit: int = LESSONS) -> None:
        self.client = client
        self.spec = spec
        self.role = role
        self.limit = limit

    async def reflect(self, recollection: Recollection) -> list[str]:
        def retry(error: str) -> dict[str, str]:
            return {"role": "user", "content": render("reflection_format_error", error=error, lessons=self.limit)}

        asked = await ask_until_usable(self.client, self.role, reflection_messages(self.spec, recollection, self.limit),
                                       lambda text: parse_lessons(text, self.limit), retry, ATTEMPTS)
        if asked.value is None:
            raise ReflectionError(f"no lesson in {asked.attempts} replies; last problem: {asked.last_problem}", asked.replies)
        return asked.value
