"""The hourglass agent: one asynchronous controller per agent.

Each cycle: perception (observation + messages since the last look) -> progress monitor (of the
own job, after an own action) -> task planner (when something new was perceived) -> action planner
-> action queue: messages go out at once, then at most one own action runs (in round-based mode
only with the round's allowance). With nothing to do the agent waits for a message (simulated time
passes meanwhile). The root of the organization ends the run with a stop message once its
objective is met; a commanded agent ends on a stop message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blockpact.agents.hourglass import messages as msg
from blockpact.agents.hourglass.execution import Action
from blockpact.agents.hourglass.messages import Incoming, understand
from blockpact.agents.hourglass.mind import UNKNOWN, Mind
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.hourglass.stages import ActionPlanner, Monitor, Perception, PromptCounter, TaskPlanner
from blockpact.agents.org.structures import Organization
from blockpact.agents.pool import ALL, MessagePool, Subscription

Emit = Callable[[str, dict[str, Any]], None]


class Executor:
    async def execute(self, session: Any, action: Action) -> Any: ...


class HourglassAgent:
    def __init__(
        self,
        mind: Mind,
        org: Organization,
        pool: MessagePool,
        monitor: Monitor,
        task_planner: TaskPlanner,
        action_planner: ActionPlanner,
        executor: Executor,
        counter: PromptCounter,
        *,
        label: str,
        emit: Emit | None = None,
        remote: bool = False,
        on_cycle: Callable[[float], None] | None = None,
    ) -> None:
        self.mind = mind
        self.name = mind.role.name
        self.org = org
        self.pool = pool
        self.monitor = monitor
        self.task_planner = task_planner
        self.action_planner = action_planner
        self.executor = executor
        self.counter = counter
        self.label = label  # "scripted" | "llm"
        self.emit = emit or (lambda kind, data: None)
        self.remote = remote  # the commander is in another process: wait in wall time
        self.inbox: Subscription = pool.subscribe(self.name, overhear=mind.role.overhears)
        self.heard: list[str] = []  # every message perceived, as "sender: text"
        self.on_cycle = on_cycle or (lambda now: None)  # e.g. the referee's stall check
        self._held: list[Incoming] = []
        self._seen: set[str] = set()  # ids of messages already perceived
        self.violations: list[str] = []

    @property
    def prompts(self) -> int:
        return self.counter.n

    def _event(self, stage: str, **data: Any) -> None:
        self.emit("hourglass", {"agent": self.name, "stage": stage, "label": self.label, **data})

    def catch_up(self, history: list[Any]) -> None:
        """Messages sent to this agent before it joined (a late joiner reads the pool's history)."""
        self._held += [self._understand(m) for m in history if m.sender != self.name and m.id not in self._seen]
        self._seen.update(m.id for m in history)

    async def _read_inbox(self) -> list[Incoming]:
        got, self._held = self._held, []
        while self.inbox.pending():
            message = await self.inbox.get()
            if message.id not in self._seen:
                self._seen.add(message.id)
                got.append(self._understand(message))
        return got

    def _understand(self, message: Any) -> Incoming:
        return understand(message, f"{message.sender}.{message.seq}")

    async def run(self, session: Any) -> dict[str, Any]:
        """The controller: cycles until the objective is met (root) or a stop message (others)."""
        settings = hourglass_settings()
        self.counter.clock.session = session
        while not (self.mind.finished or self.mind.stopped):
            self.on_cycle(session.now)
            incoming = tuple(await self._read_inbox())
            self.heard += [f"{m.sender}: {m.text}" for m in incoming]
            perception = Perception(session.now, session.observe(), incoming, tuple(self.heard[-settings.llm.message_lines:]))
            own_acted = self.mind.own is not None and not self.mind.own.judged
            progress = UNKNOWN
            if own_acted:
                progress = await self.monitor.assess(self.mind, perception)
                if self.mind.own is not None:
                    self.mind.own.judged = True
                self._event("monitor", status=progress.status, reason=progress.reason, done=progress.done)
            if perception.messages or progress.status != "unknown" or self.mind.fresh:
                self._event("perception", **perception.summary())
                plan = await self.task_planner.plan(self.mind, perception, progress)
                self._event("task_planner", **plan.to_json())
                actions = await self.action_planner.todo(self.mind, perception, plan)
                own = [a.text for a in self.mind.own.queue] if self.mind.own is not None else []
                self._event("action_planner", todo=[a.text for a in actions] + own)
                self.mind.outbox.extend(actions)
            self.mind.maybe_start_round()
            await self._send_outbox()
            if self.mind.finished:
                await self.counter.clock.message("system", ALL)
                await self.pool.publish(self.name, ALL, "system", msg.stop("the objective is met"))
                break
            if self.mind.stopped:
                break
            if self.mind.may_act():
                await self._act(session)
                continue
            if self.mind.round_over():
                await self._send_outbox()
                continue
            if not (self.mind.own is not None and not self.mind.own.judged):
                message = await session.wait_message(
                    self.inbox, settings.cycle.remote_idle_wait_seconds if self.remote else settings.cycle.idle_wait_seconds,
                    simulated=not self.remote)
                if message is not None and message.id not in self._seen:
                    self._seen.add(message.id)
                    self._held.append(self._understand(message))
        return {"prompts": self.prompts, "violations": self.violations, "problems": self.mind.problems}

    async def _act(self, session: Any) -> None:
        own = self.mind.own
        assert own is not None
        action = own.queue.popleft()
        self.mind.allowance = False
        self._event("action", text=action.text)
        outcome = await self.executor.execute(session, action)
        self.mind.record(outcome)
        self._event("action_done", text=action.text, success=outcome.success, reason=outcome.reason)

    async def _send_outbox(self) -> None:
        out, self.mind.outbox = self.mind.outbox, []
        for action in out:
            to = action.to
            if to is None:
                continue
            if action.message_kind == "command" and not self.org.can_command(self.name, to):
                violation = f"{self.name} may not command {to} in this {self.org.kind}: {action.text}"
                self.violations.append(violation)
                self._event("violation", text=violation)
                self.mind.withdraw(action.body.get("job"))
                continue
            await self.counter.clock.message(action.message_kind or "chat", to)
            await self.pool.publish(self.name, to, action.message_kind or "chat", action.body or action.text)
