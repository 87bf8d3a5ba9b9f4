"""The hourglass stages on an LLM: progress monitor, task planner and action planner answer JSON
(prompts in `prompts/hourglass_*.md`); own actions go to the Voyager action agent and critic.

A reply that is not the JSON asked for is asked again with the problem; after the configured
attempts the stage falls back to the scripted decision for that cycle and says so in the agent's
problems. Delegations the LLM writes are checked: only team members, only job sentences the
organization understands, never more than the work to hand out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blockpact.agents.action import LLMActionAgent
from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import items_text, render
from blockpact.agents.critic import Critic
from blockpact.agents.hourglass.execution import Action, VoyagerExecutor
from blockpact.agents.hourglass.mind import Mind, Progress, TaskPlan
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.hourglass.stages import Perception, PromptCounter, held, inform, own_progress, plan_of, share_out
from blockpact.agents.org.roles import Role
from blockpact.llm.errors import LLMError
from blockpact.llm.repair import ask_until_usable, find_json_object
from blockpact.agents.org.jobs import PLACE, Job
from blockpact.agents.org.structures import Organization
from blockpact.agents.voyager_loop import VoyagerLoop
from blockpact.worlds.spec.mcdata import MinecraftData
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import Completion, LLMClient

STATUSES = ("success", "fail", "unknown")


class CountingLLM:
    """The run's client as one agent uses it: counts the agent's calls (its prompt times) and spends
    the latency model's time on them (`Thinker`). The request goes out at once and the agent sleeps
    the prompt part on the clock meanwhile, so other agents act and their calls overlap in wall time;
    the reply is then awaited with the clock stopped (the trajectory does not depend on how fast the
    endpoint answers), and the completion part is slept on its real token count."""

    def __init__(self, client: LLMClient, counter: PromptCounter) -> None:
        self.client = client
        self.counter = counter

    async def complete(self, role: str, messages: Any, **overrides: Any) -> Completion:
        clock = self.counter.clock
        estimate = clock.model.tokens(sum(len(str(m.get("content", ""))) for m in messages))
        factor = clock.factor()
        request = asyncio.ensure_future(self.client.complete(role, messages, **overrides))
        request.add_done_callback(lambda done: None if done.cancelled() or done.exception() else self.counter.count())
        try:
            before = await clock.before_reply(role, estimate, factor)
        except BaseException:  # the episode ended while thinking: the reply is not wanted
            request.cancel()
            raise
        completion = await request
        await clock.after_reply(role, completion.usage.prompt_tokens or estimate, completion.usage.completion_tokens,
                                factor, before)
        return completion


class StageError(Exception):
    pass


async def ask_json(llm: CountingLLM, role: str, system: str, user: str, check: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """The first reply that is a JSON object `check` accepts (it raises ValueError otherwise)."""
    messages: list[dict[str, str]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def parse(reply: str) -> dict[str, Any]:
        data = find_json_object(reply)
        check(data)
        return data

    retry = lambda problem: {"role": "user", "content": render("hourglass_json_error", error=problem)}  # noqa: E731
    # An LLMError (the endpoint unavailable, a request refused, no text in any attempt) propagates: the seed
    # fails with cause `endpoint` (experiments/play/org/run.py) instead of the agent carrying on as if it had thought.
    asked = await ask_until_usable(llm, role, messages, parse, retry, hourglass_settings().llm.json_attempts)
    if asked.value is None:
        raise StageError(f"{role}: no usable reply after {asked.attempts} attempts; last problem: {asked.last_problem}")
    return asked.value


def _messages_text(perception: Perception) -> str:
    lines = [f"{m.sender} ({m.message.kind.value}): {m.text}" for m in perception.messages][-hourglass_settings().llm.message_lines:]
    return "\n".join(lines) or "none"


class LLMMonitor:
    def __init__(self, llm: CountingLLM, name: str) -> None:
        self.llm = llm
        self.name = name

    async def assess(self, mind: Mind, perception: Perception) -> Progress:
        facts = own_progress(mind, perception)
        own = mind.own
        if own is None:
            return facts
        last = own.last
        user = render("hourglass_monitor_user", job=own.job.text(), done=facts.done, count=own.job.count,
                      last_action=last.action.text if last else "none",
                      last_result=("succeeded" if last.success else f"failed: {last.reason}") if last else "none",
                      todo_left=len(own.queue), inventory=items_text(perception.inventory))

        def check(data: dict[str, Any]) -> None:
            if data.get("status") not in STATUSES:
                raise ValueError(f'"status" must be one of {", ".join(STATUSES)}, got {json.dumps(data.get("status"))}')

        try:
            data = await ask_json(self.llm, "monitor", render("hourglass_monitor_system", agent=self.name), user, check)
        except StageError as exc:
            mind.problems.append(str(exc))
            return facts
        status = data["status"]
        if status == "unknown" and not own.queue:
            status = facts.status if facts.status != "unknown" else "fail"  # nothing left to try
        reason = str(data.get("reason") or facts.reason)
        if status == "fail":
            return Progress("fail", reason, facts.done, facts.left or own.job.rest(facts.done, own.job.id))
        return Progress(status, reason, facts.done, facts.left)


def _match(mind: Mind, member: str, job: Job, sources: list[list[Any]]) -> Job | None:
    """Take `job`'s units out of the work to hand out (sources: [job, parent id, units left])."""
    for source in sources:
        work, parent, left = source
        if work.verb != job.verb or work.item != job.item or not left:
            continue
        if job.verb == PLACE:
            taken = [p for p in job.positions if p in left]
            if not taken:
                continue
            source[2] = [p for p in left if p not in taken]
            return mind.child(Job(work.id, PLACE, work.item, len(taken), tuple(taken)), parent)
        n = min(job.count, left)
        source[2] = left - n
        return mind.child(Job(work.id, work.verb, work.item, n), parent)
    return None


