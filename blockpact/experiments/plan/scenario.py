"""Scenario files (Melting Pot's substrate/scenario split): a world file is the game; a scenario file
says which world, which conditions, who fills each player slot, which judges, which seeds.

```toml
[scenario]
name = "dv-focal"                 # default: the file's stem
world = "double_vein"             # built-in name, or a path relative to this file
backend = "sim"                   # "sim" | "minecraft"
seeds = 10                        # a count (seeds 0..n-1) or a list of seeds
episodes = 1

[[conditions]]                    # default: none and negotiate
contract = "none"                 # "none" | "negotiate" | the text of a fixed contract
[[conditions]]
name = "split"                    # required for a fixed contract text
contract = "1. Gizmo mines all iron_ore. ..."

[players]                         # a slot not listed is "scripted"
Gizmo = "llm:gpt-4o-mini"         # or "llm" (the endpoint's model); "llm:{model}" takes a sweep's model
Glitch = "scripted:greedy"        # "scripted", "scripted:greedy", "scripted:cooperative" or "human"

[judge]
llm = "gpt-4o-mini"               # also the LLM judge, with this model ("" or absent: formal judge only)
apply_llm = true                  # the LLM judge's transfers apply when its judgment is valid

[llm]                             # optional; command-line --llm-* flags win
base_url = "http://127.0.0.1:8765/v1"
config = "llm.toml"               # relative to this file

[[groups]]                        # optional: reward-sharing groups over the world's (scenario_groups.py)
name = "miners"
members = ["Gizmo", "Glitch"]
share = 0.5

[institution]                     # optional: the players meet between episodes and vote on amendments
rule = "majority"                 # (institution.py: who proposes, the passing rule, what may change)
```

Slot kinds: `scripted` keeps a contract when there is one and plays greedily without (today's
scripted players); `scripted:greedy` never keeps one (a defector); `scripted:cooperative` plays its
part of the social optimum even without a contract (an unconditional cooperator). `human`: a person
with their own Minecraft client plays the slot (backend "minecraft", embedded server: experiments/play/human.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.config import read_toml
from blockpact.errors import UserError
from blockpact.experiments.plan.run_plan import ConditionSpec
from blockpact.experiments.plan.institution import InstitutionSpec, parse_institution
from blockpact.experiments.plan.scenario_groups import parse_groups
from blockpact.worlds.spec.schema import GroupSpec
from blockpact.toml_lines import LineIndex

SLOT = re.compile(r"^(scripted(:greedy|:cooperative)?|llm(:.+)?|human)$")
SCRIPTED_SLOTS = ("scripted", "scripted:greedy", "scripted:cooperative")
MODEL_PLACEHOLDER = "{model}"
TOP_KEYS = {"scenario", "conditions", "players", "judge", "llm", "groups", "institution"}
SCENARIO_KEYS = {"name", "world", "backend", "seeds", "episodes", "description"}


class ScenarioError(UserError):
    pass


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path | None  # the file read (None: built from text alone)
    text: str  # the file's text: recorded in the run and carried by sweep units to other machines
    world: str  # built-in name or the world file's resolved path
    backend: str
    seeds: list[int]
    episodes: int
    conditions: list[ConditionSpec]
    slots: dict[str, str]  # player -> slot kind, as written (unlisted players are filled in `population`)
    judge_model: str | None = None  # None: the formal judge only
    apply_llm_judge: bool = True
    llm: dict[str, str] = field(default_factory=dict)  # base_url, config (resolved path)
    default_slot: str = "scripted"  # who fills a slot [players] does not list
    groups: tuple[GroupSpec, ...] | None = None  # [[groups]] over the world's (None: the world's alone)
    institution: InstitutionSpec | None = None  # [institution]: meetings between episodes (None: a fixed contract)

    def population(self, players: list[str]) -> dict[str, str]:
        """Who fills every slot of a world with these players."""
        unknown = sorted(set(self.slots) - set(players))
        if unknown:
            raise ScenarioError(f"{self.where('players')}: no player {', '.join(map(repr, unknown))} in world "
                                f"{self.world!r} (players: {', '.join(players)})")
        return {p: self.slots.get(p, self.default_slot) for p in sorted(players)}

    def where(self, key: str) -> str:
        line = LineIndex(self.text).line_of(key)
        return f"{self.path or '<scenario>'}{f':{line}' if line else ''}: {key}"

    @property
    def population_kinds(self) -> set[str]:
        """The slot kinds this scenario may use (the default one included)."""
        return {*self.slots.values(), self.default_slot}

    @property
    def uses_llm(self) -> bool:
        kinds = [*self.slots.values(), self.default_slot]
        return self.judge_model is not None or any(s.startswith("llm") for s in kinds)

    def with_model(self, model: str | None) -> Scenario:
        """Slots and judge written with `{model}` filled in (a sweep's model axis)."""
        if model is None:
            if self.needs_model:
                raise ScenarioError(f"{self.path}: slots use {MODEL_PLACEHOLDER} but no model was given "
                                    "(a study's `models`)")
            return self
        fill = lambda s: s.replace(MODEL_PLACEHOLDER, model)  # noqa: E731
        return dataclasses.replace(self, slots={p: fill(s) for p, s in self.slots.items()},
                                   judge_model=fill(self.judge_model) if self.judge_model else None)

    @property
    def needs_model(self) -> bool:
        return any(MODEL_PLACEHOLDER in s for s in [*self.slots.values(), self.judge_model or ""])


def is_scenario_file(ref: str | Path) -> bool:
    """A .toml file whose top level has a [scenario] table (world files have [world])."""
    path = Path(ref)
    if path.suffix != ".toml" or not path.is_file():
        return False
    try:
        return "scenario" in read_toml(path)
    except UserError:
        return False


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    return parse_scenario(read_toml(path, ScenarioError), path.read_text(encoding="utf-8"), path)


def parse_scenario(data: Mapping[str, Any], text: str, path: Path | None, base: Path | None = None) -> Scenario:
    """`base`: where relative paths in the file point (default: the file's folder)."""
    index = LineIndex(text)
    where = lambda key: f"{path or '<scenario>'}{f':{n}' if (n := index.line_of(key)) else ''}: {key}"  # noqa: E731
    base = base or (path.parent if path is not None else Path.cwd())

    def fail(key: str, message: str) -> ScenarioError:
        return ScenarioError(f"{where(key)}: {message}")

    for key in data:
        if key not in TOP_KEYS:
            raise fail(key, f"unknown table (expected {', '.join(sorted(TOP_KEYS))})")
    head = _table(data, "scenario", fail)
    for key in head:
        if key not in SCENARIO_KEYS:
            raise fail(f"scenario.{key}", f"unknown key (expected {', '.join(sorted(SCENARIO_KEYS))})")
    world = head.get("world")
    if not isinstance(world, str) or not world:
        raise fail("scenario.world", "missing or not a string (expected a built-in world name or a path)")
    if world.endswith(".toml") or "/" in world:
        world_path = (base / world).resolve()
        if not world_path.is_file():
            raise fail("scenario.world", f"no world file {world_path}")
        world = str(world_path)
    backend = head.get("backend", "sim")
    if backend not in ("sim", "minecraft"):
        raise fail("scenario.backend", f"expected \"sim\" or \"minecraft\", got {backend!r}")
    return Scenario(
        name=str(head.get("name") or (path.stem if path else "scenario")),
        path=path, text=text, world=world, backend=backend,
        seeds=_seeds(head.get("seeds", 5), fail), episodes=_count(head.get("episodes", 1), "scenario.episodes", fail),
        conditions=_conditions(data.get("conditions"), fail), slots=_slots(_table(data, "players", fail), fail),
        judge_model=_judge_model(_table(data, "judge", fail), fail),
        apply_llm_judge=_bool(_table(data, "judge", fail).get("apply_llm", True), "judge.apply_llm", fail),
        llm=_llm(_table(data, "llm", fail), base, fail),
        groups=parse_groups(data.get("groups"), fail),
        institution=parse_institution(data.get("institution"), fail),
    )


def _table(data: Mapping[str, Any], key: str, fail: Any) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise fail(key, "expected a table")
    return value


def _count(value: Any, key: str, fail: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise fail(key, f"expected a whole number >= 1, got {value!r}")
    return value


def _bool(value: Any, key: str, fail: Any) -> bool:
    if not isinstance(value, bool):
        raise fail(key, f"expected true or false, got {value!r}")
    return value


def _seeds(value: Any, fail: Any) -> list[int]:
    if isinstance(value, list):
        if not value or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value):
            raise fail("scenario.seeds", "expected a non-empty list of whole numbers >= 0")
        if len(set(value)) != len(value):
            raise fail("scenario.seeds", "a seed is listed twice")
        return list(value)
    return list(range(_count(value, "scenario.seeds", fail)))


def _conditions(value: Any, fail: Any) -> list[ConditionSpec]:
    if value is None:
        return [ConditionSpec("none", "none"), ConditionSpec("negotiate", "negotiate")]
    if not isinstance(value, list) or not value:
        raise fail("conditions", "expected one or more [[conditions]] tables")
    out: list[ConditionSpec] = []
    for i, c in enumerate(value):
        key = f"conditions[{i}]"
        if not isinstance(c, Mapping) or set(c) - {"name", "contract"}:
            raise fail(key, "expected a table with `contract` and optionally `name`")
        contract = c.get("contract")
        if not isinstance(contract, str) or not contract.strip():
            raise fail(f"{key}.contract", "missing or empty (expected none, negotiate or the text of a contract)")
        name = c.get("name")
        if contract in ("none", "negotiate"):
            out.append(ConditionSpec(str(name or contract), contract))
        elif not isinstance(name, str) or not name:
            raise fail(f"{key}.name", "a condition with a fixed contract text needs a name")
        else:
            out.append(ConditionSpec(name, "given", contract))
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", out[-1].name):
            raise fail(f"{key}.name", f"{out[-1].name!r}: use letters, digits, '_', '-' or '.' (it names folders)")
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise fail("conditions", f"two conditions share a name ({', '.join(names)})")
    return out


def _slots(players: Mapping[str, Any], fail: Any) -> dict[str, str]:
    out = {}
    for player, kind in players.items():
        if not isinstance(kind, str) or not SLOT.match(kind):
            raise fail(f"players.{player}", f"{kind!r}: expected \"scripted\", \"scripted:greedy\", "
                       "\"scripted:cooperative\", \"llm\", \"llm:MODEL\" or \"human\"")
        out[player] = kind
    return out


def _judge_model(judge: Mapping[str, Any], fail: Any) -> str | None:
    if set(judge) - {"llm", "apply_llm"}:
        raise fail("judge", "unknown key (expected llm, apply_llm)")
    model = judge.get("llm", "")
    if not isinstance(model, str):
        raise fail("judge.llm", "expected a model name (\"\" for the formal judge only)")
    return model or None


def _llm(llm: Mapping[str, Any], base: Path, fail: Any) -> dict[str, str]:
    out = {}
    for key, value in llm.items():
        if key not in ("base_url", "config") or not isinstance(value, str):
            raise fail(f"llm.{key}", "expected base_url or config, as a string")
        out[key] = str((base / value).resolve()) if key == "config" else value
    return out
