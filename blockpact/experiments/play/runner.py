"""The run driver: a RunPlan played into a run directory (plan → units → contract → episodes → outcome).

`blockpact run`, `blockpact resume`, scenario runs, the sweep's workers, the benches and the tests all
call `Runner`; the command line only parses flags and prints. A run always ends with a valid log and the
outputs derived from it (metrics.json, report.html, plots when asked), whatever stopped it, and the
outcome says how each (condition, seed) unit ended and the exit status the run deserves.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.errors import UserError
from blockpact.experiments.play.exit_codes import OK, UNITS_FAILED
from blockpact.experiments.outputs.run_outputs import Outputs
from blockpact.experiments.plan.live_options import LiveOptions
from blockpact.experiments.play.participants import live_worlds, participants_for
from blockpact.experiments.play.protocol import Participants, RunProtocol
from blockpact.experiments.plan.run_plan import RunPlan
from blockpact.experiments.log.records import RunRecord
from blockpact.experiments.log.run_events import EventWriter
from blockpact.experiments.log.rundir import RunDir
from blockpact.experiments.play.stopping import SigtermAsInterrupt, Stop

if TYPE_CHECKING:
    from rich.console import Console

    from blockpact.experiments.log.resume import ResumePoint
    from blockpact.experiments.play.episode_engine import WorldFactory


@dataclass(frozen=True)
class RunOptions:
    """How a plan is played; none of this is recorded in the log (the plan is)."""

    parallel: int = 1  # (condition, seed) units in progress at once
    live: LiveOptions = LiveOptions()  # where live episodes play (--backend minecraft)
    plots: bool = True  # SVG plots beside metrics.json and report.html
    progress: Console | None = None  # a terminal to show progress on; None: silent
    signals: bool = True  # SIGTERM stops the run like Ctrl-C (main thread only); off in pool workers
    participants: Participants | None = None  # who plays; None: from the plan (agents, population, backend)
    worlds: WorldFactory | None = None  # each episode's world; None: SimWorld, or the live server's worlds
    announce: Callable[[str], None] | None = None  # lines for the user (what a resume found), e.g. to stderr


@dataclass(frozen=True)
class UnitStatus:
    """How one (condition, seed) unit ended: completed | failed | interrupted | not_started."""

    condition: str
    seed: int
    status: str
    cause: str | None = None  # failures.CAUSES when failed
    message: str | None = None  # the failure's message, or why the unit never started


@dataclass(frozen=True)
class RunOutcome:
    run_dir: RunDir
    outputs: Outputs
    units: list[UnitStatus]
    stop: Stop | None  # what interrupted the run (Ctrl-C, SIGTERM), None if it ran to its end
    exit_status: int  # exit_codes: OK, UNITS_FAILED, SIGINT, SIGTERM

    @property
    def metrics(self) -> dict[str, Any]:
        return self.outputs.metrics

    @property
    def run(self) -> RunRecord:
        return self.outputs.run

    @property
    def problem(self) -> str | None:
        """One line naming why units did not complete (None when all did), for stderr."""
        return units_problem(self.metrics)


def unit_statuses(run: RunRecord) -> list[UnitStatus]:
    """Every planned unit's status, read from the log (the source of truth), in the plan's order."""
    seeds = {(s.condition, s.seed): s for s in run.seeds}
    not_run = {(u["condition"], u["seed"]): u.get("reason") for u in run.not_run}
    out = []
    for condition in run.config.conditions:
        name = condition["name"] if isinstance(condition, dict) else condition.name
        for seed in run.config.seeds:
            record = seeds.get((name, seed))
            if record is None:
                out.append(UnitStatus(name, seed, "not_started", message=not_run.get((name, seed))))
            else:
                out.append(UnitStatus(name, seed, record.status, record.cause,
                                      record.errors[0] if record.errors else None))
    return out


def units_problem(metrics: dict[str, Any]) -> str | None:
    """Why the run does not exit OK: the units that did not complete, counted by cause."""
    if metrics["all_completed"]:
        return None
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for c in metrics["conditions"].values():
        for cause, f in c["failures"].items():
            counts[cause] = counts.get(cause, 0) + f["count"]
            first.setdefault(cause, f["first_message"])
        for status in ("interrupted", "not_started"):
            if c["units"][status]:
                key = status.replace("_", " ")
                counts[key] = counts.get(key, 0) + c["units"][status]
    planned = sum(c["seeds_planned"] for c in metrics["conditions"].values())
    failed = sum(counts.values())
    # a long cause is cut at a word, saying so (an API key's hint was cut to "(set OPE)"); metrics.json has it whole
    causes = ", ".join(f"{n} {cause}" + (f" ({_shortened(first[cause])})" if cause in first else "") for cause, n in counts.items())
    return (f"{failed} of {planned} condition-seed units did not complete: {causes}; "
            "their numbers are not in the results (metrics.json: failures)")


def _shortened(message: str) -> str:
    return textwrap.shorten(message, 200, placeholder=" [...]")


def exit_status(metrics: dict[str, Any]) -> int:
    """OK when every unit completed, UNITS_FAILED otherwise."""
    return OK if metrics["all_completed"] else UNITS_FAILED


def write_outputs(run_dir: RunDir, plots: bool = True) -> Outputs:
    """metrics.json and report.html from the log; the SVG plots only when asked."""
    if plots:
        from blockpact.experiments.outputs.run_outputs import build_outputs

        return build_outputs(run_dir)
    from blockpact.experiments.outputs.metrics_file import run_metrics, write_metrics
    from blockpact.experiments.log.records import read_run
    from blockpact.experiments.outputs.report import write_report

    run = read_run(run_dir.events)
    metrics = run_metrics(run)
    write_metrics(metrics, run_dir.metrics)
    write_report(run, metrics, [], run_dir.report)
    return Outputs(run, metrics)


def create_run_dir(path: Path) -> RunDir:
    try:
        return RunDir.create(path)
    except OSError as exc:
        raise UserError(f"--out {path}: cannot create the run directory: {exc.strerror or exc}") from None


@dataclass
class Runner:
    """Plays a plan into a run directory. `run()` starts a fresh log; `resume()` finishes an existing one."""

    plan: RunPlan
    run_dir: RunDir
    options: RunOptions = field(default_factory=RunOptions)

    @classmethod
    def create(cls, plan: RunPlan, out: str | Path | RunDir, options: RunOptions | None = None) -> Runner:
        """A runner for a new run directory at `out` (refused if it already holds a log)."""
        run_dir = out if isinstance(out, RunDir) else create_run_dir(Path(out))
        return cls(plan, run_dir, options or RunOptions())

    def run(self) -> RunOutcome:
        return self._play(EventWriter(self.run_dir.events), self.plan.total_episodes, lambda p: p.run())

    @classmethod
    def resume(cls, run_dir: str | Path | RunDir, options: RunOptions | None = None) -> RunOutcome | None:
        """Finish an interrupted run from its events.jsonl alone; None when it is already complete."""
        from blockpact.experiments.log.resume import ResumePoint

        run_dir = run_dir if isinstance(run_dir, RunDir) else RunDir.existing(Path(run_dir))
        point = ResumePoint.of(run_dir)
        if point.complete:
            return None
        return cls(point.plan(), run_dir, options or RunOptions()).resume_from(point)

    def resume_from(self, point: ResumePoint) -> RunOutcome:
        """Redo the unfinished units `point` found in this run's log (its plan is `self.plan`)."""
        from blockpact.experiments.log.resume import repair_tail, set_aside_skills, unit_json

        writer = EventWriter(self.run_dir.events, point.last_seq)  # fails while another process writes the run
        # The log is usable and ours: from here on the directory changes.
        pending, superseded = point.pending, point.superseded
        try:
            dropped = repair_tail(self.run_dir.events, point.torn)
            note = {"after_seq": point.last_seq, "previous_status": point.run.status, "units": unit_json(pending),
                    "superseded": unit_json(superseded), "dropped_line": dropped.to_json() if dropped else None,
                    "skills_set_aside": set_aside_skills(self.run_dir, superseded, point.last_seq)}
            if self.plan.llm is not None and self.plan.llm != point.run.config.llm:  # resume --llm-timeout
                note["llm_timeout_s"] = self.plan.llm["timeout_s"]
        except BaseException:
            writer.close()
            raise
        planned = len(point.planned)
        if self.options.announce is not None:
            self.options.announce(
                f"resuming {self.run_dir.root}: {planned - len(pending)} of {planned} condition-seed units completed, "
                f"{len(pending)} to run ({len(superseded)} of them, failed or cut short, redone from the start)"
                + (f"; cut off the torn line {dropped.line} ({dropped.size} bytes)" if dropped else ""))
        return self._play(writer, len(pending) * self.plan.episodes, lambda p: p.resume(pending, note))

    def _participants(self, live: Any) -> Participants:
        from blockpact.llm.budget import Budget
        from blockpact.experiments.plan.llm_record import settings_from_record

        if self.options.participants is not None:
            return self.options.participants
        plan = self.plan
        llm = settings_from_record(plan.llm) if plan.agents == "llm" and plan.llm is not None else None
        budget = Budget.from_json(plan.llm.get("budget")) if llm is not None and plan.llm is not None else None
        worlds = self.options.worlds or live
        if plan.population is not None:  # a scenario's population (experiments/play/population.py)
            from blockpact.experiments.play.population import plan_participants

            return plan_participants(plan, self.run_dir, llm, worlds, budget)
        return participants_for(plan.agents, plan.backend, self.run_dir, llm, worlds, budget)

    def _play(self, writer: EventWriter, episodes: int,
              body: Callable[[RunProtocol], Awaitable[None]]) -> RunOutcome:
        """Play what `body` asks of the run's protocol, then write the outputs of the whole log."""
        plan, options = self.plan, self.options
        live = (live_worlds(options.live) if plan.backend == "minecraft" and options.worlds is None
                and options.participants is None else None)
        stop: Stop | None = None
        with SigtermAsInterrupt() if options.signals else _NoSignals() as sigterm:
            try:
                participants = self._participants(live)
                with writer, _progress(options.progress, episodes) as progress:
                    if progress is not None:
                        writer.listeners.append(progress)
                    try:
                        asyncio.run(sigterm.guard(body(RunProtocol(plan, participants, writer, options.parallel))))
                    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
                        stop = sigterm.stop_of(exc)
            except KeyboardInterrupt as exc:  # before or after the units: the log is valid, write what finished
                stop = sigterm.stop_of(exc)
            finally:
                writer.close()
                if live is not None:
                    live.stop()  # the embedded server, whatever ended the run
            outputs = write_outputs(self.run_dir, options.plots)
        status = stop.code if stop is not None else exit_status(outputs.metrics)
        return RunOutcome(self.run_dir, outputs, unit_statuses(outputs.run), stop, status)


class _NoSignals(SigtermAsInterrupt):
    """SIGTERM left alone (a pool worker's parent decides what it means)."""

    def __enter__(self) -> SigtermAsInterrupt:
        return self


class _NoProgress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _progress(console: Console | None, episodes: int) -> Any:
    if console is None:
        return _NoProgress()
    from blockpact.experiments.play.progress import RunProgress

    return RunProgress(console, episodes)


def run_plan(plan: RunPlan, out: str | Path | RunDir, **options: Any) -> RunOutcome:
    """`Runner.create(plan, out, RunOptions(**options)).run()`: the one-line form for scripts and tests."""
    return Runner.create(plan, out, RunOptions(**options)).run()


__all__: Sequence[str] = ("RunOptions", "RunOutcome", "Runner", "UnitStatus", "run_plan", "unit_statuses",
                          "units_problem", "exit_status", "write_outputs", "create_run_dir")
