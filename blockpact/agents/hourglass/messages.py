"""What hourglass agents say to each other through the pool: commands, round signals, reports, stop.

Bodies are JSON objects with a `text` a person (or an LLM) reads, plus the fields agents act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blockpact.agents.org.jobs import Job
from blockpact.agents.pool import Message

STARTED, SUCCESS, FAIL, ROUND = "started", "success", "fail", "round"


def command(job: Job) -> dict[str, Any]:
    return {"text": job.text(), "job": job.to_json()}


def go(round_number: int) -> dict[str, Any]:
    return {"text": f"go on with round {round_number}", "round": round_number}


def stop(reason: str) -> dict[str, Any]:
    return {"text": f"stop: {reason}", "stop": True}


def items_text(items: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(items.items()) if v) or "nothing"


def report(status: str, job: Job, inventory: dict[str, int], *, reason: str | None = None,
           left: Job | None = None, round_number: int | None = None) -> dict[str, Any]:
    """A worker's report. Texts follow S-Agents: "I'll start the task ...", success with the
    inventory, failure with the reason and the inventory."""
    if status == STARTED:
        text = f"I'll start the task: {job.text()}"
    elif status == SUCCESS:
        text = f"I finished the task: {job.text()}. My inventory: {items_text(inventory)}"
    elif status == FAIL:
        text = f"I failed the task: {job.text()}, because {reason}. My inventory: {items_text(inventory)}"
    else:
        text = f"Round {round_number} done on the task: {job.text()}. My inventory: {items_text(inventory)}"
    body: dict[str, Any] = {"text": text, "status": status, "job": job.to_json(), "inventory": dict(inventory)}
    if reason is not None:
        body["reason"] = reason
    if left is not None:
        body["left"] = left.to_json()
    if round_number is not None:
        body["round"] = round_number
    return body


@dataclass(frozen=True)
class Incoming:
    """A message as an agent understands it (malformed fields become `problem`)."""

    message: Message
    job: Job | None = None
    status: str | None = None
    round: int | None = None
    stop: bool = False
    left: Job | None = None
    problem: str | None = None

    @property
    def sender(self) -> str:
        return self.message.sender

    @property
    def text(self) -> str:
        body = self.message.body
        return str(body.get("text", body)) if isinstance(body, dict) else str(body)


def understand(message: Message, job_id: str) -> Incoming:
    """Read a message; a command written as text ("collect 17 oak_log") becomes a job."""
    body = message.body
    if not isinstance(body, dict):
        job = Job.parse(body, job_id) if message.kind.value == "command" else None
        return Incoming(message, job=job, stop=body.strip().lower().startswith("stop"))
    try:
        job = Job.from_json(body["job"]) if "job" in body else None
        left = Job.from_json(body["left"]) if body.get("left") else None
    except ValueError as exc:
        return Incoming(message, problem=str(exc))
    if job is None and message.kind.value == "command" and "round" not in body and not body.get("stop"):
        job = Job.parse(str(body.get("text", "")), job_id)
    round_number = body.get("round")
    return Incoming(message, job=job, status=body.get("status"), left=left, stop=bool(body.get("stop")),
                    round=round_number if isinstance(round_number, int) else None)
