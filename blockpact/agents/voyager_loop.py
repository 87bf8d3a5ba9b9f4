"""Voyager's iterative prompting loop for one player and one task.

propose a program -> run it on the body -> critique -> try again (up to N attempts), with the
execution error, the critique, the new inventory and the chat of each round in the next prompt.
A program the critic accepts becomes a skill in the library. Every step is a `LoopEvent` the
runner can log (the LLM client's transcript holds the prompts and replies themselves).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.action import ActionAgent, Proposal, ProposalError
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import skill_messages
from blockpact.agents.action_settings import action_settings
from blockpact.agents.critic import Critique, CriticError, CriticProtocol
from blockpact.bridge.protocols import shown_chat
from blockpact.llm.errors import LLMBadReply, LLMError

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient
    from blockpact.bridge.protocols import Body, ProgramResult
    from blockpact.skills.library import Skill, SkillLibrary


@dataclass(frozen=True)
class LoopEvent:
    """One step of the loop. `label` is "scripted" or "llm" (who wrote the program)."""

    kind: str  # proposal | proposal_failed | llm_error | program_result | critique | critic_failed | skill_added | task_done
    player: str
    task: str
    attempt: int
    label: str
    data: dict[str, Any] = field(default_factory=dict)
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Attempt:
    proposal: Proposal
    result: ProgramResult
    critique: Critique
    skill: Skill | None = None  # stored when the critique accepted the program


@dataclass
class TaskOutcome:
    player: str
    task: str
    success: bool
    attempts: list[Attempt]
    skill: Skill | None
    reason: str | None  # why the task failed
    context: ActionContext  # as the next round would see it


class SkillDescriber(Protocol):
    async def describe(self, task: str, proposal: Proposal) -> str: ...


class LLMSkillDescriber:
    """Voyager's skill description, written by the "skill" role."""

    def __init__(self, client: LLMClient, role: str = "skill") -> None:
        self.client = client
        self.role = role

    async def describe(self, task: str, proposal: Proposal) -> str:
        completion = await self.client.complete(self.role, skill_messages(task, proposal.code, proposal.function_name))
        return completion.text.strip()


class ScriptedSkillDescriber:
    """The scripted players' own account of their program, labelled as such."""

    async def describe(self, task: str, proposal: Proposal) -> str:
        return f"[scripted] {proposal.explain}"


class VoyagerLoop:
    def __init__(
        self,
        agent: ActionAgent,
        critic: CriticProtocol,
        body: Body | None = None,
        *,
        library: SkillLibrary | None = None,
        describer: SkillDescriber | None = None,
        attempts: int | None = None,
        budget: float | None = None,
        on_event: Callable[[LoopEvent], None] | None = None,
    ) -> None:
        self.agent = agent
        self.critic = critic
        self.body = body
        self.library = library
        self.describer = describer or ScriptedSkillDescriber()
        self.attempts = attempts or action_settings().loop.attempts
        self.budget = budget
        self.on_event = on_event
        self.events: list[LoopEvent] = []

    def _emit(self, kind: str, ctx: ActionContext, attempt: int, label: str, **data: Any) -> None:
        event = LoopEvent(kind, ctx.player, ctx.task, attempt, label, data)
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    async def propose(self, ctx: ActionContext, attempt: int) -> Proposal | str:
        """The next program, or why there is none (the task then ends: the same prompt would get
        the same, cached, replies)."""
        try:
            proposal = await self.agent.propose(ctx)
        except ProposalError as exc:
            self._emit("proposal_failed", ctx, attempt, "llm", error=str(exc), replies=list(exc.replies))
            return str(exc)
        except LLMError as exc:  # the endpoint gave no answer: logged, then the unit fails (not the agent)
            self._emit("llm_error", ctx, attempt, "llm", error=f"{type(exc).__name__}: {exc}")
            raise
        self._emit("proposal", ctx, attempt, proposal.label, explain=proposal.explain, plan=proposal.plan,
                   code=proposal.code, function_name=proposal.function_name)
        return proposal

    async def review(self, ctx: ActionContext, proposal: Proposal, result: ProgramResult, attempt: int,
                     outcome: str | None = None) -> tuple[Attempt, ActionContext]:
        """Critique a run (`outcome`: how the episode ended, when it has), store the program as a skill when
        it succeeded, and build the next context."""
        label = proposal.label
        self._emit("program_result", ctx, attempt, label, result=result.to_json())
        try:
            critique = await self.critic.critique(ctx.task, result, ctx.contract, outcome)
        except CriticError as exc:  # replies, none usable: the critic's failure (an LLMError ends the unit)
            critique = Critique(False, f"The critic could not judge this round ({exc}).", str(exc), "error")
            self._emit("critic_failed", ctx, attempt, label, error=str(exc))
        self._emit("critique", ctx, attempt, label, success=critique.success, critique=critique.critique,
                   reasoning=critique.reasoning, source=critique.source)
        done = Attempt(proposal, result, critique)
        if critique.success:
            done.skill = await self._store(ctx, proposal, attempt)
        return done, self._next_context(ctx, proposal, result, critique)

    def finish(self, ctx: ActionContext, attempts: list[Attempt], reason: str | None) -> TaskOutcome:
        success = bool(attempts) and attempts[-1].critique.success
        label = attempts[-1].proposal.label if attempts else "llm"
        self._emit("task_done", ctx, len(attempts), label, success=success, attempts=len(attempts),
                   **({} if success else {"reason": reason}))
        skill = attempts[-1].skill if success else None
        return TaskOutcome(ctx.player, ctx.task, success, attempts, skill, None if success else reason, ctx)

    async def run_task(self, ctx: ActionContext) -> TaskOutcome:
        """Up to `attempts` programs for `ctx.task` on this loop's body; stops at the first the critic accepts."""
        if self.body is None:
            raise ValueError("run_task needs the loop's body (players sharing a world play through the episode engine)")
        attempts: list[Attempt] = []
        reason: str | None = None
        for number in range(1, self.attempts + 1):
            proposal = await self.propose(ctx, number)
            if isinstance(proposal, str):
                reason = proposal
                break
            result = await self.body.run(proposal.code, skills=proposal.skills, budget=self.budget)
            attempt, ctx = await self.review(ctx, proposal, result, number)
            attempts.append(attempt)
            if attempt.critique.success:
                break
            reason = attempt.critique.critique
        return self.finish(ctx, attempts, reason)

    @staticmethod
    def _next_context(ctx: ActionContext, proposal: Proposal, result: ProgramResult, critique: Critique) -> ActionContext:
        inventory = result.observation.get("inventory", ctx.inventory)
        return dataclasses.replace(
            ctx,
            inventory=dict(inventory),
            observation=dict(result.observation) or ctx.observation,
            chat_log=[*ctx.chat_log, *shown_chat(result, ctx.player)],
            last_code=proposal.code,
            last_error=None if result.success else result.error,
            critic_critique=critique.critique or None,
        )

    async def _store(self, ctx: ActionContext, proposal: Proposal, attempt: int) -> Skill | None:
        if self.library is None:
            return None
        try:
            description = await self.describer.describe(ctx.task, proposal)
        except LLMBadReply as exc:  # no usable description: no skill (no answer at all ends the unit)
            self._emit("llm_error", ctx, attempt, proposal.label, error=f"skill description: {exc}")
            return None
        skill = self.library.add(proposal.function_name, description, proposal.code)
        self._emit("skill_added", ctx, attempt, proposal.label, name=skill.name, description=skill.description)
        return skill
