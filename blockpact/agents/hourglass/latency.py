"""Simulated time of thinking and talking: how long an LLM call and a message take on the
simulated clock, and the per-agent clock that spends it and records it.

An LLM call takes `first_token + prompt_tokens / prompt_rate + completion_tokens / completion_rate`
seconds, times a random factor (log-normal, mean 1, spread `jitter`) drawn from the agent's own
stream, seeded by (episode seed, agent name), so a seed gives one trajectory. A message costs its
sender `message_seconds`. Scripted agents stand in for LLM agents: each stage decision they take is
a modelled call whose prompt is what the LLM stage would read (the stage's system prompt, the world
description, the agent's recent conversation and state) and whose completion is the decision
written as JSON. LLM agents spend the model's time on their real token counts. Every spent interval
is a `latency` event (agent, stage, tokens, seconds).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from blockpact.errors import UserError
from blockpact.prompt_files import prompt_template
from blockpact.settings import bounds

Emit = Callable[[str, dict[str, Any]], None]
PROMPTS = Path(__file__).resolve().parents[1] / "prompts"


@dataclass(frozen=True)
class LatencyModel:
    first_token_seconds: float = bounds(ge=0)
    prompt_tokens_per_second: float = bounds(gt=0)
    completion_tokens_per_second: float = bounds(gt=0)
    jitter: float = bounds(ge=0)  # sigma of the log-normal factor; 0: every call takes exactly the formula
    message_seconds: float = bounds(ge=0)
    chars_per_token: float = bounds(gt=0)
    source: str  # where the figures come from

    def __post_init__(self) -> None:
        if min(self.first_token_seconds, self.jitter, self.message_seconds) < 0 or \
                min(self.prompt_tokens_per_second, self.completion_tokens_per_second, self.chars_per_token) <= 0:
            raise UserError(f"latency model: times must be >= 0 and rates > 0, got {self}")

    @classmethod
    def fixed(cls, seconds: float, message_seconds: float = 0.0) -> LatencyModel:
        """Every call takes exactly `seconds` (the old `think_seconds`), messages `message_seconds`."""
        return cls(seconds, math.inf, math.inf, 0.0, message_seconds, 4.0, f"fixed {seconds:g} s per call")

    def tokens(self, chars: int) -> int:
        return max(1, math.ceil(chars / self.chars_per_token))

    def factor(self, rng: random.Random) -> float:
        return math.exp(rng.gauss(-self.jitter ** 2 / 2, self.jitter)) if self.jitter > 0 else 1.0

    def prompt_seconds(self, prompt_tokens: int) -> float:
        return self.first_token_seconds + prompt_tokens / self.prompt_tokens_per_second

    def completion_seconds(self, completion_tokens: int) -> float:
        return completion_tokens / self.completion_tokens_per_second

    def describe(self) -> str:
        rates = ("" if math.isinf(self.prompt_tokens_per_second) else
                 f" + prompt tokens / {self.prompt_tokens_per_second:g} per s + completion tokens / "
                 f"{self.completion_tokens_per_second:g} per s")
        return (f"an LLM call takes {self.first_token_seconds:g} s{rates}, times a log-normal factor of mean 1 and "
                f"sigma {self.jitter:g}; a message costs its sender {self.message_seconds:g} s "
                f"({self.chars_per_token:g} characters per token). Source: {self.source}")

    def to_json(self) -> dict[str, Any]:
        data = {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in asdict(self).items()}
        return {**data, "describe": self.describe()}

    def scaled(self, k: float) -> LatencyModel:
        """Every call `k` times as long (a slower model, longer replies); messages unchanged."""
        if k < 0 or math.isnan(k):
            raise UserError(f"a latency scale must be 0 or more, got {k:g}")
        if k == 0:
            return replace(LatencyModel.fixed(0.0, self.message_seconds), source=f"{self.source}; calls x0 (no time)")
        if k == 1:
            return self
        return replace(self, first_token_seconds=self.first_token_seconds * k,
                       prompt_tokens_per_second=self.prompt_tokens_per_second / k,
                       completion_tokens_per_second=self.completion_tokens_per_second / k,
                       source=f"{self.source}; every call x{k:g}")


@cache
def system_prompt_chars(stage: str) -> int:
    """Characters of the LLM stage's system prompt (the scripted stand-in reads as much)."""
    name = {"monitor": "hourglass_monitor_system", "task_planner": "hourglass_task_planner_system",
            "action_planner": "hourglass_action_planner_system"}[stage]
    return len(prompt_template(PROMPTS, name).template)


class Thinker:
    """One agent's simulated time for LLM calls and messages, spent on its session's clock."""

    def __init__(self, model: LatencyModel, agent: str, seed: int, emit: Emit | None = None) -> None:
        self.model = model
        self.agent = agent
        self.rng = random.Random(f"{seed}:{agent}")
        self.emit = emit or (lambda kind, data: None)
        self.session: Any = None
        self.spent = 0.0  # simulated seconds in LLM calls

    async def _sleep(self, seconds: float) -> None:
        if self.session is not None and seconds > 0:
            await self.session.sleep(seconds)

    def _record(self, stage: str, seconds: float, **data: Any) -> None:
        now = self.session.now if self.session is not None else 0.0
        self.emit("latency", {"agent": self.agent, "stage": stage, "seconds": round(seconds, 3), "time": round(now, 3), **data})

    async def call(self, stage: str, prompt_chars: int, completion_chars: int) -> None:
        """A modelled call (scripted stand-in): the whole duration at once."""
        prompt, completion = self.model.tokens(prompt_chars), self.model.tokens(completion_chars)
        seconds = (self.model.prompt_seconds(prompt) + self.model.completion_seconds(completion)) * self.model.factor(self.rng)
        self.spent += seconds
        self._record(stage, seconds, prompt_tokens=prompt, completion_tokens=completion, modelled=True)
        await self._sleep(seconds)

    def factor(self) -> float:
        return self.model.factor(self.rng)

    async def before_reply(self, stage: str, prompt_tokens: int, factor: float) -> float:
        """A real call's first part (first token and prompt), slept while the request is in flight."""
        seconds = self.model.prompt_seconds(prompt_tokens) * factor
        self.spent += seconds
        await self._sleep(seconds)
        return seconds

    async def after_reply(self, stage: str, prompt_tokens: int, completion_tokens: int, factor: float, before: float) -> None:
        seconds = self.model.completion_seconds(completion_tokens) * factor
        self.spent += seconds
        self._record(stage, before + seconds, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, modelled=False)
        await self._sleep(seconds)

    async def message(self, kind: str, to: str) -> None:
        seconds = self.model.message_seconds
        if seconds > 0:
            self._record("message", seconds, kind=kind, to=to)
            await self._sleep(seconds)
