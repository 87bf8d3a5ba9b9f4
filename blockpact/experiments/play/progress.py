"""Live progress of a run on a terminal, fed by the run's events; silent when output is not a terminal."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from blockpact.experiments.log.run_events import RunEvent


class RunProgress:
    """An event listener: counts finished episodes and shows where the run is and its simulated time."""

    def __init__(self, console: Console, total_episodes: int) -> None:
        self.enabled = console.is_terminal
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("episodes"), TimeElapsedColumn(), console=console, transient=True)
        self._task: TaskID | None = None
        self._total = total_episodes
        self._where = ""

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._progress.start()
            self._task = self._progress.add_task("starting", total=self._total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._progress.stop()

    def __call__(self, event: RunEvent) -> None:
        if self._task is None:
            return
        c = event.coords
        if event.kind in ("seed_start", "episode_start"):
            episode = "" if c.episode is None else f" episode {c.episode}"
            self._where = f"{c.condition} · seed {c.seed}{episode}"
            self._progress.update(self._task, description=self._where)
        elif event.kind == "negotiation_turn":
            self._progress.update(self._task, description=f"{self._where} · negotiating, round {event.data['round']}")
        elif event.kind == "world":
            self._progress.update(self._task, description=f"{self._where} · t = {event.data['event']['time']:.0f} s")
        elif event.kind == "episode_end":
            self._progress.advance(self._task)
        elif event.kind == "seed_error":
            self._progress.console.print(f"[red]{escape(str(c.condition))} seed {c.seed} failed:[/red] "
                                         f"{escape(event.data['error'])}", highlight=False)
