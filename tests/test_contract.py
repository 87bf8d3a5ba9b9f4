"""The controlled contract language: many phrasings parse to the same clause, others stay free text with a reason."""

from __future__ import annotations

import pytest

from blockpact.judge.contract import (
    Assignment,
    FixedTransfer,
    FreeText,
    PerUnitTransfer,
    ProportionalTransfer,
    TurnTaking,
    parse_contract,
    render_clause,
    render_contract,
)
from blockpact.judge.contract_grammar import load_terms

PLAYERS = ["Gizmo", "Glitch"]


def clause(text: str, world: str | None = None):
    [parsed] = parse_contract(f"1. {text}", PLAYERS, world=world).clauses
    return parsed


@pytest.mark.parametrize(
    "text",
    [
        "Gizmo mines all iron_ore.",
        "Gizmo mines all the iron ore",
        "gizmo MINES ALL IRON_ORES",
        "Gizmo will mine all iron ores.",
        "Gizmo mines iron_ore",
        "Gizmo mines all iron ore blocks.",
        "Gizmo shall harvest all of the iron ore",
    ],
)
def test_assignment_phrasings(text: str) -> None:
    assert clause(text) == Assignment("Gizmo", "mine", "iron_ore")


def test_other_assignment_verbs() -> None:
    assert clause("Glitch collects all diamonds") == Assignment("Glitch", "collect", "diamond")
    assert clause("Glitch takes the iron_pickaxe.") == Assignment("Glitch", "take", "iron_pickaxe")
    assert clause("Glitch harvests all red mushroom blocks") == Assignment("Glitch", "mine", "red_mushroom_block")


def test_world_phrases_come_from_the_terms_file() -> None:
    assert clause("Gizmo cleans the river.", world="cleanup") == Assignment("Gizmo", "mine", "slime_block")
    assert clause("Glitch will keep the river clean", world="cleanup") == Assignment("Glitch", "mine", "slime_block")
    other_world = clause("Gizmo cleans the river.", world="double_vein")
    assert isinstance(other_world, FreeText) and "expected a verb" in other_world.reason
    phrase = next(p for p in load_terms().phrases if p.world == "cleanup")
    assert (phrase.verb, phrase.target) == ("mine", "slime_block")


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        ("Gizmo takes the iron_pickaxe first and returns it to the chest, then signals Glitch.", True),
        ("Gizmo takes the iron pickaxe first and returns it to the chest, then sends a signal to Glitch", True),
        ("Gizmo uses the iron_pickaxe first and puts it back in the chest, then Glitch takes it.", False),
        ("Gizmo takes the iron_pickaxe first from the chest and returns it into the chest then signals glitch", True),
    ],
)
def test_turn_taking(text: str, signal: bool) -> None:
    assert clause(text) == TurnTaking("Gizmo", "iron_pickaxe", "Glitch", signal)


@pytest.mark.parametrize(
    "text",
    [
        "At the end of the scenario Gizmo transfers 11 emeralds to Glitch.",
        "At the end of the scenario, Gizmo transfers 11 emerald to Glitch",
        "Gizmo transfers 11 emeralds to Glitch at the end of the scenario.",
        "Gizmo will pay 11 emeralds to Glitch.",
        "Gizmo pays Glitch 11 emeralds.",
        "At the end of the episode Gizmo gives 11.0 emeralds to Glitch",
    ],
)
def test_fixed_transfer(text: str) -> None:
    assert clause(text) == FixedTransfer("Gizmo", "Glitch", 11.0)


@pytest.mark.parametrize(
    ("text", "fraction"),
    [
        ("At the end of the scenario Gizmo transfers 50% of the value of his raw_iron to Glitch.", 0.5),
        ("Gizmo transfers 12.5 % of the value of his raw iron to Glitch", 0.125),
        ("Gizmo transfers 30 percent of the value of her raw_iron to Glitch", 0.3),
        ("Gizmo transfers half of the value of Gizmo's raw_iron to Glitch", 0.5),
    ],
)
def test_proportional_transfer(text: str, fraction: float) -> None:
    assert clause(text) == ProportionalTransfer("Gizmo", "Glitch", fraction, "raw_iron")


