"""The organization Runner: an `OrgPlan` (a task, conditions = structure x collaboration mode, seeds) played
into a run directory, the org counterpart of `experiments/play/runner.py`. `blockpact org run`, the benches and
the tests all call `OrgRunner`; the command line only parses flags and prints. The outputs (metrics.json,
plots, report.html) are rebuilt from events.jsonl by `experiments/play/org/outputs.py`, as `blockpact report DIR` does.

A seed that raises is recorded as an `org_error` event (cause and message) and the run goes on;
Ctrl-C or SIGTERM stops the run with a valid log and the outputs of what finished.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.agents.org.structures import Organization
from blockpact.agents.org.tasks import Task
from blockpact.experiments.play import exit_codes
from blockpact.experiments.play.org.outputs import build_org_outputs
from blockpact.experiments.play.org.episode import run_episode
from blockpact.experiments.log.run_events import Coords, EventWriter
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.play.runner import create_run_dir
from blockpact.experiments.play.stopping import SigtermAsInterrupt, Stop

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
class OrgPlan:
    """What an organization run plays; all of it is recorded in the log's `run_start`."""

    task: Task
    conditions: tuple[Condition, ...]
    seeds: int = 1
    llm: LLMSettings | None = None  # LLM agents on this endpoint; None: scripted agents
    latency: LatencyModel | None = None  # None: hourglass.toml's [latency]
    backend: str = "sim"  # sim | minecraft (the embedded server, started for the run)

    def __post_init__(self) -> None:
        """Refuse a plan that could only fail seed by seed, before a run directory exists."""
        from blockpact.agents.hourglass.mind import MODES

        if bad := [c.mode for c in self.conditions if c.mode not in MODES]:
            raise ValueError(f"unknown collaboration mode {bad[0]!r}: use one of {', '.join(MODES)}")
        if not self.conditions or self.seeds < 1 or self.backend not in ("sim", "minecraft"):
            raise ValueError(f"an org plan needs conditions, at least one seed and backend sim or minecraft, got "
                             f"{len(self.conditions)} condition(s), {self.seeds} seed(s), backend {self.backend!r}")

    @property
    def agents(self) -> str:
        return "scripted" if self.llm is None else "llm"


@dataclass(frozen=True)
class OrgOptions:
    """How a plan is played; not recorded in the log."""

    plots: bool = True  # SVG plots beside metrics.json and report.html


@dataclass(frozen=True)
class OrgOutcome:
    run_dir: RunDir
    metrics: dict[str, Any]
    stop: Stop | None  # what interrupted the run (Ctrl-C, SIGTERM), None if it ran to its end

    @property
    def signal(self) -> str | None:
        """SIGINT or SIGTERM when the run was interrupted, as its `run_end` records."""
        return None if self.stop is None else signal_name(self.stop)

    @property
    def failure_causes(self) -> list[str]:
        """Why seeds failed (org_error causes), sorted; empty when none did."""
        return sorted({cause for c in self.metrics["conditions"].values() for cause in c["failures"]})

    @property
    def exit_status(self) -> int:
        """exit_codes: the signal's, UNITS_FAILED, TASK_NOT_DONE (a seed without success), else OK."""
        if self.stop is not None:
            return self.stop.code
        if self.failure_causes:
            return exit_codes.UNITS_FAILED
        return exit_codes.OK if self.metrics["success"] else exit_codes.TASK_NOT_DONE


def signal_name(stop: Stop) -> str:
    return "SIGTERM" if stop.code == exit_codes.SIGTERM else "SIGINT"


def conditions_of(structures: Sequence[tuple[str, Organization]], modes: Sequence[str]) -> tuple[Condition, ...]:
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


@dataclass
class OrgRunner:
    """Plays an organization plan into a fresh run directory, then writes the outputs of its log."""

    plan: OrgPlan
    run_dir: RunDir
    options: OrgOptions = field(default_factory=OrgOptions)

    @classmethod
    def create(cls, plan: OrgPlan, out: str | Path | RunDir, options: OrgOptions | None = None) -> OrgRunner:
        """A runner for a new run directory at `out` (refused if it already holds a log)."""
        run_dir = out if isinstance(out, RunDir) else create_run_dir(Path(out))
        return cls(plan, run_dir, options or OrgOptions())

    def run(self) -> OrgOutcome:
        """Every condition's seeds in order; whatever stops them, the log ends with `run_end` and the outputs
        cover what finished."""
        stop: Stop | None = None
        with SigtermAsInterrupt() as sigterm, EventWriter(self.run_dir.events) as writer:
            writer.emit("run_start", _run_start(self.plan))
            try:
                asyncio.run(sigterm.guard(_run(self.plan, self.run_dir, writer)))
            except (KeyboardInterrupt, asyncio.CancelledError) as exc:
                stop = sigterm.stop_of(exc)
            writer.emit("run_end", {"status": "interrupted" if stop else "complete",
                                    **({"signal": signal_name(stop)} if stop else {})})
        return OrgOutcome(self.run_dir, build_org_outputs(self.run_dir, self.options.plots), stop)


def run_org_plan(plan: OrgPlan, out: str | Path | RunDir, **options: Any) -> OrgOutcome:
    """`OrgRunner.create(plan, out, OrgOptions(**options)).run()`: the one-line form for scripts and tests."""
    return OrgRunner.create(plan, out, OrgOptions(**options)).run()


def _run_start(plan: OrgPlan) -> dict[str, Any]:
    return {
        "kind": "org", "task": plan.task.name, "task_kind": plan.task.kind, "total": plan.task.total,
        "agents": plan.agents, "seeds": plan.seeds, "backend": plan.backend,
        "conditions": [{"name": c.name, "structure": c.structure, "mode": c.mode, "organization": c.org.to_json()}
                       for c in plan.conditions],
        "llm": _llm_record(plan.llm),
    }


def _live_worlds() -> tuple[Any, Any]:
    """The embedded server's worlds, each wrapped for asynchronous agents; and the backend to stop."""
    import sys

    from blockpact.bridge.live.agents import LiveAgents
    from blockpact.bridge.live.backend import LiveWorlds

    live = LiveWorlds(announce=lambda line: print(line, file=sys.stderr, flush=True))
    return (lambda spec, seed: LiveAgents(live(spec, seed))), live


async def _run(plan: OrgPlan, run_dir: RunDir, writer: EventWriter) -> None:
    worlds, live = _live_worlds() if plan.backend == "minecraft" else (None, None)
    try:
        await _run_conditions(plan, run_dir, writer, worlds)
    finally:
        if live is not None:
            await live.aclose()


async def _run_conditions(plan: OrgPlan, run_dir: RunDir, writer: EventWriter, worlds: Any) -> None:
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


def _llm_record(settings: Any) -> dict[str, Any] | None:
    if settings is None:
        return None
    from blockpact.experiments.plan.llm_record import settings_record

    return settings_record(settings)
