"""`blockpact compare`: one table over many runs (and sweeps), as a pure function of each run's
metrics.json (rebuilt from events.jsonl when missing) and its run_start event.

A sample is one finished seed of one condition of one run. Samples are grouped by treatment: world ×
condition × population (who filled each player slot), where the world is its file's content (as parsed) and the
backend it ran on, and a condition is its contract's mode and text. Runs that share a world name or a condition
name but differ there are told apart in the labels ("orchard (minecraft)", "orchard (file 3fa2c1)", "treat
(negotiate)", "contract (text 9b0e11)") and a warning says what each label stands for: pooling them mixed
treatments. A run whose scenario declares an institution is its own treatment ("none + meetings (majority)"),
paired with the same world and population's `none` without one. Runs pooled in one group that differ in episodes per seed, the judge or the LLM's sampling are
warned about. Each group gets n, mean and a 95% CI per measure; for deterministic agents (scripted players on the
simulator, formal judge) n counts distinct seeds, since a seed run again is the same outcome again, and a run
reached twice (a copy, or a run inside a sweep also named on its own) counts once. Paired differences compare each condition with the group's baseline condition (`none`
when present, else the first one) of the same world, backend and population, on the seeds both have, seed by
seed, so the world's randomness cancels out.

Measures: welfare (settled, after the judge), inventory welfare (before it) and Gini always; efficiency and survival when a run's metrics carry them (worlds
with dynamics), read tolerantly: a number or a boolean under the seed's entry or one table below it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.experiments.studies.compare_sources import RunSource, _digest, find_runs, load_run
from blockpact.experiments.outputs.stats import Estimate, estimate
from blockpact.numbers import tidy_fraction

# welfare (settled: after the judge), inventory welfare (before it: what the players hold) and Gini from each seed's
# entry in metrics.json's `conditions` (inventory welfare absent from older files); GovSim's measures, for worlds with renewable
# resources, from its entry in `commons` (commons_metrics.py): efficiency (when the world declares a reference
# welfare), survival (1 when no resource collapsed: its mean is GovSim's survival rate) and survival_time (simulated
# seconds until the first resource collapsed; the episode's length when none did).
MEASURES = ("welfare", "inventory_welfare", "gini", "efficiency", "survival", "survival_time")
# The range a measure can take: a group's interval is cut there (paired differences are not bounded).
BOUNDS = {"gini": (0.0, 1.0), "efficiency": (0.0, None), "survival": (0.0, 1.0), "survival_time": (0.0, None)}
BASELINE = "none"


@dataclass(frozen=True)
class Sample:
    world: str
    condition: str
    population: str
    seed: int
    run: Path
    values: dict[str, float]  # measure -> value; only the measures this run has


@dataclass
class Group:
    world: str
    condition: str
    population: str
    contract_mode: str | None
    samples: list[Sample] = field(default_factory=list)
    deterministic: bool = False  # every run pooled here plays a seed the same way each time
    seeds_planned: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)  # {"run", "seed", "error"[, "cause"]}: never zeros

    @property
    def unfinished(self) -> int:
        """Planned seeds neither finished nor failed (interrupted, not started)."""
        return max(self.seeds_planned - len({(s.run, s.seed) for s in self.samples})
                   - len({(f["run"], f.get("seed")) for f in self.failed}), 0)

    def estimate(self, measure: str) -> Estimate:
        """Over the samples, or for deterministic agents over the distinct seeds (n = the number of seeds: a seed
        run twice is the same outcome twice, not a second observation)."""
        if self.deterministic:
            values = list(self.by_seed(measure).values())
        else:
            values = [s.values[measure] for s in self.samples if measure in s.values]
        return estimate(values, BOUNDS.get(measure, (None, None)))

    @property
    def n(self) -> int:
        """Independent samples: distinct seeds for deterministic agents, else every finished seed of every run."""
        return len({s.seed for s in self.samples}) if self.deterministic else len(self.samples)

    def by_seed(self, measure: str) -> dict[int, float]:
        """One value per seed (the mean when a seed was run more than once)."""
        values: dict[int, list[float]] = defaultdict(list)
        for s in self.samples:
            if measure in s.values:
                values[s.seed].append(s.values[measure])
        return {seed: sum(v) / len(v) for seed, v in values.items()}


@dataclass(frozen=True)
class Paired:
    world: str
    population: str
    baseline: str
    condition: str
    measure: str
    seeds: list[int]  # matched seeds
    differences: list[float]  # condition − baseline, per matched seed
    unmatched: int  # seeds that only one of the two conditions has

    @property
    def estimate(self) -> Estimate:
        """Cut at the range a difference of the measure can take (a survival rate's difference: [-1, 1])."""
        lowest, highest = BOUNDS.get(self.measure, (None, None))
        bounded = lowest is not None and highest is not None
        return estimate(self.differences, (lowest - highest, highest - lowest) if bounded else (None, None))


@dataclass
class Comparison:
    groups: list[Group]
    paired: list[Paired]
    runs: list[RunSource]
    warnings: list[str]

    @property
    def measures(self) -> list[str]:
        """The measures at least one sample has, in MEASURES order."""
        have = {m for g in self.groups for s in g.samples for m in s.values}
        return [m for m in MEASURES if m in have]


def _labels(runs: Sequence[RunSource]) -> tuple[dict[Path, str], dict[tuple[Path, str], str], list[str]]:
    """The world label of each run and the condition label of each (run, condition): the bare names unless runs
    sharing a name differ in backend, world file or contract (mode and text); then what tells them apart, and a
    warning."""
    warnings: list[str] = []
    files: dict[str, dict[str | None, list[Path]]] = defaultdict(lambda: defaultdict(list))
    backends: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        files[run.world][run.world_digest].append(run.path)
        backends[run.world].add(run.backend)
    world_of: dict[Path, str] = {}
    for run in runs:
        parts = [run.backend] if len(backends[run.world]) > 1 else []
        if len(files[run.world]) > 1:
            parts.append(f"file {run.world_digest or 'unknown'}")
        world_of[run.path] = f"{run.world} ({', '.join(parts)})" if parts else run.world
    for world, by_digest in files.items():
        if len(by_digest) > 1:
            each = "; ".join(f"file {d or 'unknown (an older log without the world text)'}: {', '.join(p.name for p in paths)}"
                             for d, paths in by_digest.items())
            warnings.append(f"world {world}: runs from {len(by_digest)} world files (or logs) share the name; each is "
                            f"its own group ({each})")
    identities: dict[tuple[str, str], set[tuple[str, str | None]]] = defaultdict(set)
    for run in runs:
        for name in run.metrics.get("conditions", {}):
            identities[(world_of[run.path], name)].add(run.conditions.get(name, ("?", None)))
    condition_of: dict[tuple[Path, str], str] = {}
    for run in runs:
        for name in run.metrics.get("conditions", {}):
            mode, text = run.conditions.get(name, ("?", None))
            varied = len(identities[(world_of[run.path], name)]) > 1 and not (name == BASELINE and mode == "none")
            label = name if not varied else f"{name} (text {_digest(text)})" if text else f"{name} ({mode})"
            condition_of[(run.path, name)] = f"{label} + {run.institution}" if run.institution else label
    for (world, name), seen in identities.items():
        if len(seen) > 1:
            each = "; ".join(f"text {_digest(t)}: {t!r}" if t else f"{m}: no contract text"
                             for m, t in sorted(seen, key=lambda i: (i[0], i[1] or "")))
            warnings.append(f"{world} / {name}: {len(seen)} different contracts under one condition name; each is its "
                            f"own group ({each})")
    return world_of, condition_of, warnings


def measure_values(seed_run: Mapping[str, Any], commons_seed: Mapping[str, Any] | None = None) -> dict[str, float]:
    """One seed's measures: its entry in `conditions`, and in `commons` for a world with renewable resources."""
    out = {m: v for m in ("welfare", "inventory_welfare", "gini") if (v := _number(seed_run.get(m))) is not None}
    if "gini" in out:  # an older metrics.json wrote equal rewards' Gini as 3.8e-17
        out["gini"] = tidy_fraction(out["gini"])
    if commons_seed:
        if (efficiency := _number(commons_seed.get("efficiency"))) is not None:
            out["efficiency"] = efficiency
        resources = list((commons_seed.get("resources") or {}).values())
        if resources:
            out["survival"] = 0.0 if any(r.get("collapsed") for r in resources) else 1.0
            out["survival_time"] = min(float(r["survival_time"]) for r in resources)
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def compare(paths: Iterable[Path]) -> Comparison:
    runs, warnings = _distinct_runs([load_run(p) for p in find_runs(paths)])
    groups: dict[tuple[str, str, str], Group] = {}
    world_of, condition_of, label_warnings = _labels(runs)
    warnings += label_warnings
    for run in runs:
        if run.metrics.get("status") not in (None, "complete"):
            warnings.append(f"{run.path.name}: run status {run.metrics.get('status')!r}: only its finished seeds count")
        commons = (run.metrics.get("commons") or {}).get("conditions", {})
        for name, cond in run.metrics.get("conditions", {}).items():
            commons_seeds = {int(s["seed"]): s for s in commons.get(name, {}).get("seeds", [])}
            key = (world_of[run.path], condition_of[(run.path, name)], run.population_label)
            group = groups.setdefault(key, Group(*key, cond.get("contract_mode"), deterministic=True))
            group.deterministic = group.deterministic and run.deterministic
            group.seeds_planned += int(cond.get("seeds_planned", 0))
            group.failed.extend({"run": run.path.name, **e} for e in cond.get("errors", []))
            for seed_run in cond.get("runs", []):
                seed = int(seed_run["seed"])
                group.samples.append(Sample(*key, seed, run.path, measure_values(seed_run, commons_seeds.get(seed))))
    ordered = sorted(groups.values(), key=lambda g: (g.world, g.population, g.condition != BASELINE, g.condition))
    source = {run.path: run for run in runs}
    for g in ordered:
        pooled = [source[p] for p in dict.fromkeys(s.run for s in g.samples)]
        differ = [what for what in (pooled[0].setup if pooled else {}) if len({r.setup.get(what) for r in pooled}) > 1]
        if differ:
            warnings.append(f"{g.world} / {g.condition} / {g.population}: the runs pooled here differ in "
                            f"{', '.join(differ)} (compare them in separate calls if that matters)")
        warnings += _repeated_seeds(g)
    paired = paired_differences(ordered)
    return Comparison(ordered, paired, runs, warnings + settlement_alone(paired))


def settlement_alone(paired: Sequence[Paired]) -> list[str]:
    """A warning per condition whose mean welfare gain over its baseline is not in the inventories: made on paper
    by the judge's settlement (a gift settled at the receiver's value moves no item)."""
    by_key = {(p.world, p.population, p.condition, p.measure): p for p in paired}
    out = []
    for (world, population, condition, measure), settled in by_key.items():
        held = by_key.get((world, population, condition, "inventory_welfare"))
        if measure != "welfare" or held is None or settled.estimate.mean is None or held.estimate.mean is None:
            continue
        if settled.estimate.mean > 1e-9 and held.estimate.mean <= 1e-9:
            out.append(f"{world} / {condition} / {population}: its welfare gain over {settled.baseline} "
                       f"(+{settled.estimate.mean:.2f}) comes from the judge's settlement alone: inventory welfare "
                       f"{held.estimate.mean:+.2f} (docs/measures.md)")
    return out


def _distinct_runs(runs: list[RunSource]) -> tuple[list[RunSource], list[str]]:
    """Each run once: a run directory reached twice, or copied, is one run (its run_start line is the same)."""
    seen: dict[str, RunSource] = {}
    warnings = []
    for run in runs:
        if run.identity in seen:
            warnings.append(f"{run.path.name}: the same run as {seen[run.identity].path.name} (a copy): counted once")
            continue
        seen[run.identity] = run
    return list(seen.values()), warnings


def _repeated_seeds(g: Group) -> list[str]:
    """What a seed run more than once does to the numbers, said once per group."""
    values: dict[int, list[dict[str, float]]] = defaultdict(list)
    for s in g.samples:
        values[s.seed].append(s.values)
    repeated = sorted(seed for seed, v in values.items() if len(v) > 1)
    if not repeated:
        return []
    where = f"{g.world} / {g.condition} / {g.population}"
    seeds = ", ".join(map(str, repeated))
    if not g.deterministic:
        return [f"{where}: seeds {seeds} were run more than once; each run is a sample (LLM or live play differs "
                "run to run); paired differences use each seed's mean"]
    differ = [seed for seed in repeated if any(v != values[seed][0] for v in values[seed])]
    text = (f"{where}: seeds {seeds} were run more than once by deterministic agents: each seed counts once "
            f"(n = {g.n} distinct seeds, not {len(g.samples)} runs of them)")
    if differ:
        text += (f"; but seeds {', '.join(map(str, differ))} had different outcomes in different runs (a changed "
                 "world rule or blockpact version?): their mean is used")
    return [text]


def paired_differences(groups: Sequence[Group]) -> list[Paired]:
    by_cell: dict[tuple[str, str], list[Group]] = defaultdict(list)
    for g in groups:
        by_cell[(g.world, g.population)].append(g)
    out: list[Paired] = []
    for (world, population), cell in by_cell.items():
        # the baseline is a condition without a contract (a negotiating condition named `none` is not one)
        base = next((g for g in cell if g.condition == BASELINE and g.contract_mode in (None, "none")), cell[0])
        for other in cell:
            if other is base:
                continue
            for measure in MEASURES:
                a, b = base.by_seed(measure), other.by_seed(measure)
                if not a or not b:
                    continue
                matched = sorted(set(a) & set(b))
                out.append(Paired(world, population, base.condition, other.condition, measure, matched,
                                  [b[s] - a[s] for s in matched], len(set(a) ^ set(b))))
    return out
