"""Where a run's files live. `events.jsonl` is the source of truth; everything else is derived from it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from blockpact.errors import UserError

SWEEP_INDEX = "index.json"  # what makes a directory a sweep (sweep.py writes it)


@dataclass(frozen=True)
class RunDir:
    root: Path

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics.json"

    @property
    def plots(self) -> Path:
        return self.root / "plots"

    @property
    def report(self) -> Path:
        return self.root / "report.html"

    @property
    def transcripts(self) -> Path:
        return self.root / "transcripts"

    @property
    def skills(self) -> Path:
        """Skill libraries of LLM agents (one per condition, seed and player)."""
        return self.root / "skills"

    def unit_skills(self, condition: str, seed: int) -> Path:
        """The skill libraries of one (condition, seed), one folder per player."""
        return self.skills / condition / f"seed-{seed}"

    @property
    def superseded(self) -> Path:
        """What resumes set aside: the skill libraries of units they redo from the start."""
        return self.root / "superseded"

    @classmethod
    def create(cls, root: Path) -> RunDir:
        """A fresh run directory: a new or empty one. Never another run's log to append to, nor a sweep or any
        directory of other files (a run written into a sweep hid the sweep's 20 runs from `compare`)."""
        run = cls(Path(root))
        if run.events.exists():
            raise UserError(f"{run.events} already exists: choose another --out directory for a new run")
        if (run.root / SWEEP_INDEX).is_file():
            raise UserError(f"--out {run.root}: a sweep directory (it has {SWEEP_INDEX}); a run goes into a new "
                            "directory of its own (the sweep's runs are its units)")
        if run.root.is_dir() and any(run.root.iterdir()):
            raise UserError(f"--out {run.root}: the directory is not empty; a run goes into a new or empty directory")
        run.root.mkdir(parents=True, exist_ok=True)
        run.transcripts.mkdir(exist_ok=True)
        return run

    @classmethod
    def existing(cls, root: Path) -> RunDir:
        run = cls(Path(root))
        if not run.events.is_file():
            raise UserError(f"{run.root} is not a run directory (no events.jsonl in it)")
        return run


def outside_sweeps(root: Path) -> Path:
    """`root`, for a run the user started: refused inside a sweep, where `compare SWEEP` would count it as one of
    the sweep's units."""
    for parent in Path(root).resolve().parents:
        if (parent / SWEEP_INDEX).is_file():
            raise UserError(f"--out {root}: inside the sweep {parent.name}/ (it has {SWEEP_INDEX}); a run of your "
                            "own goes outside it, or `blockpact sweep` runs the sweep's units")
    return root


def default_run_root(world: str, base: Path = Path("runs")) -> Path:
    """runs/<world>-<local timestamp>/, with a counter if two runs start in the same second."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = Path(world).stem
    root = base / f"{name}-{stamp}"
    n = 1
    while root.exists():
        n += 1
        root = base / f"{name}-{stamp}-{n}"
    return root
