"""A wait said as a step ("Ben waits for Ada's signal, then takes the iron_pickaxe") holds back only the later steps
of its clause, for the judge and for the scripted players; a wait standing alone holds back everything. Steps said
in order are planned in that order. On the stag hunt the scoped contract reaches the world's reference welfare
with every clause kept, where waiting before everything deadlocks the pool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.agents.scripted.contract_plan import plan_for
from blockpact.agents.scripted.world_facts import WorldFacts
from blockpact.cli import main
from blockpact.experiments.log.records import read_run
from blockpact.judge.contract import parse_contract
from blockpact.judge.formal import judge_formal
from blockpact.judge.observables import observables_from_events
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "stag_hunt.toml"
POOL = """1. Ben deposits 2 stick into the workshop chest, then signals Ada.
2. Ada waits for Ben's signal, then takes 2 stick from the workshop chest, then crafts 1 iron_pickaxe.
3. Ada mines at most 3 diamond_ore during the first 100 seconds.
4. Ada mines at least 3 diamond_ore, then deposits 1 iron_pickaxe into the workshop chest, then signals Ben.
5. Ben waits for Ada's signal, then takes 1 iron_pickaxe from the workshop chest, then mines at least 3 diamond_ore.
6. Cy mines all pumpkin.
7. Cy does not mine diamond_ore."""


@pytest.fixture(scope="module")
def pooled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scoped") / "run"
    assert main(["run", str(WORLD), "--contract", POOL, "--seeds", "1", "--out", str(out)]) == 0
    return out


def _judgment(out: Path) -> dict:
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return next(e["data"] for e in events if e["kind"] == "judgment" and e["data"]["source"] == "formal")


def test_scripted_players_keep_every_scoped_wait_and_reach_the_reference(pooled: Path) -> None:
    clauses = _judgment(pooled)["clauses"]
    assert [c["status"] for c in clauses] == ["kept"] * 7
    metrics = json.loads((pooled / "metrics.json").read_text())
    assert metrics["conditions"]["contract"]["welfare"]["mean"] == 69  # the world's reference_welfare: every block mined


def test_a_wait_standing_alone_still_holds_back_everything(pooled: Path) -> None:
    """The same episode judged under a contract whose wait stands alone: Ben's deposit before Ada's signal breaks it."""
    spec = load_world(str(WORLD))
    (seed,) = read_run(pooled / "events.jsonl").seeds
    obs = observables_from_events(spec, seed.episodes[0].events)
    alone = POOL.replace("5. Ben waits for Ada's signal, then takes", "5. Ben waits for Ada's signal.\n8. Ben takes")
    judged = judge_formal(parse_contract(alone, sorted(spec.players), spec=spec), obs)
    wait = next(c for c in judged.clauses if c["clause"] == 5)
    assert wait["status"] == "broken" and wait["broken_by"] == ["Ben"]
    assert "before Ada's signal" in wait["breaches"][0]
    scoped = judge_formal(parse_contract(POOL, sorted(spec.players), spec=spec), obs)
    assert all(c["status"] == "kept" for c in scoped.clauses)


def test_a_step_done_without_the_awaited_signal_breaks_the_clause(pooled: Path) -> None:
    """In the pooled episode Ben took the pickaxe after Ada's signal; waiting for Cy (who never signals) or taking
    before Ada's signal would have been a breach of the clause's order."""
    spec = load_world(str(WORLD))
    (seed,) = read_run(pooled / "events.jsonl").seeds
    obs = observables_from_events(spec, seed.episodes[0].events)
    never = parse_contract("1. Ben waits for Cy's signal, then takes 1 iron_pickaxe from the workshop chest.",
                           sorted(spec.players), spec=spec)
    clause = judge_formal(never, obs).clauses[0]
    assert clause["status"] == "broken" and clause["broken_by"] == ["Ben"]
    assert "although Cy's signal, which clause 1 waits for, never came" in clause["breaches"][0]
    early = parse_contract("1. Ada waits for Ben's signal, then takes 2 stick from the workshop chest.\n"
                           "2. Ben waits for Ada's signal, then deposits 2 stick into the workshop chest.",
                           sorted(spec.players), spec=spec)
    second = judge_formal(early, obs).clauses[1]  # Ben deposited at the start, long before Ada signalled
    assert second["status"] == "broken" and "not after it as clause 2 orders" in second["breaches"][0]


def test_the_plan_follows_the_order_a_clause_says() -> None:
    spec = load_world(str(WORLD))
    facts = WorldFacts(spec)
    contract = parse_contract(POOL, sorted(spec.players), spec=spec)
    ada = {s.id: s for s in plan_for(contract, "Ada", facts).steps}
    assert "wait:Ben:2" in ada["withdraw:2"].after  # the sticks only after Ben's signal
    assert "mine:diamond_ore" in ada["deposit:4"].after  # the pickaxe back only after her diamonds
    ben = {s.id: s for s in plan_for(contract, "Ben", facts).steps}
    assert "wait:Ada:5" not in ben["deposit:1"].after  # his deposit is not held back by the wait of clause 5
    assert "wait:Ada:5" in ben["withdraw:5"].after and "withdraw:5" in ben["mine:diamond_ore"].after


def test_an_order_that_contradicts_the_plan_is_dropped_with_a_note() -> None:
    spec = load_world(str(WORLD))
    contract = parse_contract("1. Ada mines at least 3 diamond_ore, then crafts 1 iron_pickaxe.\n"
                              "2. Ben deposits 2 stick into the workshop chest.", sorted(spec.players), spec=spec)
    plan = plan_for(contract, "Ada", WorldFacts(spec))
    assert any(note.startswith("clause 1: its steps cannot be done in the order it says") for note in plan.notes)