class LLMTaskPlanner:
    def __init__(self, llm: CountingLLM, role: Role, spec: WorldSpec, data: MinecraftData) -> None:
        self.llm = llm
        self.role = role
        self.spec = spec
        self.data = data
        self.position = "the leader" if role.commander is None else f"commanded by {role.commander}"

    async def plan(self, mind: Mind, perception: Perception, progress: Progress) -> TaskPlan:
        mind.absorb(list(perception.messages), progress, perception.inventory)
        work = [*((j, j.id) for j in mind.fresh), *((j, mind.parent_of(j.id)) for j, _ in mind.reassign)]
        if not work:
            return plan_of(mind)
        if list(mind.role.team) == [self.role.name]:  # a worker: its job is its own, nothing to decide
            mind.assign(share_out(mind, self.data))
            return plan_of(mind)
        team = "\n".join(
            f"- {m}: {', '.join(agents)}; holds {items_text(mind.inventories.get(m, {}), 'nothing known')}; "
            f"{mind.successes[m]} success(es), {mind.failures[m]} failure(s)" for m, agents in mind.role.team.items())
        user = render("hourglass_task_planner_user", world=self.spec.description, objective=mind.objective,
                      asked_by=mind.asked_by or "nobody (you lead)",
                      stages="; ".join(f"{i + 1}) " + ", ".join(j.text() for j in s) for i, s in enumerate(mind.stages)) or "none",
                      stage=mind.stage + 1, team=team, jobs="\n".join(f"- {j.text()}" for j, _ in work),
                      messages=_messages_text(perception))

        def check(data: dict[str, Any]) -> None:
            items = data.get("assignments")
            if not isinstance(items, list) or not all(isinstance(a, dict) and isinstance(a.get("agent"), str) and isinstance(a.get("task"), str) for a in items):
                raise ValueError('"assignments" must be a list of {"agent": NAME, "task": "collect N ITEM"}')

        try:
            data = await ask_json(self.llm, "planner", render("hourglass_task_planner_system", agent=self.role.name,
                                                              position=self.position), user, check)
        except StageError as exc:
            mind.problems.append(f"{exc}; used the scripted task planner")
            mind.assign(share_out(mind, self.data))
            return plan_of(mind)
        sources = [[j, parent, list(j.positions) if j.verb == PLACE else j.count] for j, parent in work]
        assignments = []
        for item in data["assignments"]:
            member, text = item["agent"], item["task"]
            job = Job.parse(text, "llm")
            if member not in mind.role.team:
                mind.problems.append(f"the task planner gave {text!r} to {member}, who is not in the team")
            elif job is None:
                mind.problems.append(f"the task planner wrote a job the organization does not understand: {text!r}")
            elif (made := _match(mind, member, job, sources)) is not None:
                assignments.append((member, made))
        mind.fresh = []
        mind.reassign = [(Job(j.id, j.verb, j.item, len(left) if j.verb == PLACE else left,
                              tuple(left) if j.verb == PLACE else ()), "")
                         for j, parent, left in sources if left]
        for job, _ in mind.reassign:
            mind.parent[job.id] = next(p for j, p, _ in sources if j.id == job.id)
        mind.assign(assignments)
        plan = plan_of(mind)
        stages = data.get("stages")
        return TaskPlan(str(data.get("objective") or plan.objective),
                        tuple(map(str, stages)) if isinstance(stages, list) else plan.stages,
                        str(data.get("task") or plan.task_at_hand), plan.asked_by, plan.assignments)


