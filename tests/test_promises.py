"""Promises against deeds: sentences of negotiation messages and chat that bind the speaker, judged by the formal
judge on a real episode (the scripted players keeping the stag hunt's pooling contract)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.outputs.promises import in_third_person, promises_of
from blockpact.experiments.log.records import NegotiationTurnRecord, read_run
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "stag_hunt.toml"
POOL = """1. Ben deposits 2 stick into the workshop chest, then signals Ada.
2. Ada waits for Ben's signal, then takes 2 stick from the workshop chest, then crafts 1 iron_pickaxe.
3. Ada mines at least 3 diamond_ore, then deposits 1 iron_pickaxe into the workshop chest, then signals Ben.
4. Ben waits for Ada's signal, then takes 1 iron_pickaxe from the workshop chest, then mines at least 3 diamond_ore.
5. Cy mines all pumpkin."""


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    out = tmp_path_factory.mktemp("promises") / "run"
    assert main(["run", str(WORLD), "--contract", POOL, "--seeds", "1", "--out", str(out)]) == 0
    (seed,) = read_run(out / "events.jsonl").seeds
    return load_world(str(WORLD)), seed, out


def _said(seed, *lines: tuple[str, str]):
    turns = [NegotiationTurnRecord(round=i, player=p, thinking="", message=m, proposal=None, accept=False,
                                   scripted=False, error=None) for i, (p, m) in enumerate(lines, 1)]
    return dataclasses.replace(seed, turns=turns)


def test_first_person_words_become_the_speakers_name() -> None:
    assert in_third_person("I'll put my sticks in the chest.", "Ben") == "Ben will put sticks in the chest."
    assert in_third_person("I won't mine diamond_ore", "Ada") == "Ada will not mine diamond_ore"
    assert in_third_person("Then I signal you", "Cy") == "Then Cy signal you"


def test_promises_are_judged_on_what_the_speaker_did(pooled) -> None:
    spec, seed, _ = pooled
    said = _said(seed,
                 ("Ben", "Deal. I will deposit 2 sticks into the workshop chest. Then we all win!"),
                 ("Ada", "I won't mine diamond_ore; you can trust me."),  # she mines them: broken
                 ("Cy", "I'll mine all pumpkin."),  # kept
                 ("Ada", "I will wait for Ben's signal, take 2 sticks from the workshop chest and craft 1 iron_pickaxe."),
                 ("Cy", "I will take the iron_pickaxe."),  # Ada takes it: her breach of what it gives Cy, not Cy's
                 ("Ben", "Cy will mine all pumpkin."),  # binds another: no promise of Ben's
                 ("Ada", "Will you deposit 2 sticks into the workshop chest?"),  # a question
                 ("Cy", "I promise to be a good neighbour."))  # nothing the formal reader can read
    tally = promises_of(spec, said)
    assert [(p.player, p.text, p.status) for p in tally.promises] == [
        ("Ben", "I will deposit 2 sticks into the workshop chest.", "kept"),
        ("Ada", "I won't mine diamond_ore;", "broken"),
        ("Cy", "I'll mine all pumpkin.", "kept"),
        ("Ada", "I will wait for Ben's signal, take 2 sticks from the workshop chest and craft 1 iron_pickaxe.", "kept"),
        ("Cy", "I will take the iron_pickaxe.", "kept"),
    ]
    summary = tally.to_json()
    assert (summary["made"], summary["kept"], summary["broken"]) == (5, 4, 1)
    assert summary["by_player"]["Ada"] == {"made": 2, "kept": 1, "broken": 1}


def test_no_promise_and_an_unfinished_episode(pooled) -> None:
    spec, seed, _ = pooled
    assert promises_of(spec, seed).made == 0  # the scripted players' canned lines promise nothing formal
    unfinished = dataclasses.replace(seed, episodes=[dataclasses.replace(seed.episodes[-1], rewards=None)])
    assert promises_of(spec, unfinished) is None


def test_what_a_program_says_in_chat_counts_and_primitive_feedback_does_not(pooled) -> None:
    from blockpact.worlds.events import Event

    spec, seed, _ = pooled
    final = seed.episodes[-1]
    said = [Event(1.0, "Cy", "chat", {"message": "I will not mine pumpkin.", "source": "program"}),
            Event(1.0, "Ben", "chat", {"message": "I will mine all pumpkin.", "source": "primitive"})]
    episode = dataclasses.replace(final, events=[*final.events[:1], *said, *final.events[1:]])
    tally = promises_of(spec, dataclasses.replace(seed, episodes=[*seed.episodes[:-1], episode]))
    assert [(p.player, p.source, p.status) for p in tally.promises] == [("Cy", "chat", "broken")]


def test_metrics_record_each_seeds_promises(pooled) -> None:
    import json

    *_, out = pooled
    (run,) = json.loads((out / "metrics.json").read_text())["conditions"]["contract"]["runs"]
    assert run["promises"] == {"made": 0, "kept": 0, "broken": 0, "by_player": {}, "promises": []}


def test_the_leaderboard_pools_promises_over_seeds() -> None:
    from blockpact.experiments.studies.suite.leaderboard import Cell, console_rows, Leaderboard, _promises
    from blockpact.experiments.studies.suite.scores import UnitScore

    units = [UnitScore("w", "llm", 0, "complete", welfare=1.0, score=0.5, promises={"made": 2, "kept": 1, "broken": 1}),
             UnitScore("w", "llm", 1, "complete", welfare=1.0, score=0.5, promises={"made": 1, "kept": 1, "broken": 0}),
             UnitScore("w", "llm", 2, "failed: endpoint")]
    row = Cell("llm", "w", units).row()
    assert (row["promises_made"], row["promises_kept"], row["promises_broken"]) == (3, 2, 1)
    assert _promises(row) == "2/3, 1 broken"
    assert _promises(Cell("greedy", "w", [UnitScore("w", "greedy", 0, "complete", welfare=1.0, score=0.0)]).row()) == "–"
