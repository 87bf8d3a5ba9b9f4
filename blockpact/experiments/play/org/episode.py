"""One organization episode (the OrgRunner in run.py plays one per condition and seed): a world built for
the task (the simulator's, or a live server's), an in-process pool on the world's clock, one hourglass agent
per member as its own controller, and a referee that watches the world for success (or a stall) and records
time cost.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blockpact.agents.hourglass.factory import make_agent
from blockpact.agents.hourglass.latency import LatencyModel
from blockpact.llm.errors import LLMError
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.org.roles import leader_of, roles
from blockpact.agents.org.structures import Organization
from blockpact.agents.org.tasks import Task
from blockpact.agents.pool import ALL, InProcessPool, Message
from blockpact.bridge.protocols import AgentWorld
from blockpact.bridge.sim import SimWorld
from blockpact.experiments.play.org.settings import org_settings
from blockpact.experiments.log.run_events import Coords, EventWriter
from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient


class Referee:
    """Watches the task's progress on the world state. Success stops the agents at once; so does
    S-Agents' failure rule: no progress for `stall_seconds` after more than `stall_failures`
    failed attempts (time cost is then NaN)."""

    def __init__(self, task: Task, world: AgentWorld) -> None:
        settings = org_settings()
        self.task = task
        self.world = world
        self.stall_seconds = settings.stall_minutes * 60
        self.stall_failures = settings.stall_failures
        self.best = task.progress(world.state)
        self.last_progress = 0.0
        self.failed_attempts = 0
        self.success_time: float | None = None
        self.stalled = False
        self.targets = {c: p.block for p in task.parts for c in p.cells}  # build tasks: cell -> block
        self.built_by: dict[tuple[int, int, int], str] = {}  # cell -> who placed its block last

    def items_per_agent(self, agents: list[str]) -> dict[str, int]:
        """What each agent contributed: the task's item it holds (collect) or the task cells holding
        their block that it placed (build)."""
        state = self.world.state
        if self.task.kind == "collect":
            return {a: self.task.counted(state.inventories.get(a, {})) for a in agents}
        placed = {a: 0 for a in agents}
        for cell, agent in self.built_by.items():
            if state.block_at(cell) == self.targets[cell] and agent in placed:
                placed[agent] += 1
        return placed

    def on_event(self, event: Event) -> None:
        if event.kind == "program_end" and not event.data.get("success") and self.world.stopped is None:
            self.failed_attempts += 1
        if event.kind == "block" and event.agent is not None:
            cell = tuple(event.data.get("pos", ()))
            if self.targets.get(cell) == event.data.get("new"):  # type: ignore[call-overload]
                self.built_by[cell] = event.agent  # type: ignore[index]
        if event.kind in ("block", "inventory", "give", "craft") or event.kind.startswith("program"):
            progress = self.task.progress(self.world.state)
            if progress > self.best:
                self.best, self.last_progress = progress, self.world.now
            if progress >= self.task.total and self.success_time is None:
                self.success_time = self.world.now
                self.world.stop("the task is done")
        self.check(self.world.now)

    def check(self, now: float) -> None:
        if self.success_time is None and not self.stalled and self.failed_attempts > self.stall_failures \
                and now - self.last_progress >= self.stall_seconds:
            self.stalled = True
            self.world.stop(f"no progress for {self.stall_seconds / 60:g} simulated minutes after "
                            f"{self.failed_attempts} failed attempts")


@dataclass
class EpisodeResult:
    seed: int
    success: bool
    time_cost_min: float | None
    prompt_times: dict[str, int]
    messages: int
    failed_attempts: int
    stalled: bool
    sim_minutes: float
    wall_seconds: float
    progress: list[int]
    violations: list[str] = field(default_factory=list)
    llm: dict[str, Any] = field(default_factory=dict)
    items_per_agent: dict[str, int] = field(default_factory=dict)
    messages_per_agent: dict[str, int] = field(default_factory=dict)
    think_seconds: dict[str, float] = field(default_factory=dict)  # simulated seconds each agent spent on LLM calls

    @property
    def mean_prompt_times(self) -> float:
        return sum(self.prompt_times.values()) / len(self.prompt_times) if self.prompt_times else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "success": self.success, "time_cost_min": self.time_cost_min,
                "mean_prompt_times": self.mean_prompt_times, "prompt_times": self.prompt_times,
                "messages": self.messages, "failed_attempts": self.failed_attempts, "stalled": self.stalled,
                "sim_minutes": self.sim_minutes, "wall_seconds": self.wall_seconds, "progress": self.progress,
                "violations": self.violations, "llm": self.llm, "items_per_agent": self.items_per_agent,
                "messages_per_agent": self.messages_per_agent, "think_seconds": self.think_seconds}


def _failing_on_endpoint(run: Callable[[Any], Awaitable[Any]], world: Any,
                         failures: list[LLMError]) -> Callable[[Any], Awaitable[Any]]:
    """An agent whose LLM endpoint failed after every retry ends the episode at once: its seed is a failure,
    not an organization that silently stopped thinking."""
    async def controller(session: Any) -> Any:
        try:
            return await run(session)
        except LLMError as exc:
            failures.append(exc)
            world.stop(f"LLM endpoint failed: {exc}")
            raise
    return controller


async def run_episode(
    task: Task,
    org: Organization,
    mode: str,
    seed: int,
    *,
    llm: LLMClient | None = None,
    writer: EventWriter | None = None,
    coords: Coords = Coords(),
    latency: LatencyModel | None = None,
    worlds: Callable[[WorldSpec, int], Any] | None = None,
) -> EpisodeResult:
    """One episode; `worlds(spec, seed)` makes the world (default the simulator's `SimWorld`; a live
    server's through `blockpact.bridge.live.agents.LiveAgents`)."""
    role_of = roles(org)
    workers = [a for a in org.agents if role_of[a].works]
    spec = task.world_for(org.agents, workers)
    world = (worlds or SimWorld)(spec, seed)
    referee = Referee(task, world)
    emit = (lambda kind, data: writer.emit(kind, data, coords)) if writer is not None else None
    messages: list[Message] = []

    def on_message(message: Message) -> None:
        messages.append(message)
        overhearing = [a for a in org.agents if role_of[a].overhears]
        world.wake(org.agents if ALL in message.recipients else sorted({*message.recipients, *overhearing}))
        if emit is not None:
            emit("message", message.to_json())

    def on_world_event(event: Event) -> None:
        if emit is not None:
            emit("world", event.to_json())
        referee.on_event(event)

    world.listen(on_world_event)
    pool = InProcessPool(clock=lambda: world.now)
    pool.listeners.append(on_message)
    known = task.start_inventories(workers)
    model = latency or hourglass_settings().latency
    started = time.monotonic()
    endpoint_failures: list[LLMError] = []
    llm_before = llm.accounting.total() if llm is not None else None
    if emit is not None:
        emit("org_start", {"task": task.name, "description": task.description, "organization": org.to_json(),
                           "describe": org.describe(), "mode": mode, "leader": leader_of(org),
                           "agents": "scripted" if llm is None else "llm", "total": task.total, "item": task.item,
                           "items": dict(task.items),
                           "cells": [[list(c), p.block] for p in task.parts for c in p.cells], "latency": model.to_json()})
    try:
        async with pool:
            agents = {a: make_agent(role_of[a], org, mode, pool, spec, known, llm=llm, emit=emit, on_cycle=referee.check,
                                    latency=model, seed=seed)
                      for a in org.agents}
            leader = leader_of(org)
            agents[leader].mind.set_objective(task.description, task.stages(), None, None)

            await world.run_agents({a: _failing_on_endpoint(agents[a].run, world, endpoint_failures) for a in org.agents})
    finally:
        await world.close()
    if endpoint_failures:  # the seed failed (cause `endpoint`): an agent could not think, no outcome to score
        raise endpoint_failures[0]
    success = referee.success_time is not None
    result = EpisodeResult(
        seed=seed,
        success=success,
        time_cost_min=round(referee.success_time / 60, 4) if success else None,
        prompt_times={a: agents[a].prompts for a in org.agents},
        messages=len(messages),
        failed_attempts=referee.failed_attempts,
        stalled=referee.stalled,
        sim_minutes=round(world.now / 60, 4),
        wall_seconds=round(time.monotonic() - started, 3),
        progress=[task.progress(world.state), task.total],
        violations=[v for a in org.agents for v in agents[a].violations],
        items_per_agent=referee.items_per_agent(org.agents),
        messages_per_agent={a: sum(1 for m in messages if m.sender == a) for a in org.agents},
        think_seconds={a: round(agents[a].counter.clock.spent, 3) for a in org.agents},
    )
    if llm is not None and llm_before is not None:
        after = llm.accounting.total()
        result.llm = {"calls": after.calls - llm_before.calls, "prompt_tokens": after.prompt_tokens - llm_before.prompt_tokens,
                      "completion_tokens": after.completion_tokens - llm_before.completion_tokens}
    if emit is not None:
        emit("org_end", result.to_json())
    return result