class LLMActionPlanner:
    def __init__(self, llm: CountingLLM, role: Role, org: Organization) -> None:
        self.llm = llm
        self.role = role
        self.org = org

    async def todo(self, mind: Mind, perception: Perception, plan: TaskPlan) -> list[Action]:
        me = self.role.name
        delegations = [(m, j) for m, j in plan.assignments if m != me]
        own = [j for m, j in plan.assignments if m == me]
        if not delegations and not own:
            return []
        user = render("hourglass_action_planner_user", task=plan.task_at_hand,
                      delegations="\n".join(f"- inform {m} to {j.text()}" for m, j in delegations) or "none",
                      own_job=own[0].text() if own else "none", inventory=items_text(perception.inventory),
                      blocks=items_text(perception.observation.get("nearby_blocks", {}), "none"))

        def check(data: dict[str, Any]) -> None:
            todo = data.get("todo")
            if not isinstance(todo, list) or not all(isinstance(t, dict) and (isinstance(t.get("do"), str) or (
                    isinstance(t.get("inform"), str) and isinstance(t.get("task"), str))) for t in todo):
                raise ValueError('"todo" must be a list of {"inform": NAME, "task": "..."} or {"do": "..."}')

        try:
            todo = (await ask_json(self.llm, "planner", render("hourglass_action_planner_system", agent=me), user, check))["todo"]
        except StageError as exc:
            mind.problems.append(f"{exc}; informing and acting on the decided jobs as they are")
            todo = [{"inform": m, "task": j.text()} for m, j in delegations] + [{"do": j.text()} for j in own]
        actions, waiting = [], list(delegations)
        for item in todo:
            if "inform" in item:
                member = item["inform"]
                match = next((d for d in waiting if d[0] == member), None)
                if match is None:
                    mind.problems.append(f"the action planner wanted to inform {member}: {item['task']!r}, which nobody decided")
                    continue
                waiting.remove(match)
                mind.sent(*match)
                actions.append(inform(*match))
        for member, job in waiting:
            mind.unsent(member, job)
        if own:
            steps = [Action("act", item["do"]) for item in todo if "do" in item] or [Action("act", own[0].text())]
            mind.begin_own(own[0], held(perception.inventory, own[0].item), steps)
            for job in own[1:]:
                mind.unsent(me, job)
        return actions


def llm_stages(client: LLMClient, counter: PromptCounter, role: Role, org: Organization, spec: WorldSpec,
               data: MinecraftData) -> tuple[Any, Any, Any, Any]:
    llm = CountingLLM(client, counter)
    loop = VoyagerLoop(LLMActionAgent(llm, role.name, spec), Critic(llm),  # type: ignore[arg-type]
                       attempts=hourglass_settings().llm.action_attempts)
    executor = VoyagerExecutor(loop, ActionContext(player=role.name, world=spec, task=""))
    return LLMMonitor(llm, role.name), LLMTaskPlanner(llm, role, spec, data), LLMActionPlanner(llm, role, org), executor