@pytest.mark.parametrize(
    "text",
    [
        "At the end of the scenario Gizmo transfers 1.5 emeralds to Glitch for each red_mushroom collected.",
        "Gizmo transfers 1.5 emeralds to Glitch for every red mushroom collected",
        "Gizmo pays 1.5 emeralds per red mushroom to Glitch",
        "Gizmo pays Glitch 1.5 emeralds for each red_mushroom harvested.",
    ],
)
def test_per_unit_transfer(text: str) -> None:
    assert clause(text) == PerUnitTransfer("Gizmo", "Glitch", 1.5, "red_mushroom")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("At the end of the scenario Bob transfers 11 emeralds to Glitch.", "unknown player 'Bob' (players: Gizmo, Glitch)"),
        ("Gizmo transfers 11 emeralds to Steve.", "unknown player 'Steve'"),
        ("We will share everything fairly.", "expected 'all', 'combined', 'earnings'"),
        ("Gizmo transfers some emeralds to Glitch.", "expected a number, a player name"),
        ("Gizmo transfers 11 diamonds to Glitch.", "expected '%', 'emerald', 'emeralds' or 'percent' after 'Gizmo transfers 11', found 'diamonds'"),
        ("Gizmo transfers 11 emeralds Glitch.", "after 'Gizmo transfers 11 emeralds', found 'Glitch'"),
        ("Gizmo mines all unobtainium.", "expected an item name"),
        ("Gizmo transfers 50% of the value of Glitch's diamond to Glitch", "the payer's own items, not Glitch's"),
        ("Gizmo transfers 150% of the value of his diamond to Glitch", "more than the whole value"),
        ("Gizmo transfers 5 emeralds to Gizmo.", "Gizmo cannot pay himself"),
        ("Gizmo takes the iron_pickaxe first and keeps it.", "(bring, brings, put, puts, return, returns, ...) after 'Gizmo takes iron_pickaxe first and', found 'keeps'"),
        ("Gizmo takes the iron_pickaxe first and returns it to the chest, then waits.", "expected a player name, 'sends' or 'signals' after"),
        ("", "expected a player name"),
    ],
)
def test_malformed_clauses_stay_free_text_with_a_reason(text: str, reason: str) -> None:
    parsed = parse_contract(f"1. {text}\n2. Gizmo mines all iron_ore.", PLAYERS).clauses
    if not text:
        assert parsed == (Assignment("Gizmo", "mine", "iron_ore"),)  # an empty clause is no clause
        return
    assert isinstance(parsed[0], FreeText) and parsed[0].text == text
    assert reason in parsed[0].reason
    assert parsed[1] == Assignment("Gizmo", "mine", "iron_ore")


def test_numbered_clauses_headings_and_continuation_lines() -> None:
    text = """Contract:
    1) Gizmo mines all iron_ore.
    2. At the end of the scenario Gizmo transfers
       9 emeralds to Glitch.
    3. Both players are friendly.
    """
    contract = parse_contract(text, PLAYERS)
    assert contract.clauses[:2] == (Assignment("Gizmo", "mine", "iron_ore"), FixedTransfer("Gizmo", "Glitch", 9.0))
    assert [n for n, _ in contract.free_text()] == [3]
    assert contract.text.startswith("Contract:")


def test_unnumbered_text_gives_one_clause_per_line_and_no_text_no_contract() -> None:
    contract = parse_contract("Gizmo mines all iron_ore\nGlitch mines all diamond_ore", PLAYERS)
    assert contract.clauses == (Assignment("Gizmo", "mine", "iron_ore"), Assignment("Glitch", "mine", "diamond_ore"))
    assert parse_contract(None, PLAYERS).empty and parse_contract("  \n", PLAYERS).empty


def test_rendering_parses_back_to_the_same_clauses() -> None:
    clauses = [
        Assignment("Gizmo", "mine", "iron_ore"),
        Assignment("Glitch", "collect", "diamond"),
        Assignment("Glitch", "take", "iron_pickaxe"),
        Assignment("Glitch", "mine", "slime_block"),
        TurnTaking("Gizmo", "iron_pickaxe", "Glitch", True),
        TurnTaking("Glitch", "stone_pickaxe", "Gizmo", False),
        FixedTransfer("Gizmo", "Glitch", 9.0),
        FixedTransfer("Glitch", "Gizmo", 1.0),
        ProportionalTransfer("Gizmo", "Glitch", 0.333, "raw_iron"),
        PerUnitTransfer("Gizmo", "Glitch", 1.5, "red_mushroom"),
    ]
    for world in (None, "cleanup", "double_vein"):
        text = render_contract(clauses, world=world)
        assert parse_contract(text, PLAYERS, world=world).clauses == tuple(clauses)
    assert render_clause(Assignment("Glitch", "mine", "slime_block"), world="cleanup") == "Glitch cleans the river."
    assert render_clause(FixedTransfer("Gizmo", "Glitch", 9.0)) == (
        "At the end of the scenario Gizmo transfers 9 emeralds to Glitch."
    )
    assert render_clause(FreeText("Be nice.", "no verb")) == "Be nice."


@pytest.mark.parametrize("text", [
    "1. Gizmo mines all iron_ore. 2. Glitch mines all diamond_ore. 3. At the end of the scenario Gizmo transfers 9.5 emeralds to Glitch.",
    "Contract: 1) Gizmo mines all iron_ore; 2) Glitch mines all diamond_ore; 3) At the end of the scenario Gizmo transfers 9.5 emeralds to Glitch.",
])
def test_numbered_clauses_on_one_line_are_split_at_the_count_not_at_decimals(text: str) -> None:
    contract = parse_contract(text, ["Gizmo", "Glitch"])
    assert [type(c).__name__ for c in contract.clauses] == ["Assignment", "Assignment", "FixedTransfer"]
    assert contract.clauses[2].amount == 9.5
