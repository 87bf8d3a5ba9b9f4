"""Built-in organization tasks (S-Agents), written as data files in `tasks/`: what to achieve, on
which world, what the agents start with, and how success is checked on the world state.

A collect task succeeds when the agents' inventories hold `amount` of the item in total (or, with an
`[task.items]` table, that many of every listed item: sub-tasks of uneven size that may depend on
each other through tools, e.g. iron needs a stone pickaxe); a build task when every cell of every
part holds its block. Parts are built stage by stage.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Literal

from blockpact.agents.org.jobs import COLLECT, PLACE, Job
from blockpact.errors import UserError
from blockpact.settings import SettingsError, load_settings
from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import PlayerSpec, Vec, WorldSpec
from blockpact.worlds.state import WorldState

TASKS_DIR = Path(__file__).with_name("tasks")


class TaskError(UserError):
    """A task file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class PartTable:
    """[[task.parts]]: a part of a build task, as a box (optionally hollow) or a list of cells."""

    name: str
    stage: int
    block: str
    box: tuple[Vec, Vec] | None = None  # two corners
    cells: tuple[Vec, ...] | None = None
    hollow: bool = False
    except_: tuple[Vec, ...] = ()  # cells of the box left out

    def settings_problems(self) -> Iterator[tuple[str, str]]:
        if (self.box is None) == (self.cells is None):
            yield "", "give exactly one of box = [[x,y,z],[x,y,z]] or cells = [[x,y,z], ...]"


@dataclass(frozen=True)
class TaskTable:
    """[task]: what a task file says; a collect task has item and amount, or an items table."""

    name: str
    world: str
    kind: Literal["collect", "build"]
    description: str
    item: str | None = None
    amount: int | None = None
    items: dict[str, int] | None = None
    parts: tuple[PartTable, ...] = ()
    start: tuple[dict[str, int], ...] = ()  # starting items of the working agents, in turn

    def settings_problems(self) -> Iterator[tuple[str, str]]:
        if any(n < 1 for items in self.start for n in items.values()):
            yield "start", "expected [[task.start]] tables of item = positive count"
        if self.kind == "build":
            if not self.parts:
                yield "parts", "a build task needs [[task.parts]]"
        elif self.items is not None:
            if self.item is not None or self.amount is not None or not self.items or min(self.items.values()) < 1:
                yield "items", "expected a table of item = positive count (and no item/amount next to it)"
        elif self.item is None or self.amount is None:
            yield "item" if self.item is None else "amount", "missing (a collect task needs item and amount, or an items table)"


@dataclass(frozen=True)
class TaskFile:
    task: TaskTable


@dataclass(frozen=True)
class Part:
    name: str
    stage: int
    block: str
    cells: tuple[Vec, ...]  # in building order: each has a solid neighbour once the earlier ones stand


@dataclass(frozen=True)
class Task:
    name: str
    world: str  # a built-in world name or a world file path
    kind: str  # collect | build
    description: str
    item: str | None = None  # collect: the first (or only) item
    amount: int = 0  # collect: items in all
    items: tuple[tuple[str, int], ...] = ()  # collect: (item, amount) of every item
    parts: tuple[Part, ...] = ()  # build
    start: tuple[dict[str, int], ...] = ()  # starting items of the working agents, in turn

    # -- the goal -------------------------------------------------------------------------------
    def stages(self) -> list[list[Job]]:
        """The long-term plan: jobs per stage, in order (one job per part)."""
        if self.kind == "collect":
            if len(self.items) == 1:
                return [[Job(f"{self.name}", COLLECT, self.items[0][0], self.items[0][1])]]
            return [[Job(f"{self.name}:{item}", COLLECT, item, n) for item, n in self.items]]
        numbers = sorted({p.stage for p in self.parts})
        return [[Job(p.name, PLACE, p.block, len(p.cells), p.cells) for p in self.parts if p.stage == n] for n in numbers]

    def progress(self, state: WorldState) -> int:
        """Units done: items held (collect) or cells built (build)."""
        if self.kind == "collect":
            return self.held_total(state.inventories)
        return sum(1 for p in self.parts for c in p.cells if state.block_at(c) == p.block)

    @property
    def total(self) -> int:
        return self.amount if self.kind == "collect" else sum(len(p.cells) for p in self.parts)

    def succeeded(self, state: WorldState) -> bool:
        return self.progress(state) >= self.total

    def held_total(self, inventories: dict[str, dict[str, int]]) -> int:
        """Units of a collect task the inventories hold (each item counted up to its amount)."""
        return sum(min(n, sum(inv.get(item, 0) for inv in inventories.values())) for item, n in self.items)

    def counted(self, inventory: dict[str, int]) -> int:
        """The task items one inventory holds (collect tasks)."""
        return sum(int(inventory.get(item, 0)) for item, _ in self.items)

    # -- the world ------------------------------------------------------------------------------
    def start_inventories(self, workers: list[str]) -> dict[str, dict[str, int]]:
        """Entry i of `start` goes to worker i mod n."""
        given: dict[str, Counter[str]] = {w: Counter() for w in workers}
        for i, items in enumerate(self.start):
            if workers:
                given[workers[i % len(workers)]].update(items)
        return {w: dict(c) for w, c in given.items()}

    def world_for(self, agents: list[str], workers: list[str]) -> WorldSpec:
        """The task's world with the organization's agents as its players, on the world's spawn points
        in order (reused in turn when there are more agents than spawn points)."""
        spec = load_world(self.world if not (TASKS_DIR / self.world).is_file() else TASKS_DIR / self.world)
        spawns = [p.spawn for p in spec.players.values()]
        start = self.start_inventories(workers)
        players = {a: PlayerSpec(a, spawns[i % len(spawns)], start.get(a, {}), {}) for i, a in enumerate(agents)}
        bad = [a for a in agents if not a.isidentifier() or len(a) > 16]
        if bad:
            raise TaskError(f"agent names {bad} are not Minecraft user names (1-16 letters, digits or _)")
        return dataclasses.replace(spec, players=players, description=f"{spec.description}\n\nThe team's task: {self.description}")


