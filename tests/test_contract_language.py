"""Clauses as capable models write them, read formally to the clause they mean (docs/contracts.md), in a world
that names its chests and regions (tests/worlds/contract_language.toml); and what the parser refuses, with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.judge.contract import (
    Assignment, Deposit, Exclusion, ForEach, FreeText, Give, MineOnly, PerUnitTransfer, Pool, Quota, RegionLimit, Return,
    RewardSplit, Signal, Steps, ThresholdTransfer, TotalQuota, WaitFor, Window, Withdraw, parse_contract,
    render_clause,
)
from blockpact.worlds.spec.schema import Condition
from blockpact.worlds.world_files import load_world

WORLD = Path(__file__).parent / "worlds" / "contract_language.toml"
PLAYERS = ("Ann", "Ben", "Cy")
RIVER_CLEAN = Condition("slime_block", "river", "<=", 7)
RIVER_DIRTY = Condition("slime_block", "river", ">", 7)


@pytest.fixture(scope="module")
def spec():
    return load_world(WORLD)


def each(build) -> ForEach:
    return ForEach("each player", tuple(build(p) for p in PLAYERS))


# (phrasing, the clause it means): several per clause kind, as capable models write them.
PHRASINGS = [
    # negations
    ("Ben does not mine iron_ore.", Exclusion("Ben", "mine", "iron_ore")),
    ("Cy never takes the iron_pickaxe.", Exclusion("Cy", "take", "iron_pickaxe")),
    ("Ann will not mine any diamond_ore.", Exclusion("Ann", "mine", "diamond_ore")),
    ("Ben must not collect pumpkins.", Exclusion("Ben", "collect", "pumpkin")),
    ("Cy doesn't mine diamond ore.", Exclusion("Cy", "mine", "diamond_ore")),
    ("Ann shall never take the iron pickaxe from the tools chest.", Exclusion("Ann", "take", "iron_pickaxe", chest="tools")),
    # putting into a chest
    ("Ann puts 2 diamonds into the cache chest.", Deposit("Ann", "diamond", 2, "cache")),
    ("Ben places 3 pumpkins in the cache.", Deposit("Ben", "pumpkin", 3, "cache")),
    ("Cy deposits 4 raw_iron into the chest at (9, 64, 10).", Deposit("Cy", "raw_iron", 4, "cache")),
    ("Ann puts all of her raw iron into the cache chest.", Deposit("Ann", "raw_iron", None, "cache")),
    # taking from a chest
    ("Ben takes 2 diamonds from the cache chest.", Withdraw("Ben", "diamond", 2, "cache")),
    ("Cy takes the stone_pickaxe from the tools chest.", Withdraw("Cy", "stone_pickaxe", 1, "tools")),
    ("Ann takes 1 iron_pickaxe from the chest.", Withdraw("Ann", "iron_pickaxe", 1, "")),
    ("Ben withdraws 3 pumpkins from the cache.", Withdraw("Ben", "pumpkin", 3, "cache")),
    # returning
    ("Ann returns the iron_pickaxe to the tools chest.", Return("Ann", "iron_pickaxe", "tools")),
    ("Ben puts the stone pickaxe back in the chest.", Return("Ben", "stone_pickaxe", "")),
    ("Cy returns the iron pickaxe to the chest when he is done.", Return("Cy", "iron_pickaxe", "")),
    ("Ann takes the iron_pickaxe from the tools chest and returns it to the chest.",
     Steps((Withdraw("Ann", "iron_pickaxe", 1, "tools"), Return("Ann", "iron_pickaxe", "")), ordered=False)),
    # waiting for signals
    ("Ben waits for Ann's signal.", WaitFor("Ben", "Ann")),
    ("Cy waits for Ann's signal and Ben's signal.", Steps((WaitFor("Cy", "Ann"), WaitFor("Cy", "Ben")), ordered=False)),
    ("Ben waits until Ann signals.", WaitFor("Ben", "Ann")),
    ("Cy waits for a signal from Ben before mining.", WaitFor("Cy", "Ben")),
    # then
    ("Ann puts 1 diamond into the cache chest, then signals Ben.",
     Steps((Deposit("Ann", "diamond", 1, "cache"), Signal("Ann", "Ben")), ordered=True)),
    ("Ben waits for Ann's signal and Cy's signal, then takes 2 diamonds from the cache chest.",
     Steps((Steps((WaitFor("Ben", "Ann"), WaitFor("Ben", "Cy")), ordered=False), Withdraw("Ben", "diamond", 2, "cache")), ordered=True)),
    ("Cy takes the iron_pickaxe from the tools chest, mines all diamond_ore, then returns it to the tools chest.",
     Steps((Withdraw("Cy", "iron_pickaxe", 1, "tools"), Assignment("Cy", "mine", "diamond_ore"),
            Return("Cy", "iron_pickaxe", "tools")), ordered=True)),
    ("Ann mines 3 iron_ore and then puts 3 raw_iron into the cache chest.",
     Steps((Quota("Ann", "mine", "iron_ore", 3, "at_least"), Deposit("Ann", "raw_iron", 3, "cache")), ordered=True)),
    # per-item penalties
    ("Ben pays 2 emeralds to Ann for each diamond over 3.", PerUnitTransfer("Ben", "Ann", 2, "diamond", "collect", 3)),
    ("If Cy mines more than 4 pumpkins, he pays 1 emerald to Ann for each extra pumpkin.",
     PerUnitTransfer("Cy", "Ann", 1, "pumpkin", "mine", 4)),
    ("Ann pays Ben 3 emeralds for every raw_iron beyond 5.", PerUnitTransfer("Ann", "Ben", 3, "raw_iron", "collect", 5)),
    ("For each diamond Ben collects above 2, Ben pays 2 emeralds to Cy.", PerUnitTransfer("Ben", "Cy", 2, "diamond", "collect", 2)),
    ("If Ben mines any diamond_ore, he pays 10 emeralds to Ann.", ThresholdTransfer("Ben", "Ann", 10, "mine", "diamond_ore", 0)),
    # splits of the total reward
    ("The total reward is split 60/40 between Ann and Ben.", RewardSplit(("Ann", "Ben"), (0.6, 0.4))),
    ("Ann gets 50%, Ben 30% and Cy 20% of the total reward.", RewardSplit(PLAYERS, (0.5, 0.3, 0.2))),
    ("Ann and Ben split their total reward 70/30.", RewardSplit(("Ann", "Ben"), (0.7, 0.3))),
    ("The total reward is split equally between Ann and Cy.", Pool(("Ann", "Cy"))),
    # regions the world names
    ("Ann mines only in the north patch.", RegionLimit("Ann", "mine", None, "north_patch")),
    ("Ben mines pumpkins only in the south patch.", RegionLimit("Ben", "mine", "pumpkin", "south_patch")),
    ("Cy does not mine in the north patch.", Exclusion("Cy", "mine", None, "north_patch")),
    ("Each player mines at most 3 pumpkins in the north patch every 60 seconds.",
     each(lambda p: Quota(p, "mine", "pumpkin", 3, "at_most", 60.0, None, "north_patch"))),
    # thresholds on a resource
    ("Each player mines at most 2 red_mushroom_block every 30 seconds while the river holds at most 7 slime_block.",
     each(lambda p: Quota(p, "mine", "red_mushroom_block", 2, "at_most", 30.0, condition=RIVER_CLEAN))),
    ("Nobody mines red mushroom blocks while the river has more than 7 slime blocks.",
     each(lambda p: Exclusion(p, "mine", "red_mushroom_block", condition=RIVER_DIRTY))),
    ("Cy mines slime_block whenever the river holds more than 5 slime_block.",
     Assignment("Cy", "mine", "slime_block", condition=Condition("slime_block", "river", ">", 5))),
    ("Ann collects no red_mushroom while there are more than 7 slime_block in the river.",
     Exclusion("Ann", "collect", "red_mushroom", condition=RIVER_DIRTY)),
    # time windows
    ("Each player mines at most 3 pumpkins every 60 seconds during the first 240 seconds.",
     each(lambda p: Quota(p, "mine", "pumpkin", 3, "at_most", 60.0, window=Window(0, 240)))),
    ("After 240 seconds, Ann mines at most 10 pumpkins.", Quota("Ann", "mine", "pumpkin", 10, "at_most", window=Window(240))),
    ("In the last period, all players together mine at most 12 pumpkins.",
     TotalQuota(PLAYERS, "mine", "pumpkin", 12, "at_most", window=Window(300))),
    ("Until second 120, Ben does not mine diamond_ore.", Exclusion("Ben", "mine", "diamond_ore", window=Window(0, 120))),
    ("From 60 to 120 seconds, Cy mines at most 2 pumpkins.", Quota("Cy", "mine", "pumpkin", 2, "at_most", window=Window(60, 120))),
    ("Ann mines at least 2 pumpkins between second 60 and second 180.",
     Quota("Ann", "mine", "pumpkin", 2, "at_least", window=Window(60, 180))),
    ("In the first 2 minutes Ben mines at most 4 pumpkins.", Quota("Ben", "mine", "pumpkin", 4, "at_most", window=Window(0, 120))),
    ("During the first 5 rounds each player mines at most 2 pumpkins every round.",
     each(lambda p: Quota(p, "mine", "pumpkin", 2, "at_most", 60.0, window=Window(0, 300)))),
    # crop words mean their items
    ("Cy deposits all carrots into the cache chest.", Deposit("Cy", "carrot", None, "cache")),
    ("Ben gives 3 potatoes to Ann.", Give("Ben", "Ann", "potato", 3)),
    ("Ann collects at most 5 carrots.", Quota("Ann", "collect", "carrot", 5, "at_most")),
    ("Ann mines all carrots.", Assignment("Ann", "mine", "carrots")),
]


@pytest.mark.parametrize(("text", "meant"), PHRASINGS, ids=[t for t, _ in PHRASINGS])
def test_phrasings_parse_to_the_clause_they_mean(spec, text: str, meant) -> None:
    [clause] = parse_contract(f"1. {text}", list(PLAYERS), spec=spec).clauses
    assert clause == meant, clause.why
    assert clause.formal


@pytest.mark.parametrize(("text", "meant"), PHRASINGS, ids=[t for t, _ in PHRASINGS])
def test_every_new_clause_renders_to_a_sentence_that_parses_back(spec, text: str, meant) -> None:
    sentence = render_clause(meant, world=spec.name)
    assert parse_contract(f"1. {sentence}", list(PLAYERS), spec=spec).clauses == (meant,), sentence


# More phrasings, each with its meaning spelt out in the controlled form (the clause rendered back).
SECOND_BATCH = [
    ('Ben will not mine any iron ore during the scenario.',
     'Ben does not mine iron_ore.'),
    ('Cy agrees not to take the iron_pickaxe from the tools chest.',
     'Cy does not take iron_pickaxe from the tools chest.'),
    ('Ann must never mine diamond_ore blocks.',
     'Ann does not mine diamond_ore.'),
    ('Neither Ben nor Cy mines diamond_ore.',
     'Ben does not mine diamond_ore and Cy does not mine diamond_ore.'),
    ('Ann will deposit 2 diamonds in the cache chest.',
     'Ann deposits 2 diamond into the cache chest.'),
    ('Ben will place all of his pumpkins into the cache chest at the end.',
     'Ben deposits all pumpkin into the cache chest.'),
    ('Cy stores 3 raw_iron in the cache.',
     'Cy deposits 3 raw_iron into the cache chest.'),
    ('Ann puts her 2 diamonds in the cache chest before the end of the scenario.',
     'Ann deposits 2 diamond into the cache chest.'),
    ('Ben will take 2 diamonds out of the cache chest.',
     'Ben takes 2 diamond from the cache chest.'),
    ('Cy will retrieve the stone pickaxe from the tools chest.',
     'Cy takes 1 stone_pickaxe from the tools chest.'),
    ('Ann takes the iron_pickaxe out of the tools chest.',
     'Ann takes 1 iron_pickaxe from the tools chest.'),
    ('Ben picks up 1 diamond from the cache chest.',
     'Ben takes 1 diamond from the cache chest.'),
    ('Ann will return the iron pickaxe to the tools chest after mining.',
     'Ann returns the iron_pickaxe to the tools chest.'),
    ('Cy must put the iron_pickaxe back into the tools chest.',
     'Cy returns the iron_pickaxe to the tools chest.'),
    ('Ben returns the stone_pickaxe to the tools chest once he is done.',
     'Ben returns the stone_pickaxe to the tools chest.'),
    ('After using it, Ann puts the iron_pickaxe back in the tools chest.',
     'Ann returns the iron_pickaxe to the tools chest.'),
    ("Cy will wait for Ann's signal before mining.",
     "Cy waits for Ann's signal."),
    ('Ben waits for signals from both Ann and Cy.',
     "Ben waits for Ann's signal and Cy's signal."),
    ('Cy does nothing until Ben signals.',
     "Cy waits for Ben's signal."),
    ('Ben waits for Cy to signal.',
     "Ben waits for Cy's signal."),
    ('Ann deposits 1 diamond into the cache chest and then signals Ben.',
     'Ann deposits 1 diamond into the cache chest, then Ann signals Ben when done.'),
    ('Cy takes the iron pickaxe from the tools chest, mines all the diamond ore, returns the pickaxe to the tools chest, and then signals Ann.',
     'Cy takes 1 iron_pickaxe from the tools chest, then Cy mines all diamond_ore, then Cy returns the iron_pickaxe to the tools chest, then Cy signals Ann when done.'),
    ("Ben waits for Ann's signal, then takes 1 diamond from the cache chest.",
     "Ben waits for Ann's signal, then Ben takes 1 diamond from the cache chest."),
    ('Ann mines 2 diamond_ore, then deposits 2 diamonds into the cache chest, then signals Cy.',
     'Ann mines at least 2 diamond_ore, then Ann deposits 2 diamond into the cache chest, then Ann signals Cy when done.'),
    ('Ben pays Ann 2 emeralds for each diamond Ben collects beyond 3.',
     'At the end of the scenario Ben transfers 2 emeralds to Ann for each diamond collected over 3.'),
    ('If Ann mines more than 5 pumpkins, she pays 1 emerald to Cy for each extra one.',
     'At the end of the scenario Ann transfers 1 emerald to Cy for each pumpkin mined over 5.'),
    ('Cy will pay 3 emeralds to Ben for every pumpkin over 4.',
     'At the end of the scenario Cy transfers 3 emeralds to Ben for each pumpkin collected over 4.'),
    ('If Cy mines any iron_ore, Cy pays 5 emeralds to Ben.',
     'If Cy mines more than 0 iron_ore, Cy pays 5 emeralds to Ben.'),
    ('The total reward will be split 50/50 between Ann and Ben.',
     'The total reward is split 50/50 between Ann and Ben.'),
    ('Ann and Cy split the total reward 60-40.',
     'The total reward is split 60/40 between Ann and Cy.'),
    ('Ann receives 40%, Ben 30% and Cy 30% of the total reward.',
     'The total reward is split 40/30/30 between Ann, Ben and Cy.'),
    ('The total reward is divided equally among all players.',
     'Ann, Ben and Cy share their rewards equally.'),
    ('Ben will only mine in the south patch.',
     'Ben mines only in the south patch.'),
    ('Ann mines pumpkins only within the north patch.',
     'Ann mines pumpkin only in the north patch.'),
    ('Cy will not mine pumpkins in the south patch.',
     'Cy does not mine pumpkin in the south patch.'),
    ('All players together mine at most 6 pumpkins in the north patch every 60 seconds.',
     'Ann, Ben and Cy together mine at most 6 pumpkin in the north patch every 60 seconds.'),
    ('Each player mines at most 1 red mushroom block every 30 seconds as long as the river holds at most 7 slime blocks.',
     'Each player mines at most 1 red_mushroom_block every 30 seconds while the river holds at most 7 slime_block.'),
    ('Nobody mines red_mushroom_block when the river contains more than 7 slime_block.',
     'Each player does not mine red_mushroom_block while the river holds more than 7 slime_block.'),
    ('Ann will mine slime_block while the river has more than 4 slime_block.',
     'Ann mines all slime_block while the river holds more than 4 slime_block.'),
    ('During the first 120 seconds, each player mines at most 2 pumpkins every 60 seconds.',
     'Each player mines at most 2 pumpkin every 60 seconds during the first 120 seconds.'),
    ('After the first 240 seconds, Ben may mine at most 6 pumpkins.',
     'Ben mines at most 6 pumpkin after 240 seconds.'),
    ('In the last 60 seconds, all players together mine at most 20 pumpkins.',
     'Ann, Ben and Cy together mine at most 20 pumpkin after 300 seconds.'),
    ('Cy mines at most 3 pumpkins between 120 and 240 seconds.',
     'Cy mines at most 3 pumpkin from 120 to 240 seconds.'),
    ('Ben does not mine pumpkins before second 60.',
     'Ben does not mine pumpkin during the first 60 seconds.'),
    ('Cy will deposit all of his carrots into the cache chest.',
     'Cy deposits all carrot into the cache chest.'),
    ('Ann gives all potatoes to Cy.',
     'Ann gives all potato to Cy.'),
]


@pytest.mark.parametrize(("text", "meaning"), SECOND_BATCH, ids=[t for t, _ in SECOND_BATCH])
def test_more_phrasings_read_to_the_meaning_spelt_out(spec, text: str, meaning: str) -> None:
    [clause] = parse_contract(f"1. {text}", list(PLAYERS), spec=spec).clauses
    assert clause.formal, clause.why
    assert render_clause(clause, world=spec.name) == meaning
    assert parse_contract(f"1. {meaning}", list(PLAYERS), spec=spec).clauses == (clause,)


REFUSED = [
    ("Ann deposits all carrots into the bank chest.", "this world has no chest named 'bank' (chests: cache, tools)"),
    ("Ann puts 2 diamonds into the chest at (1, 64, 1).", "there is no chest at [1, 64, 1] in this world"),
    ("Ben deposits 2 emerald_ore into the cache chest.", "nobody in this world can come to hold emerald_ore"),
    ("Cy does not mine gold_ore.", "this world has no gold_ore"),
    ("Ann gives 2 sweet_berry_bush to Ben.", "'sweet_berry_bush' is a block, not an item a player can hold"),
    ("Ann mines at most 3 pumpkins after 400 seconds.", "the window starts at 400 s, when the episode (360 s) is over"),
    ("The total reward is split 60/40.", "say whose share is whose"),
    ("The total reward is split 60/30/10 between Ann and Ben.", "3 shares for 2 players"),
    ("Ann collects only in the north patch.", "only mining can be limited to a region"),
    ("Ann deposits 2 diamonds into the cache chest after 100 seconds.", "a deposit can have a deadline"),
]


@pytest.mark.parametrize(("text", "reason"), REFUSED, ids=[t for t, _ in REFUSED])
def test_clauses_that_could_never_happen_or_name_nothing_are_refused_with_the_reason(spec, text: str, reason: str) -> None:
    [clause] = parse_contract(f"1. {text}", list(PLAYERS), spec=spec).clauses
    assert isinstance(clause, FreeText) and reason in clause.reason, clause.reason


def test_without_a_world_chest_words_still_name_chests_and_world_windows_are_refused() -> None:
    [deposit, window] = parse_contract("1. Ann deposits 2 diamonds into the bank chest.\n"
                                       "2. In the last period Ann mines at most 2 pumpkins.", list(PLAYERS)).clauses
    assert deposit == Deposit("Ann", "diamond", 2, "bank")
    assert isinstance(window, FreeText) and "needs" in window.reason


def test_region_words_from_the_world_file_and_names_that_clash(tmp_path: Path) -> None:
    text = WORLD.read_text().replace('[regions.north_patch]\n', '[regions.north_patch]\nwords = ["north field"]\n')
    (tmp_path / "w.toml").write_text(text)
    spec = load_world(tmp_path / "w.toml")
    [clause] = parse_contract("1. Ann mines only in the north field.", list(PLAYERS), spec=spec).clauses
    assert clause == RegionLimit("Ann", "mine", None, "north_patch")
    (tmp_path / "clash.toml").write_text(WORLD.read_text().replace('[regions.garden]\n', '[regions.garden]\nwords = ["cache"]\n'))
    from blockpact.worlds.spec.value_reader import WorldSpecError

    with pytest.raises(WorldSpecError) as raised:
        load_world(tmp_path / "clash.toml")
    assert "'cache' names both region garden and chest cache" in str(raised.value)
    assert "clash.toml:" in str(raised.value)


def test_a_condition_with_left_reads_as_the_condition() -> None:
    commons = load_world("commons")
    [clause] = parse_contract("Nobody mines pumpkins while the patch has fewer than 6 pumpkins left.",
                              sorted(commons.players), spec=commons).clauses
    assert clause == ForEach("each player", tuple(Exclusion(p, "mine", "pumpkin", condition=Condition("pumpkin", "patch", "<", 6))
                                                  for p in sorted(commons.players)))


@pytest.mark.parametrize("text", ["Stop mining pumpkins once less than 6 remain in the patch.",
                                  "Nobody mines pumpkins once the patch has fewer than 6 pumpkins left."])
def test_a_condition_outside_the_grammar_is_told_its_controlled_form(text: str) -> None:
    commons = load_world("commons")
    [(_, clause)] = parse_contract(text, sorted(commons.players), spec=commons).free_text()
    assert "a world condition is written 'while the REGION holds fewer than N BLOCK'" in clause.reason


def test_a_sentence_without_a_condition_gets_no_condition_hint() -> None:
    commons = load_world("commons")
    [(_, clause)] = parse_contract("Be nice to each other.", sorted(commons.players), spec=commons).free_text()
    assert "world condition" not in clause.reason


@pytest.mark.parametrize(("text", "blocks"), [("Gizmo mines only iron ore.", ("iron_ore",)),
                                             ("Gizmo mines only iron_ore.", ("iron_ore",)),
                                             ("Glitch only breaks diamond ore.", ("diamond_ore",))])
def test_mines_only_an_item_limits_the_player_to_it_and_is_not_mines_all_of_it(text: str, blocks) -> None:
    """'Gizmo mines only iron ore' limits what Gizmo mines (no other block); read as 'mines all iron_ore' it would mean
    the opposite (Gizmo free to mine diamonds, Glitch in breach for any iron)."""
    [clause] = parse_contract(text, ["Gizmo", "Glitch"], world="double_vein").clauses
    assert clause == MineOnly(text.split()[0], blocks)


@pytest.mark.parametrize("text", ["Gizmo mines only a few iron ore.", "Gizmo mines only 3 iron ore."])
def test_only_with_an_amount_stays_free_text_with_the_forms_that_say_it(text: str) -> None:
    [(_, clause)] = parse_contract(text, ["Gizmo", "Glitch"], world="double_vein").free_text()
    assert "'Gizmo mines only iron_ore'" in clause.reason


def test_a_material_word_with_two_blocks_of_it_is_refused_with_both_named() -> None:
    """"logs" is the world's one *_log block; with oak and birch logs it could be either, so the clause says so."""
    from dataclasses import replace

    from blockpact.judge.contract_grammar import parse_clause
    from blockpact.judge.contract_lexicon import version_lexicon

    lexicon = replace(version_lexicon("1.20.4"), world="two_trees", obtainable=frozenset({"oak_log", "birch_log"}),
                      world_blocks=frozenset({"oak_log", "birch_log", "grass_block"}))
    for text, kind in (("Ann mines at most 3 logs.", "block"), ("Ann gives 2 logs to Ben.", "item")):
        clause = parse_clause(text, ["Ann", "Ben"], world="two_trees", lexicon=lexicon)
        assert isinstance(clause, FreeText)
        assert f"'log' could be birch_log or oak_log: name the {kind}" in clause.reason
