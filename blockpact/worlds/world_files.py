"""World files by name or path: the built-in ones, and loading or validating any of them. The file itself is
read and checked in spec/ (loader.py); what needs the world model comes on top here: players must be able
to stand at their spawns, and every chest must be in reach of some player."""

from __future__ import annotations

from pathlib import Path

from blockpact.errors import UserError
from blockpact.settings import settings
from blockpact.worlds.grid import within_reach
from blockpact.worlds.spec.loader import WorldReader
from blockpact.worlds.spec.schema import Vec, WorldSpec
from blockpact.worlds.spec.value_reader import Problem, WorldSpecError
from blockpact.worlds.state import build_grid

BUILTIN_DIR = Path(__file__).parent / "builtin"


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def resolve_path(ref: str | Path) -> Path:
    """A built-in world name or a path to a world file."""
    path = Path(ref)
    if path.suffix == ".toml" or path.exists():
        if not path.exists():
            raise UserError(f"no world file {path}")
        return path
    builtin = BUILTIN_DIR / f"{ref}.toml"
    if builtin.exists():
        return builtin
    raise UserError(f"no world named {ref!r} (built-in worlds: {', '.join(builtin_names())}; or give a path to a .toml file)")


def validate_world(ref: str | Path, mc_version: str | None = None) -> list[Problem]:
    path = resolve_path(ref)
    try:
        _read(path, mc_version)
    except WorldSpecError as exc:
        return exc.problems
    return []


def load_world(ref: str | Path, mc_version: str | None = None) -> WorldSpec:
    """Load and check a world; raises `WorldSpecError` listing every problem."""
    return _read(resolve_path(ref), mc_version)


def _read(path: Path, mc_version: str | None) -> WorldSpec:
    """The world in `path`, checked; raises `WorldSpecError` listing every problem."""
    reader = WorldReader(path, mc_version)
    spec = reader.build()  # raises if the file itself has problems: the grid needs a sound world
    _check_reachability(reader, spec)
    if reader.problems:
        raise WorldSpecError(reader.problems)
    return spec


# (file text, Minecraft version, reach) -> the reachability problems found, as (key path, message): a run, its
# report and its tests load the same world many times, and the search over its cells is most of a load's cost.
_REACHABILITY: dict[tuple[str, str, float], list[tuple[str, str]]] = {}
_REACHABILITY_KEPT = 32


def _check_reachability(reader: WorldReader, spec: WorldSpec) -> None:
    """Players must stand somewhere sensible, and every chest must be reachable by some player."""
    reach = settings().simulator.reach
    key = (reader.text, spec.mc_version, reach)
    found = _REACHABILITY.get(key)
    if found is None:
        found = _unreachable(reader, spec, reach)
        if len(_REACHABILITY) >= _REACHABILITY_KEPT:
            _REACHABILITY.clear()
        _REACHABILITY[key] = found
    for path, message in found:
        reader.err(path, message)


def _unreachable(reader: WorldReader, spec: WorldSpec, reach: float) -> list[tuple[str, str]]:
    grid = build_grid(spec, reader.data)
    walkable: set[Vec] = set()
    found = []
    for name, player in spec.players.items():
        if not grid.standable(player.spawn):
            found.append((f"players.{name}.spawn", f"cannot stand at {list(player.spawn)} (expected two free cells above solid ground)"))
            continue
        if player.spawn in walkable:
            continue  # all it reaches, the spawn that reached it reaches too: a crowd shares one search
        walkable.update(grid.distances(player.spawn))
    for pos, chest in spec.chests.items():
        near = (c for c in walkable if abs(c[0] - pos[0]) <= 5 and abs(c[2] - pos[2]) <= 5 and abs(c[1] - pos[1]) <= 5)
        if walkable and not any(within_reach(c, pos, reach) for c in near):
            found.append((reader.chest_paths.get(pos, "chests"), f"chest {chest.name!r} at {list(pos)} cannot be reached by any player (expected a standable cell within {reach} blocks)"))
    return found
