"""The hourglass stages: perception, progress monitor, task planner, action planner; the scripted
(deterministic, no LLM) implementation of each, and the protocols the LLM ones share.

Scripted task planner: a stage's jobs are split evenly over the team (by how many working agents
under each member can do them); a failed job's rest goes to a member with a success record (idle
first), else to any other member. Scripted action planner: delegations become "inform X to ..."
commands; an own job becomes its prerequisite chain (see `prerequisites`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Protocol

from blockpact.agents.hourglass import messages as msg
from blockpact.agents.hourglass.execution import Action, ActionOutcome
from blockpact.agents.hourglass.latency import LatencyModel, Thinker, system_prompt_chars
from blockpact.agents.hourglass.messages import Incoming
from blockpact.agents.hourglass.mind import UNKNOWN, Mind, Progress, TaskPlan
from blockpact.agents.hourglass.prerequisites import NoWayToMake, PrerequisitePlanner, Step
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.org.jobs import COLLECT, Job, split
from blockpact.worlds.spec.mcdata import MinecraftData
from blockpact.worlds.spec.schema import WorldSpec


@dataclass(frozen=True)
class Perception:
    """What the agent sees now: its body's observation and the messages since it last looked."""

    time: float
    observation: dict[str, Any]
    messages: tuple[Incoming, ...]
    context: tuple[str, ...] = ()  # the conversation the agent remembers (its last perceived messages)

    @property
    def inventory(self) -> dict[str, int]:
        return dict(self.observation.get("inventory", {}))

    def summary(self) -> dict[str, Any]:
        return {"time": round(self.time, 3), "inventory": self.inventory,
                "messages": [f"{m.sender}: {m.text}" for m in self.messages]}


class Monitor(Protocol):
    async def assess(self, mind: Mind, perception: Perception) -> Progress: ...


class TaskPlanner(Protocol):
    async def plan(self, mind: Mind, perception: Perception, progress: Progress) -> TaskPlan: ...


class ActionPlanner(Protocol):
    async def todo(self, mind: Mind, perception: Perception, plan: TaskPlan) -> list[Action]: ...


def held(inventory: dict[str, int], item: str) -> int:
    return int(inventory.get(item, 0))


def own_progress(mind: Mind, perception: Perception) -> Progress:
    """The facts about the own job after its last action (what a scripted monitor concludes)."""
    own = mind.own
    if own is None or own.judged:
        return UNKNOWN
    job, last = own.job, own.last
    if job.verb == COLLECT:
        done = max(0, held(perception.inventory, job.item) - own.baseline)
        if done >= job.count:
            return Progress("success", f"I hold {done} more {job.item}", done)
        if last is not None and not last.success:
            return Progress("fail", last.reason or "the action failed", done, job.rest(done, job.id))
        if not own.queue:
            return Progress("fail", f"my plan ended with only {done} of {job.count} {job.item}", done, job.rest(done, job.id))
        return Progress("unknown", f"{done} of {job.count} {job.item} so far", done)
    if last is not None and not last.success:
        unplaced = set(last.unplaced) if last.unplaced else set(job.positions)
        left = tuple(p for p in job.positions if p in unplaced)
        rest = Job(job.id, job.verb, job.item, len(left), left) if left else None
        return Progress("fail", last.reason or "the action failed", job.count - len(left), rest)
    if not own.queue:
        return Progress("success", f"placed {job.count} {job.item}", job.count)
    return Progress("unknown", "still preparing", 0)


class ScriptedMonitor:
    def __init__(self, counter: PromptCounter) -> None:
        self.counter = counter

    async def assess(self, mind: Mind, perception: Perception) -> Progress:
        progress = own_progress(mind, perception)
        own = mind.own
        facts = f"{own.job.text() if own else ''} {own.last.action.text if own and own.last else ''} {perception.inventory}"
        await self.counter.decide("monitor", system_prompt_chars("monitor") + len(facts),
                                  len(json.dumps({"status": progress.status, "reason": progress.reason})))
        return progress


class PromptCounter:
    """An agent's LLM calls (prompt times) and the simulated time they take: real calls for LLM
    agents, modelled ones for scripted agents (one per stage decision an LLM stage would take)."""

    def __init__(self, clock: Thinker | None = None) -> None:
        self.n = 0
        self.clock = clock or Thinker(LatencyModel.fixed(0.0), "?", 0)

    def count(self, k: int = 1) -> None:
        self.n += k

    async def decide(self, stage: str, prompt_chars: int, completion_chars: int) -> None:
        """A scripted stage's decision, as long as an LLM call of that size would take."""
        self.count()
        await self.clock.call(stage, prompt_chars, completion_chars)


def context_chars(mind: Mind, perception: Perception, world: str) -> int:
    """What a planner prompt holds besides its system prompt: the world, the objective and plan,
    the team, and the conversation the agent remembers."""
    team = sum(len(m) + 60 + 12 * len(agents) for m, agents in mind.role.team.items())
    return (len(world) + len(mind.objective) + sum(len(j.text()) + 4 for stage in mind.stages for j in stage) + team
            + sum(len(line) + 1 for line in perception.context) + 20 * len(perception.inventory))


def able(mind: Mind, member: str, job: Job, data: MinecraftData) -> int:
    """How many working agents under `member` can do `job`, as far as `mind` knows their inventories (collect: all;
    place: those holding the block or every ingredient of one of its recipes)."""
    def can(agent: str) -> bool:
        if job.verb == COLLECT:
            return True
        inv = mind.inventories.get(agent, {})
        if inv.get(job.item, 0) > 0:
            return True
        return any(all(inv.get(i, 0) >= n for i, n in r.ingredients.items()) for r in data.recipes.get(job.item, []))
    return sum(1 for agent in mind.role.team.get(member, ()) if can(agent))


