"""The action queue's executors: an own action runs as one program on the agent's body, written
by the scripted planner (a JS template per step) or by the Voyager action agent (LLM)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.action_context import ActionContext
from blockpact.agents.code_extraction import parse_program
from blockpact.agents.hourglass.prerequisites import Step
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.scripted.program import fill
from blockpact.worlds.spec.schema import Vec

if TYPE_CHECKING:
    from blockpact.agents.voyager_loop import VoyagerLoop
    from blockpact.bridge.protocols import ProgramResult

TEMPLATES_DIR = Path(__file__).with_name("templates")
_UNPLACED = re.compile(r"^unplaced (-?\d+),(-?\d+),(-?\d+)$")


@dataclass(frozen=True)
class Action:
    """One todo item. kind "act": the agent does it itself (`step` for scripted agents, `text` for
    the Voyager agent); kind "send": a pool message (`to`, `message_kind`, `body`)."""

    kind: str
    text: str
    step: Step | None = None
    to: str | None = None
    message_kind: str | None = None
    body: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ActionOutcome:
    action: Action
    success: bool
    reason: str | None
    result: ProgramResult | None
    unplaced: tuple[Vec, ...] = ()


class Session(Protocol):
    player: str

    async def run(self, source: str, *, skills: Any = (), budget: float | None = None) -> ProgramResult: ...

    def observe(self) -> dict[str, Any]: ...


def step_program(step: Step) -> str:
    """The scripted program for one step, checked by the same parser as an LLM's program."""
    settings = hourglass_settings().scripted
    if step.action == "mine":
        name, values = "mine", {"BLOCK": step.item, "YIELDS": step.yields, "COUNT": step.count}
    elif step.action == "craft":
        name, values = "craft", {"ITEM": step.item, "TIMES": step.count}
    elif step.action == "place_table":
        name, values = "place_table", {"OFFSETS": [list(o) for o in settings.table_offsets]}
    else:
        name, values = "place", {"ITEM": step.item, "CELLS": [list(p) for p in step.positions], "PASSES": settings.place_passes}
    source = (TEMPLATES_DIR / "common.js").read_text() + "\n" + fill((TEMPLATES_DIR / f"{name}.js").read_text(), values)
    return parse_program(source).code


def failure_reason(result: ProgramResult) -> str:
    """The error, and what the bot said last (the primitives' own explanation, e.g. what is missing)."""
    reason = result.error or "the program failed"
    said = [line for line in result.chat if line]
    return f"{reason} (last said: {said[-1]})" if said else reason


class ScriptedExecutor:
    async def execute(self, session: Session, action: Action) -> ActionOutcome:
        assert action.step is not None, "a scripted agent's own actions are steps"
        result = await session.run(step_program(action.step))
        unplaced = tuple((int(m[1]), int(m[2]), int(m[3])) for line in result.logs if (m := _UNPLACED.match(line)))
        return ActionOutcome(action, result.success, None if result.success else failure_reason(result), result, unplaced)


class VoyagerExecutor:
    """Each own action is a Voyager task: propose a program, run it, critique, up to N attempts."""

    def __init__(self, loop: VoyagerLoop, context: ActionContext) -> None:
        self.loop = loop
        self.context = context

    async def execute(self, session: Session, action: Action) -> ActionOutcome:
        self.loop.body = session  # type: ignore[assignment]
        obs = session.observe()
        ctx = ActionContext(player=self.context.player, world=self.context.world, task=action.text,
                            inventory=obs.get("inventory", {}), chat_log=list(self.context.chat_log))
        outcome = await self.loop.run_task(ctx)
        result = outcome.attempts[-1].result if outcome.attempts else None
        return ActionOutcome(action, outcome.success, outcome.reason, result)
