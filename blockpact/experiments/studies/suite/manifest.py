"""The built-in dilemma suite (`suite.toml` beside this module): which worlds, which scenario plays each, and the
reference points a score is measured against: the welfare of all-greedy play (score 0), the optimum's (score 1)
and the contract that reaches it. `tests/test_suite_references.py` checks every figure against the simulator.

```toml
[suite]
name = "dilemmas"
seeds = 5                                  # the seeds every world is played on (a count: 0..n-1)

[worlds.stag_hunt]
shape = "stag hunt needing pooling"        # what kind of dilemma, in a few words
scenario = "scenarios/stag_hunt.toml"      # relative to suite.toml
greedy_welfare = 9                         # all-greedy scripted play, mean over the suite's seeds (score 0)
contract_welfare = 69                      # the contract below kept by the cooperative players, mean over the seeds
optimum_welfare = 69                       # the best welfare known (score 1): the contract's, or more if known
optimum_from = "contract search"           # how the optimum was found
contract = "1. Ben deposits ..."           # a formal contract that reaches contract_welfare
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockpact.config import read_toml
from blockpact.errors import UserError
from blockpact.experiments.plan.scenario import Scenario, load_scenario
from blockpact.toml_lines import LineIndex

SUITE_FILE = Path(__file__).parent / "suite.toml"
WORLD_KEYS = {"shape", "scenario", "greedy_welfare", "contract_welfare", "optimum_welfare", "optimum_from", "contract"}


class SuiteError(UserError):
    pass


@dataclass(frozen=True)
class SuiteWorld:
    """One world of the suite with its reference points."""

    name: str
    shape: str
    scenario: Scenario
    greedy_welfare: float
    contract_welfare: float
    optimum_welfare: float
    optimum_from: str
    contract: str

    def score(self, welfare: float) -> float:
        """0 at all-greedy welfare, 1 at the optimum; below 0 worse than greedy, above 1 past the known optimum."""
        return (welfare - self.greedy_welfare) / (self.optimum_welfare - self.greedy_welfare)


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    text: str
    seeds: list[int]
    worlds: dict[str, SuiteWorld]

    def select(self, names: list[str] | None) -> list[SuiteWorld]:
        """The worlds named (all when None), in the suite's order; an unknown name is an error naming the rest."""
        if not names:
            return list(self.worlds.values())
        unknown = [n for n in names if n not in self.worlds]
        if unknown:
            raise SuiteError(f"no suite world {', '.join(map(repr, unknown))} (suite worlds: {', '.join(self.worlds)})")
        return [self.worlds[n] for n in names]


def load_suite(path: str | Path = SUITE_FILE) -> Suite:
    path = Path(path)
    data = read_toml(path, SuiteError)
    text = path.read_text(encoding="utf-8")
    index = LineIndex(text)

    def fail(key: str, message: str) -> SuiteError:
        line = index.line_of(key)
        return SuiteError(f"{path}{f':{line}' if line else ''}: {key}: {message}")

    if set(data) - {"suite", "worlds"}:
        raise fail(sorted(set(data) - {"suite", "worlds"})[0], "unknown table (expected suite, worlds)")
    head = data.get("suite")
    if not isinstance(head, Mapping) or set(head) - {"name", "seeds"}:
        raise fail("suite", "expected a [suite] table with name and seeds")
    seeds = head.get("seeds")
    if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1:
        raise fail("suite.seeds", f"expected a whole number >= 1, got {seeds!r}")
    worlds = data.get("worlds")
    if not isinstance(worlds, Mapping) or not worlds:
        raise fail("worlds", "expected one or more [worlds.NAME] tables")
    return Suite(str(head.get("name") or path.stem), path, text, list(range(seeds)),
                 {name: _world(name, entry, path.parent, fail) for name, entry in worlds.items()})


def _world(name: str, entry: Any, base: Path, fail: Any) -> SuiteWorld:
    key = f"worlds.{name}"
    if not isinstance(entry, Mapping):
        raise fail(key, "expected a table")
    if set(entry) - WORLD_KEYS:
        raise fail(f"{key}.{sorted(set(entry) - WORLD_KEYS)[0]}", f"unknown key (expected {', '.join(sorted(WORLD_KEYS))})")
    missing = sorted(WORLD_KEYS - set(entry))
    if missing:
        raise fail(key, f"missing {', '.join(missing)}")
    for k in ("shape", "scenario", "optimum_from", "contract"):
        if not isinstance(entry[k], str) or not entry[k].strip():
            raise fail(f"{key}.{k}", "expected a non-empty string")
    for k in ("greedy_welfare", "contract_welfare", "optimum_welfare"):
        if not isinstance(entry[k], (int, float)) or isinstance(entry[k], bool):
            raise fail(f"{key}.{k}", f"expected a number, got {entry[k]!r}")
    if entry["optimum_welfare"] <= entry["greedy_welfare"]:
        raise fail(f"{key}.optimum_welfare", f"{entry['optimum_welfare']} is not above greedy_welfare "
                   f"{entry['greedy_welfare']}: a score needs the optimum above greedy play")
    if entry["contract_welfare"] > entry["optimum_welfare"]:
        raise fail(f"{key}.contract_welfare", f"{entry['contract_welfare']} is above optimum_welfare "
                   f"{entry['optimum_welfare']}: the optimum is the best welfare known")
    scenario_path = (base / entry["scenario"]).resolve()
    if not scenario_path.is_file():
        raise fail(f"{key}.scenario", f"no scenario file {scenario_path}")
    scenario = load_scenario(scenario_path)
    if scenario.name != name:
        raise fail(f"{key}.scenario", f"{scenario_path} names scenario {scenario.name!r}, expected {name!r}")
    return SuiteWorld(name, entry["shape"].strip(), scenario, float(entry["greedy_welfare"]),
                      float(entry["contract_welfare"]), float(entry["optimum_welfare"]), entry["optimum_from"].strip(), entry["contract"].strip())