def task_names() -> list[str]:
    return sorted(p.stem for p in TASKS_DIR.glob("*.toml"))


def load_task(ref: str, amount: int | None = None) -> Task:
    """A built-in task by name, or a task file; `amount` overrides a collect task's amount."""
    path = Path(ref)
    if path.suffix != ".toml":
        path = TASKS_DIR / f"{ref}.toml"
        if not path.is_file():
            raise TaskError(f"no task named {ref!r} (built-in tasks: {', '.join(task_names())}; or give a .toml file)")
    elif not path.is_file():
        raise TaskError(f"no task file {path}")
    try:
        table = load_settings(path, TaskFile).task
    except SettingsError as exc:
        raise TaskError(str(exc)) from None
    return _task_from(table, amount)


def _task_from(table: TaskTable, amount: int | None) -> Task:
    common = {"name": table.name, "world": table.world, "kind": table.kind, "start": table.start}
    if table.kind == "collect" and table.items is not None:
        if amount is not None:
            raise TaskError(f"--amount applies to one-item collect tasks only, not to {table.name} ({', '.join(table.items)})")
        pairs = tuple(table.items.items())
        return Task(**common, description=table.description, item=pairs[0][0], amount=sum(n for _, n in pairs), items=pairs)
    if table.kind == "collect":
        assert table.item is not None and table.amount is not None  # TaskTable.settings_problems
        n = amount if amount is not None else table.amount
        if n < 1:
            raise TaskError(f"amount must be a positive number of items, got {n}")
        text = Template(table.description).safe_substitute(amount=n)
        return Task(**common, description=text, item=table.item, amount=n, items=((table.item, n),))
    if amount is not None:
        raise TaskError(f"--amount applies to collect tasks only, not to {table.name}")
    return Task(**common, description=table.description, parts=tuple(_part(p) for p in table.parts))


def _part(raw: PartTable) -> Part:
    skip = set(raw.except_)
    if raw.cells is not None:
        cells = list(raw.cells)
    else:
        assert raw.box is not None  # PartTable.settings_problems
        lo, hi = (tuple(map(f, raw.box[0], raw.box[1])) for f in (min, max))
        cells = [(x, y, z) for y in range(lo[1], hi[1] + 1) for x in range(lo[0], hi[0] + 1) for z in range(lo[2], hi[2] + 1)
                 if not raw.hollow or x in (lo[0], hi[0]) or z in (lo[2], hi[2])]
        centre = ((lo[0] + hi[0]) / 2, (lo[2] + hi[2]) / 2)
        # Outside in, column by column, each column bottom up: every cell then touches one built
        # before it, and any run of cells in this order (one agent's share) can be built alone.
        cells.sort(key=lambda c: (-max(abs(c[0] - centre[0]), abs(c[2] - centre[1])), c[0], c[2], c[1]))
    return Part(raw.name, raw.stage, raw.block, tuple(c for c in cells if c not in skip))