def share_out(mind: Mind, data: MinecraftData) -> list[tuple[str, Job]]:
    """The scripted task planner's decision: split fresh stage jobs evenly over the members able to
    do them; give failed rests to members with a success record."""
    members = list(mind.role.team)
    assignments: list[tuple[str, Job]] = []
    for job in mind.fresh:
        weights = [able(mind, m, job, data) for m in members]
        if sum(weights) == 0:
            mind.problems.append(f"nobody in my team can {job.text()}")
            mind.reassign.append((job, ""))
            continue
        parts = split(job, weights, [job.id] * len(members))
        assignments += [(m, mind.child(p, job.id)) for m, p in zip(members, parts, strict=True) if p is not None]
    mind.fresh = []
    still: list[tuple[Job, str]] = []
    busy = {m for m, _ in mind.open.values()} | {m for m, _ in assignments}
    for job, failed_by in mind.reassign:
        capable = [m for m in members if able(mind, m, job, data) and m != failed_by]
        proven = [m for m in capable if mind.successes[m] > 0]
        ranked = [m for m in proven if m not in busy] or proven or [m for m in capable if m not in busy]
        if not ranked:
            if mind.role.commander is not None and not any(m != failed_by for m in capable):
                mind.give_up(job)
                return assignments
            still.append((job, failed_by))
            continue
        member = min(ranked, key=lambda m: (-mind.successes[m], mind.failures[m], members.index(m)))
        assignments.append((member, mind.child(job, mind.parent_of(job.id))))
        busy.add(member)
    mind.reassign = still
    return assignments


class ScriptedTaskPlanner:
    def __init__(self, data: MinecraftData, counter: PromptCounter, world: str = "") -> None:
        self.data = data
        self.counter = counter
        self.world = world

    async def plan(self, mind: Mind, perception: Perception, progress: Progress) -> TaskPlan:
        prompt = system_prompt_chars("task_planner") + context_chars(mind, perception, self.world)
        mind.absorb(list(perception.messages), progress, perception.inventory)
        mind.assign(share_out(mind, self.data))
        plan = plan_of(mind)
        await self.counter.decide("task_planner", prompt, len(json.dumps(plan.to_json())))
        return plan


def plan_of(mind: Mind) -> TaskPlan:
    return TaskPlan(
        objective=mind.objective,
        stages=tuple("; ".join(j.text() for j in stage) for stage in mind.stages),
        task_at_hand=mind.task_at_hand(),
        asked_by=mind.asked_by,
        assignments=tuple(mind.dispatch()),
    )


def inform(member: str, job: Job) -> Action:
    body = msg.command(job)
    return Action("send", f"inform {member} to {job.text()}", to=member, message_kind="command", body=body)


class ScriptedActionPlanner:
    def __init__(self, spec: WorldSpec, data: MinecraftData, counter: PromptCounter) -> None:
        self.spec = spec
        self.data = data
        self.counter = counter

    async def todo(self, mind: Mind, perception: Perception, plan: TaskPlan) -> list[Action]:
        if plan.assignments:  # an LLM action planner is asked only when there is something to plan
            todo = [f"inform {m} to {j.text()}" if m != mind.role.name else j.text() for m, j in plan.assignments]
            prompt = system_prompt_chars("action_planner") + len(plan.task_at_hand) + sum(map(len, todo)) \
                + 20 * (len(perception.inventory) + len(perception.observation.get("nearby_blocks", {})))
            await self.counter.decide("action_planner", prompt, len(json.dumps({"todo": todo})) + 40 * len(todo))
        actions = []
        own_begun = False
        for member, job in plan.assignments:
            if member != mind.role.name:
                mind.sent(member, job)
                actions.append(inform(member, job))
                continue
            if own_begun:  # one own job at a time: the next waits for a later cycle
                mind.pending.append((member, job))
                continue
            own_begun = True
            try:
                steps = self.steps(job, perception, mind.kept)
            except NoWayToMake as exc:
                mind.begin_own(job, held(perception.inventory, job.item), [])
                mind.record(ActionOutcome(Action("act", job.text()), False, str(exc), None))
                continue
            mind.begin_own(job, held(perception.inventory, job.item), [Action("act", s.text(), step=s) for s in steps])
        return actions

    def steps(self, job: Job, perception: Perception, kept: dict[str, int] | None = None) -> list[Step]:
        """The job's steps; `kept` items (delivered for earlier jobs) count as not held, so tools are
        made from newly gathered material rather than from what the team already counts."""
        kept = kept or {}
        usable = {k: v - kept.get(k, 0) for k, v in perception.inventory.items() if v - kept.get(k, 0) > 0}
        planner = PrerequisitePlanner(self.spec, self.data, usable, perception.observation.get("nearby_blocks", {}))
        if job.verb == COLLECT:
            return chunked(planner.chain(job.item, job.count, gain=True))
        return [*chunked(planner.chain(job.item, job.count, gain=False)), Step("place", job.item, job.count, positions=job.positions)]


def chunked(steps: list[Step]) -> list[Step]:
    """Mine steps cut into todo items of at most `scripted.mine_chunk` blocks."""
    chunk = hourglass_settings().scripted.mine_chunk
    out: list[Step] = []
    for step in steps:
        if step.action != "mine" or step.count <= chunk:
            out.append(step)
            continue
        left = step.count
        while left > 0:
            out.append(replace(step, count=min(chunk, left)))
            left -= chunk
    return out
