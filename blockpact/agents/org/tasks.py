"""Built-in organization tasks (S-Agents), written as data files in `tasks/`: what to achieve, on
which world, what the agents start with, and how success is checked on the world state.

A collect task succeeds when the agents' inventories hold `amount` of the item in total (or, with an
`[task.items]` table, that many of every listed item: sub-tasks of uneven size that may depend on
each other through tools, e.g. iron needs a stone pickaxe); a build task when every cell of every
part holds its block. Parts are built stage by stage.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from blockpact.agents.org.jobs import COLLECT, PLACE, Job
from blockpact.errors import UserError
from blockpact.worlds.world_files import load_world
from blockpact.worlds.spec.schema import PlayerSpec, Vec, WorldSpec
from blockpact.worlds.state import WorldState

TASKS_DIR = Path(__file__).with_name("tasks")
KINDS = ("collect", "build")


class TaskError(UserError):
    """A task file that cannot be used; the message names the file and the key."""


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
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path}: not valid TOML: {exc}") from None
    return _task_from(raw, str(path), amount)


def _want(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = table.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TaskError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _vec(value: Any, where: str) -> Vec:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise TaskError(f"{where}: expected [x, y, z] integers, got {value!r}")
    return (value[0], value[1], value[2])


def _task_from(raw: dict[str, Any], source: str, amount: int | None) -> Task:
    table = raw.get("task")
    if not isinstance(table, dict):
        raise TaskError(f"{source}: missing [task] table")
    where = f"{source}: task"
    unknown = sorted(set(table) - {"name", "world", "kind", "item", "amount", "items", "description", "parts", "start"})
    if unknown:
        raise TaskError(f"{where}: unknown keys {', '.join(unknown)}")
    kind = _want(table, "kind", str, where)
    if kind not in KINDS:
        raise TaskError(f"{where}.kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    start = table.get("start", [])
    if not isinstance(start, list) or not all(isinstance(s, dict) and all(isinstance(n, int) and n > 0 for n in s.values()) for s in start):
        raise TaskError(f"{where}.start: expected [[task.start]] tables of item = count")
    common = {
        "name": _want(table, "name", str, where),
        "world": _want(table, "world", str, where),
        "kind": kind,
        "start": tuple(dict(s) for s in start),
    }
    if kind == "collect" and "items" in table:
        items = table["items"]
        if "item" in table or "amount" in table or not isinstance(items, dict) or not items or not all(
                isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in items.values()):
            raise TaskError(f"{where}.items: expected a table of item = positive count (and no item/amount next to it)")
        if amount is not None:
            raise TaskError(f"--amount applies to one-item collect tasks only, not to {common['name']} ({', '.join(items)})")
        pairs = tuple((str(k), int(v)) for k, v in items.items())
        return Task(**common, description=_want(table, "description", str, where), item=pairs[0][0],
                    amount=sum(n for _, n in pairs), items=pairs)
    if kind == "collect":
        n = amount if amount is not None else _want(table, "amount", int, where)
        if n < 1:
            raise TaskError(f"amount must be a positive number of items, got {n}")
        text = Template(_want(table, "description", str, where)).safe_substitute(amount=n)
        item = _want(table, "item", str, where)
        return Task(**common, description=text, item=item, amount=n, items=((item, n),))
    if amount is not None:
        raise TaskError(f"--amount applies to collect tasks only, not to {common['name']}")
    parts = table.get("parts")
    if not isinstance(parts, list) or not parts:
        raise TaskError(f"{where}.parts: a build task needs [[task.parts]]")
    return Task(**common, description=_want(table, "description", str, where),
                parts=tuple(_part(p, f"{where}.parts[{i}]") for i, p in enumerate(parts)))


def _part(raw: Any, where: str) -> Part:
    if not isinstance(raw, dict):
        raise TaskError(f"{where}: expected a table")
    unknown = sorted(set(raw) - {"name", "stage", "block", "box", "cells", "hollow", "except"})
    if unknown:
        raise TaskError(f"{where}: unknown keys {', '.join(unknown)}")
    if ("box" in raw) == ("cells" in raw):
        raise TaskError(f"{where}: give exactly one of box = [[x,y,z],[x,y,z]] or cells = [[x,y,z], ...]")
    skip = {_vec(v, f"{where}.except") for v in raw.get("except", [])}
    if "cells" in raw:
        cells = [_vec(v, f"{where}.cells") for v in raw["cells"]]
    else:
        box = raw["box"]
        if not isinstance(box, list) or len(box) != 2:
            raise TaskError(f"{where}.box: expected two corners [[x,y,z],[x,y,z]]")
        lo, hi = (tuple(map(f, _vec(box[0], f"{where}.box"), _vec(box[1], f"{where}.box"))) for f in (min, max))
        cells = [(x, y, z) for y in range(lo[1], hi[1] + 1) for x in range(lo[0], hi[0] + 1) for z in range(lo[2], hi[2] + 1)
                 if not raw.get("hollow") or x in (lo[0], hi[0]) or z in (lo[2], hi[2])]
        centre = ((lo[0] + hi[0]) / 2, (lo[2] + hi[2]) / 2)
        # Outside in, column by column, each column bottom up: every cell then touches one built
        # before it, and any run of cells in this order (one agent's share) can be built alone.
        cells.sort(key=lambda c: (-max(abs(c[0] - centre[0]), abs(c[2] - centre[1])), c[0], c[2], c[1]))
    return Part(_want(raw, "name", str, where), _want(raw, "stage", int, where), _want(raw, "block", str, where),
                tuple(c for c in cells if c not in skip))
