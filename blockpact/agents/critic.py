"""The critic: did the program meet the task? (Voyager's self-verification.)

A program that raised or timed out failed, and the error says why better than a model could, so
no LLM is asked then. Otherwise the "critic" role answers JSON {reasoning, success, critique};
a reply that is not that JSON is asked again, then reported as a `CriticError`. In an episode the critic
is asked after the judge, with how the episode ended (`outcome`), and only when a later episode reads it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from blockpact.agents.action_prompts import critic_json_error_message, critic_messages
from blockpact.agents.action_settings import action_settings
from blockpact.llm.repair import ask_until_usable, find_json_object

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient
    from blockpact.bridge.protocols import ProgramResult


@dataclass(frozen=True)
class Critique:
    success: bool
    critique: str
    reasoning: str
    source: str  # "execution" (decided from the error), "llm" or "scripted"


class CriticError(Exception):
    """The critic's replies were never the JSON asked for."""

    def __init__(self, message: str, replies: list[str]) -> None:
        super().__init__(message)
        self.replies = replies


class CriticProtocol(Protocol):
    async def critique(self, task: str, result: ProgramResult, contract: str | None = None,
                       outcome: str | None = None) -> Critique: ...


def error_reason(result: ProgramResult) -> str:
    """The execution error of a failed run, with its program line when the message lacks it."""
    error = result.error or "the program failed"
    if result.error_line and "line" not in error:
        error = f"{error} (program line {result.error_line})"
    return error


def execution_failure(result: ProgramResult) -> Critique | None:
    """The verdict on a program that failed to run, or None when it ran to its end."""
    if result.timed_out:
        reason = result.error or "the program ran out of time"
        return Critique(False, f"The program did not finish: {reason}. Make it shorter or stop waiting.", reason, "execution")
    if not result.success:
        reason = error_reason(result)
        return Critique(False, f"Fix the execution error: {reason}", reason, "execution")
    return None


def parse_verdict(text: str) -> Critique:
    """The critic's JSON (fenced, or anywhere in prose); raises ValueError."""
    data: Any = find_json_object(text, required="success")
    success = data.get("success")
    if not isinstance(success, bool):
        raise ValueError(f'"success" must be true or false, got {json.dumps(success)}')
    for key in ("reasoning", "critique"):
        if not isinstance(data.get(key, ""), str):
            raise ValueError(f'"{key}" must be a string')
    return Critique(success, data.get("critique", ""), data.get("reasoning", ""), "llm")


class Critic:
    """Voyager's critic on the "critic" role."""

    def __init__(self, client: LLMClient, *, json_attempts: int | None = None, role: str = "critic") -> None:
        self.client = client
        self.role = role
        self.json_attempts = json_attempts or action_settings().critic.json_attempts

    async def critique(self, task: str, result: ProgramResult, contract: str | None = None,
                       outcome: str | None = None) -> Critique:
        if (failed := execution_failure(result)) is not None:
            return failed
        asked = await ask_until_usable(self.client, self.role, critic_messages(task, result, contract, outcome), parse_verdict,
                                       critic_json_error_message, self.json_attempts)
        if asked.value is None:
            raise CriticError(f"the critic gave no usable verdict in {asked.attempts} replies; last problem: "
                              f"{asked.last_problem}", asked.replies)
        return asked.value


class ScriptedCritic:
    """For scripted players: a program that ran to its end (or to the episode's end) did its job."""

    async def critique(self, task: str, result: ProgramResult, contract: str | None = None,
                       outcome: str | None = None) -> Critique:
        if result.success or result.timed_out:
            return Critique(True, "", "scripted: the program ran without an error", "scripted")
        reason = error_reason(result)
        return Critique(False, f"Fix the execution error: {reason}", reason, "scripted")
