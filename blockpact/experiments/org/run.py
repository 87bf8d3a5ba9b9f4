"""`blockpact org run`: every condition (structure x collaboration mode) for every seed on one task,
into one run directory whose outputs (metrics.json, plots, report.html) are rebuilt from
events.jsonl by `experiments.org.outputs`, as `blockpact report DIR` does.

A seed that raises is recorded as an `org_error` event (cause and message) and the run goes on;
Ctrl-C stops the run with a valid log and the outputs of what finished.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.agents.org.structures import Organization
from blockpact.agents.org.tasks import Task
from blockpact.experiments.org.runner import run_episode
from blockpact.experiments.run_events import Coords, EventWriter
from blockpact.experiments.rundir import RunDir

if TYPE_CHECKING:
    from blockpact.agents.hourglass.latency import LatencyModel
    from blockpact.llm.settings import LLMSettings


@dataclass(frozen=True)
class Condition:
    structure: str  # as the user named it (toa, coa, goa, solo, or an --org file's stem)
    mode: str
    org: Organization

    @property
    def name(self) -> str:
        return f"{self.structure}-{self.mode}"


@dataclass(frozen=True)
class OrgRunPlan:
    task: Task
    conditions: tuple[Condition, ...]
    agents: str  # scripted | llm
    seeds: int
    out: Path
    llm: LLMSettings | None = None
    latency: LatencyModel | None = None  # None: hourglass.toml's [latency]
    backend: str = "sim"  # sim | minecraft (the embedded server, started for the run)


def conditions_of(structures: list[tuple[str, Organization]], modes: list[str]) -> tuple[Condition, ...]:
    return tuple(Condition(s, m, org) for (s, org), m in itertools.product(structures, modes))


def failure_cause(exc: BaseException) -> str:
    """The cause class of a seed that could not finish (the honest-results taxonomy)."""
    from blockpact.llm.errors import LLMError

    if isinstance(exc, LLMError):
        return "endpoint"
    module = type(exc).__module__
    if module.startswith("blockpact.bridge") or "javascript" in module.lower():
        return "bridge"
    if module.startswith("blockpact.worlds"):
        return "world"
    return "internal"


def _live_worlds() -> tuple[Any, Any]:
    """The embedded server's worlds, each wrapped for asynchronous agents; and the backend to stop."""
    import sys

    from blockpact.bridge.live.agents import LiveAgents
    from blockpact.bridge.live.world import LiveWorlds

    live = LiveWorlds(announce=lambda line: print(line, file=sys.stderr, flush=True))
    return (lambda spec, seed: LiveAgents(live(spec, seed))), live


async def _run(plan: OrgRunPlan, run_dir: RunDir, writer: EventWriter) -> None:
    worlds, live = _live_worlds() if plan.backend == "minecraft" else (None, None)
    try:
        await _run_conditions(plan, run_dir, writer, worlds)
    finally:
        if live is not None:
            await live.aclose()


async def _run_conditions(plan: OrgRunPlan, run_dir: RunDir, writer: EventWriter, worlds: Any) -> None:
    client = None
    if plan.llm is not None:
        from blockpact.llm.client import LLMClient

        client = LLMClient(plan.llm, transcript=run_dir.transcripts / "llm.jsonl")
    try:
        for condition in plan.conditions:
            for seed in range(plan.seeds):
                coords = Coords(condition=condition.name, seed=seed)
                try:
                    await run_episode(plan.task, condition.org, condition.mode, seed, llm=client, writer=writer,
                                      coords=coords, latency=plan.latency, worlds=worlds)
                except (KeyboardInterrupt, asyncio.CancelledError):
                    raise
                except Exception as exc:  # noqa: BLE001 - recorded with its cause; the run goes on
                    writer.emit("org_error", {"cause": failure_cause(exc), "error": f"{type(exc).__name__}: {exc}"}, coords)
    finally:
        if client is not None:
            await client.aclose()


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (timeout, a scheduler): stop as on Ctrl-C."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def run_org(plan: OrgRunPlan) -> str | None:
    """Run the plan; returns None when it ran to its end, else what stopped it ("SIGINT" or
    "SIGTERM"). The log stays valid either way."""
    run_dir = RunDir.create(plan.out)
    stopped_by: str | None = None
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with EventWriter(run_dir.events) as writer:
            stopped_by = _write(plan, run_dir, writer)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return stopped_by


def _write(plan: OrgRunPlan, run_dir: RunDir, writer: EventWriter) -> str | None:
    writer.emit("run_start", {
        "kind": "org", "task": plan.task.name, "task_kind": plan.task.kind, "total": plan.task.total,
        "agents": plan.agents, "seeds": plan.seeds, "backend": plan.backend,
        "conditions": [{"name": c.name, "structure": c.structure, "mode": c.mode, "organization": c.org.to_json()}
                       for c in plan.conditions],
        "llm": _llm_record(plan.llm),
    })
    stopped_by: str | None = None
    try:
        asyncio.run(_run(plan, run_dir, writer))
    except KeyboardInterrupt as exc:
        stopped_by = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
    writer.emit("run_end", {"status": "interrupted" if stopped_by else "complete", **({"signal": stopped_by} if stopped_by else {})})
    return stopped_by


def _llm_record(settings: Any) -> dict[str, Any] | None:
    if settings is None:
        return None
    from blockpact.experiments.llm_record import settings_record

    return settings_record(settings)
