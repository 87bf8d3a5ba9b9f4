"""An hourglass agent's memory and bookkeeping: its place in the organization, its objective in
stages, who does which job, who succeeded, and its own job at hand.

The stages (monitor, task planner, action planner) decide; the mind only records what was decided
and what was reported, so scripted and LLM stages share it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from blockpact.agents.hourglass import messages as msg
from blockpact.agents.hourglass.execution import Action, ActionOutcome
from blockpact.agents.hourglass.messages import Incoming
from blockpact.agents.org.jobs import COLLECT, Job
from blockpact.agents.org.roles import Role
from blockpact.errors import UserError

MODES = ("async", "rounds", "relay")


@dataclass(frozen=True)
class Progress:
    status: str  # success | fail | unknown
    reason: str
    done: int = 0
    left: Job | None = None


UNKNOWN = Progress("unknown", "nothing new to judge")


@dataclass(frozen=True)
class TaskPlan:
    objective: str
    stages: tuple[str, ...]
    task_at_hand: str
    asked_by: str | None
    assignments: tuple[tuple[str, Job], ...]  # (member, job) to hand out now

    def to_json(self) -> dict[str, Any]:
        return {"objective": self.objective, "stages": list(self.stages), "task_at_hand": self.task_at_hand,
                "asked_by": self.asked_by, "assignments": [[m, j.text()] for m, j in self.assignments]}


@dataclass
class OwnWork:
    job: Job
    baseline: int  # how much of the job's item was held when it started (collect)
    queue: deque[Action] = field(default_factory=deque)
    last: ActionOutcome | None = None
    unplaced: tuple = ()
    judged: bool = True  # the monitor has seen the last outcome


class Mind:
    def __init__(self, role: Role, mode: str, known_inventories: dict[str, dict[str, int]] | None = None) -> None:
        if mode not in MODES:
            raise UserError(f"unknown collaboration mode {mode!r}: use one of {', '.join(MODES)}")
        self.role = role
        self.mode = mode
        self.inventories: dict[str, dict[str, int]] = {k: dict(v) for k, v in (known_inventories or {}).items()}
        self.objective = "wait for a task from " + (role.commander or "nobody")
        self.objective_job: Job | None = None
        self.asked_by: str | None = None
        self.stages: list[list[Job]] = []
        self.stage = 0
        self.fresh: list[Job] = []  # jobs of the current stage not yet shared out
        self.reassign: list[tuple[Job, str]] = []  # (job left by a failure, who failed it)
        self.pending: deque[tuple[str, Job]] = deque()  # decided, not yet sent
        self.open: dict[str, tuple[str, Job]] = {}  # job id -> (member, job), sent and not reported
        self.successes: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()
        self.own: OwnWork | None = None
        self.outbox: list[Action] = []
        self.finished = False
        self.stopped = False
        self.round = 0
        self.round_active = False
        self.allowance = False  # may run one own action in this round
        self.round_waiting: set[str] = set()
        self._ids = itertools.count(1)
        self.parent: dict[str, str] = {}  # job id -> the stage job it is part of
        self.stage_left: dict[str, int] = {}  # stage job id -> units not yet reported done
        self.problems: list[str] = []
        self.last_failure = ""
        self.orders: deque[Job] = deque()  # jobs commanded while busy with another
        self.kept: Counter[str] = Counter()  # items delivered for own finished collect jobs: not to be used up

    # -- objective ------------------------------------------------------------------------------
    def child(self, job: Job, parent_id: str) -> Job:
        """`job` under a fresh id, counted towards the stage job `parent_id`."""
        made = dataclasses.replace(job, id=f"{self.role.name}.{next(self._ids)}")
        self.parent[made.id] = parent_id
        return made

    def parent_of(self, job_id: str) -> str:
        return self.parent.get(job_id, job_id)

    def set_objective(self, text: str, stages: list[list[Job]], asked_by: str | None, job: Job | None) -> None:
        self.objective, self.stages, self.stage = text, stages, 0
        self.asked_by, self.objective_job = asked_by, job
        self.fresh = list(stages[0]) if stages else []
        self.reassign, self.pending, self.open = [], deque(), {}
        self.stage_left = {j.id: j.count for j in self.fresh}

    @property
    def idle(self) -> bool:
        return not self.stages

    def task_at_hand(self) -> str:
        if self.own is not None:
            return self.own.job.text()
        if self.stages and self.stage < len(self.stages):
            return f"stage {self.stage + 1} of {len(self.stages)}: " + "; ".join(j.text() for j in self.stages[self.stage])
        return self.objective

    # -- what the agent perceived -----------------------------------------------------------------
    def absorb(self, incoming: list[Incoming], progress: Progress, inventory: dict[str, int]) -> None:
        """Record messages and the own job's progress; move to the next stage when one is complete."""
        me = self.role.name
        self.inventories[me] = dict(inventory)
        for item in incoming:
            if not item.message.is_for(me):
                continue  # overheard: read (it costs its reader time), not acted on
            if item.problem:
                self.problems.append(f"message from {item.sender}: {item.problem}")
                continue
            if item.stop:
                self.stopped = True
            elif item.sender == self.role.commander and item.round is not None:
                self._start_round(item.round)
            elif item.sender == self.role.commander and item.job is not None:
                self.orders.append(item.job)
            elif item.sender in self.role.subordinates and item.status:
                self._member_report(item)
        if self.idle and self.orders:
            self._take_order()
        if progress.status != "unknown" and self.own is not None:
            job, self.own = self.own.job, None
            if progress.status == "success":
                self._finished_job(me, job, job.count)
            else:
                self._failed_job(me, job, progress.left, progress.reason)
        self._advance()

    def _take_order(self) -> None:
        """Orders are taken one at a time, in the order given."""
        job = self.orders.popleft()
        self.set_objective(f"do what {self.role.commander} asked: {job.text()}", [[job]], self.role.commander, job)
        self.outbox.append(self._report(msg.STARTED, job))

    def _member_report(self, item: Incoming) -> None:
        body = item.message.body
        if isinstance(body, dict) and isinstance(body.get("inventory"), dict):
            self.inventories[item.sender] = dict(body["inventory"])
        if item.status in (msg.SUCCESS, msg.FAIL, msg.ROUND):
            self.round_waiting.discard(item.sender)
        job = item.job
        if job is None or job.id not in self.open:
            return
        if item.status == msg.SUCCESS:
            self._finished_job(item.sender, job, job.count)
        elif item.status == msg.FAIL:
            body = item.message.body
            self._failed_job(item.sender, job, item.left, str(body.get("reason", "")) if isinstance(body, dict) else "")

    def _finished_job(self, member: str, job: Job, units: int) -> None:
        self.open.pop(job.id, None)
        self.successes[member] += 1
        if member == self.role.name and job.verb == COLLECT:
            self.kept[job.item] += units
        base = self.parent_of(job.id)
        self.stage_left[base] = max(0, self.stage_left.get(base, 0) - units)

    def _failed_job(self, member: str, job: Job, left: Job | None, reason: str) -> None:
        self.open.pop(job.id, None)
        self.failures[member] += 1
        rest = left if left is not None else job
        done = job.count - rest.count
        base = self.parent_of(job.id)
        self.stage_left[base] = max(0, self.stage_left.get(base, 0) - done)
        self.parent[rest.id] = base
        self.reassign.append((rest, member))
        self.last_failure = reason

    def _advance(self) -> None:
        while self.stages and not self.fresh and not self.reassign and not self.pending and not self.open and self.own is None:
            if any(n > 0 for n in self.stage_left.values()):
                return
            self.stage += 1
            if self.stage >= len(self.stages):
                self._objective_done()
                return
            self.fresh = list(self.stages[self.stage])
            self.stage_left = {j.id: j.count for j in self.fresh}

    def _objective_done(self) -> None:
        job = self.objective_job
        if self.role.commander is not None and job is not None:
            self.outbox.append(self._report(msg.SUCCESS, job))
        if self.role.commander is None:
            self.finished = True
        self.objective = "wait for a task from " + (self.role.commander or "nobody")
        self.stages, self.objective_job = [], None
        if self.orders:
            self._take_order()

    def give_up(self, left: Job) -> None:
        """Nobody else in the team can take over `left`: report the failure to the commander, with
        what is left of the job it gave, and wait for new orders."""
        job = self.objective_job
        if self.role.commander is None or job is None:
            return
        rest = dataclasses.replace(left, id=job.id)
        self.outbox.append(self._report(msg.FAIL, job, reason=self.last_failure or "nobody could do it", left=rest))
        self.objective = "wait for a task from " + self.role.commander
        self.stages, self.objective_job, self.reassign = [], None, []
        if self.orders:
            self._take_order()

    def _report(self, status: str, job: Job, **kw: Any) -> Action:
        body = msg.report(status, job, self.inventories.get(self.role.name, {}), **kw)
        return Action("send", body["text"], to=self.role.commander, message_kind="report", body=body)

    # -- handing out jobs -------------------------------------------------------------------------
    def assign(self, assignments: list[tuple[str, Job]]) -> None:
        self.pending.extend(assignments)

    def dispatch(self) -> list[tuple[str, Job]]:
        """Decided jobs to hand out now: all of them, or in relay mode one when nobody is busy."""
        if self.mode == "relay":
            if self.open or self.own is not None or not self.pending:
                return []
            return [self.pending.popleft()]
        me = self.role.name
        if self.role.sequential and (self.own is not None or any(m == me for m, _ in self.pending)):
            own = [(m, j) for m, j in self.pending if m == me]  # the rest goes down the chain once this is done
            self.pending = deque((m, j) for m, j in self.pending if m != me)
            return own
        out = list(self.pending)
        self.pending.clear()
        return out

    def sent(self, member: str, job: Job) -> None:
        self.open[job.id] = (member, job)

    def begin_own(self, job: Job, held: int, actions: list[Action]) -> None:
        self.open[job.id] = (self.role.name, job)
        self.own = OwnWork(job, held, deque(actions))

    def record(self, outcome: ActionOutcome) -> None:
        """The outcome of an own action, for the monitor to judge."""
        assert self.own is not None
        self.own.last = outcome
        self.own.judged = False
        if not outcome.success:
            self.own.queue.clear()

    def unsent(self, member: str, job: Job) -> None:
        """A decided delegation that did not become a command: decide again."""
        self.open.pop(job.id, None)
        self.reassign.append((job, member))

    def withdraw(self, job_json: Any) -> None:
        """A command that was not sent (the structure forbids it): its job is decided again."""
        job_id = job_json.get("id") if isinstance(job_json, dict) else None
        if job_id in self.open:
            member, job = self.open[job_id]
            self.unsent(member, job)

    # -- rounds ---------------------------------------------------------------------------------
    def _start_round(self, number: int) -> None:
        self.round = number
        self.round_active = True
        self.allowance = self.own is not None
        members = {m for m, _ in self.open.values() if m != self.role.name}
        self.round_waiting = set(members)
        for member in sorted(members):
            self.outbox.append(Action("send", msg.go(number)["text"], to=member, message_kind="signal", body=msg.go(number)))

    def maybe_start_round(self) -> None:
        """The root starts the next round once the last one is over and there is work out."""
        if self.mode == "rounds" and self.role.commander is None and not self.round_active and self.open:
            self._start_round(self.round + 1)

    def round_over(self) -> bool:
        """Close a finished round; a commanded agent then reports it (unless its job report did)."""
        if not self.round_active or self.allowance or self.round_waiting:
            return False
        self.round_active = False
        if self.role.commander is not None and self.objective_job is not None:
            self.outbox.append(self._report(msg.ROUND, self.objective_job, round_number=self.round))
        return True

    def may_act(self) -> bool:
        if self.own is None or not self.own.queue:
            return False
        return self.mode != "rounds" or self.allowance
