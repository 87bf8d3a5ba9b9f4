"""Casual wordings read as the clause forms they mean (blockpact/judge/data/contract_paraphrases.toml), each
checked by its reading rendered back and read again; and wordings that must stay free text because the judge could
not check what they add. Worlds: tests/worlds/contract_language.toml (Ann, Ben, Cy; cache and tools chests),
smithy_chain.toml (Nia, Oto, Pia; a furnace), kelp_fishery.toml (Ama ... Eli; no chest), pool_chest.toml (Ann,
Ben; a chest named "pool"), orchard_clans.toml (the east and west groups)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.judge.contract import parse_contract
from blockpact.judge.contract_paraphrase import rewrites
from blockpact.worlds.world_files import load_world
from harness.readings import assert_reads_as

WORLDS = Path(__file__).parent / "worlds"

# (world, phrasing, its reading in the controlled form, or None: free text)
PHRASINGS: list[tuple[str, str, str | None]] = [
    ("contract_language", "Clause 3: Ann mines at most 2 pumpkins.", "Ann mines at most 2 pumpkin."),
    ("contract_language", "4) Ben does not mine diamond ore.", "Ben does not mine diamond_ore."),
    ("contract_language", "Ann mines all two diamond ore blocks with the iron pickaxe.",
     "Ann mines at least 2 diamond_ore."),
    ("contract_language", "Ben puts all 3 pumpkins into the cache chest.",
     "Ben deposits 3 pumpkin into the cache chest."),
    ("contract_language", "Ben deposits both of his pumpkins into the cache chest.",
     "Ben deposits 2 pumpkin into the cache chest."),
    ("contract_language", "Cy picks the pumpkins in the south patch by hand and nothing else.", None),
    ("contract_language", "Cy picks at most four pumpkins by hand.", "Cy mines at most 4 pumpkin."),
    ("contract_language", "Each of us mines at most 3 pumpkins.", "Each player mines at most 3 pumpkin."),
    ("contract_language", "None of us mines red mushroom blocks.", "Each player does not mine red_mushroom_block."),
    ("contract_language", "Cy is the only one of us who mines iron ore.", "Nobody but Cy mines iron_ore."),
    ("contract_language", "Ben shall not take anything out of the tools chest.",
     "Ben does not take anything from the tools chest."),
    ("contract_language", "Ann does not mine diamond ore at all.", "Ann does not mine diamond_ore."),
    ("contract_language", "Over the whole game, Ann and Ben together mine at most 6 pumpkins.",
     "Ann and Ben together mine at most 6 pumpkin."),
    ("contract_language", "Ben mines no more than 5 pumpkins in total.", "Ben mines at most 5 pumpkin."),
    ("contract_language", "Each miner mines at most 2 pumpkins per 60-second period.",
     "Each player mines at most 2 pumpkin every 60 seconds."),
    ("contract_language", "Ann takes the iron pickaxe from the tools chest first, then signals Ben.",
     "Ann takes 1 iron_pickaxe from the tools chest, then Ann signals Ben when done."),
    ("contract_language", "Ann mines at most 2 pumpkins in the first 60 seconds of the game.",
     "Ann mines at most 2 pumpkin during the first 60 seconds."),
    ("contract_language", "Ann puts the pumpkins into the cache right away.", None),  # "right away": no time the judge has
    ("contract_language", "Ann lends the iron pickaxe to Ben.", None),  # no item passes between players but by chest
    ("smithy_chain", "Oto smelts 3 raw iron into iron ingots.", "Oto crafts 3 iron_ingot."),
    ("smithy_chain", "Oto smelts his three raw iron in the furnace, using his coal as fuel.", "Oto crafts 3 iron_ingot."),
    ("smithy_chain", "Oto smelts the raw iron into gold ingots.", None),  # raw_iron does not make gold
    ("smithy_chain", "Nia turns her oak logs into planks.", "Nia crafts 1 oak_planks."),
    ("smithy_chain", "Pia crafts the iron pickaxe at the crafting table.", "Pia crafts 1 iron_pickaxe."),
    ("kelp_fishery", "Each fisher takes at most 5 dried kelp blocks every 60 seconds.",
     "Each player mines at most 5 dried_kelp_block every 60 seconds."),
    ("kelp_fishery", "Together we harvest no more than twenty kelp blocks in any one period.",
     "Ama, Bex, Col, Dax and Eli together mine at most 20 dried_kelp_block every 60 seconds."),
    ("pool_chest", "Ann deposits 2 sticks into the pool chest.", "Ann deposits 2 stick into the pool chest."),
    ("pool_chest", "Ben takes 1 stick from the pool.", "Ben takes 1 stick from the pool chest."),
    ("pool_chest", "Ann and Ben pool their rewards and share them equally.", "Ann and Ben share their rewards equally."),
    ("smithy_chain", "Pia takes the three iron ingots and two sticks from the depot.",
     "Pia takes 3 iron_ingot from the depot chest and Pia takes 2 stick from the depot chest."),
    ("smithy_chain", "Nia deposits 2 oak logs, 1 stick and 1 pumpkin into the depot chest by 90 seconds.",
     "Nia deposits 2 oak_log into the depot chest by 90 seconds and Nia deposits 1 stick into the depot chest by 90 "
     "seconds and Nia deposits 1 pumpkin into the depot chest by 90 seconds."),
    ("smithy_chain", "Nia deposits 2 oak logs and 1 stick into the depot chest, then signals Pia.", None),  # an order unsaid
    ("contract_language", "Cy takes 2 pumpkins from the cache chest, but only after Ann and Ben have both signalled him.",
     "Cy waits for Ann's signal and Ben's signal, then Cy takes 2 pumpkin from the cache chest."),
    ("contract_language", "Ben crafts an iron pickaxe only after Ann has signalled him.",
     "Ben waits for Ann's signal, then Ben crafts 1 iron_pickaxe."),
    ("contract_language", "Ben does not take the iron pickaxe until Ann has signalled him.",  # a ban, not a promise
     "Ben does not take iron_pickaxe until Ann has signalled."),
    ("smithy_chain", "Oto does not take the sticks from the depot before Nia has signalled him and Pia has signalled "
     "him, in either order.", "Oto does not take stick from the depot chest until Nia and Pia have signalled."),
    ("contract_language", "Cy takes the pickaxe from the tools chest.", None),  # iron or stone: named where it is one
    ("contract_language", "Cy alone mines iron ore.", "Nobody but Cy mines iron_ore."),
    ("contract_language", "Ben does not mine any diamond ore or iron ore.",
     "Ben does not mine diamond_ore and Ben does not mine iron_ore."),
    ("contract_language", "Ann and Ben, combined, mine at most 6 pumpkins.", "Ann and Ben together mine at most 6 pumpkin."),
    ("contract_language", "Ann and Ben between them mine at most 6 pumpkins.",
     "Ann and Ben together mine at most 6 pumpkin."),
    ("contract_language", "Cy will not mine anything before Ann signals 'go'.", "Cy does not mine until Ann has signalled."),
    ("contract_language", "Ben returns the iron pickaxe to the tools chest (the one at the start) before 200 seconds "
     "have passed.", "Ben returns the iron_pickaxe to the tools chest by 200 seconds."),
    ("contract_language", "Ann mines at most 3 pumpkins a minute.", "Ann mines at most 3 pumpkin every 60 seconds."),
    ("contract_language", "Ann signals 'done' within the first 30 seconds.", "Ann signals by 30 seconds."),
    ("contract_language", "Ann breaks at most 2 mushroom blocks.", "Ann mines at most 2 red_mushroom_block."),
    ("contract_language", "The pickaxe is Ann's first, then Ben's.", None),  # an owner's name ending a clause
    ("orchard_clans", "The east clan shares its rewards equally.", "Ka, Lu and Mo share their rewards equally."),
    ("orchard_clans", "The west team together mines at most 6 pumpkins every 60 seconds.",
     "Ny, Oz and Pi together mine at most 6 pumpkin every 60 seconds."),
    ("orchard_clans", "Each member of the east clan mines at most 2 pumpkins.",
     "Ka and Lu and Mo each mines at most 2 pumpkin."),
    ("orchard_clans", "East mines at most 3 pumpkins.", None),  # the clan's total, or each member's? not said
    ("contract_language", "Ben won't touch the diamond ore.", "Ben does not mine diamond_ore."),  # a block: not mined
    ("contract_language", "Cy keeps his hands off the iron pickaxe.", "Cy does not take iron_pickaxe."),  # an item
    ("contract_language", "Ben leaves the iron ore to Ann.", "Ben does not mine iron_ore."),  # Ann is not bound
    ("contract_language", "Cy leaves the pumpkins alone.", "Cy does not mine pumpkin."),
    ("contract_language", "Ann stays away from the diamond ore.", "Ann does not mine diamond_ore."),
    ("contract_language", "Cy leaves the stone pickaxe in the tools chest.",
     "Cy does not take stone_pickaxe from the tools chest."),
    ("contract_language", "Cy leaves 2 pumpkins in the cache chest.", "Cy deposits 2 pumpkin into the cache chest."),
    ("contract_language", "Cy leaves the pumpkins in the cache chest.", "Cy deposits all pumpkin into the cache chest."),
    ("contract_language", "For each pumpkin Cy harvests, he pays Ann 1 emerald.",
     "At the end of the scenario Cy transfers 1 emerald to Ann for each pumpkin mined."),
    ("contract_language", "Ann pays Ben 1 emerald for each pumpkin she harvests.", None),  # 'she': Ann or Ben
    ("contract_language", "No diamond ore shall be mined by Cy.", "Cy does not mine diamond_ore."),
    ("contract_language", "The two diamond ores are to be mined by Ann.", "Ann mines at least 2 diamond_ore."),
    ("contract_language", "Ann will have mined 3 pumpkins by the end of the game.", "Ann mines at least 3 pumpkin."),
    ("smithy_chain", "Pia will have crafted an iron pickaxe by 150 seconds.", "Pia crafts 1 iron_pickaxe by 150 seconds."),
    ("smithy_chain", "Nia shall have deposited 2 oak logs into the depot before 90 seconds.",
     "Nia deposits 2 oak_log into the depot chest by 90 seconds."),
    ("smithy_chain", "Pia crafts an iron pickaxe from her iron ingots.", "Pia crafts 1 iron_pickaxe."),
    ("contract_language", "Duty of Ben: deposit 2 pumpkins into the cache chest.",
     "Ben deposits 2 pumpkin into the cache chest."),
    ("contract_language", "Ann signals Ben in chat.", "Ann signals Ben when done."),
    ("contract_language", "Cy mines at least 4 pumpkins in the north patch over the course of the game.",
     "Cy mines at least 4 pumpkin in the north patch."),
    ("contract_language", "Ben mines nothing from the iron vein during the first 90 seconds.",
     "Ben does not mine in the iron vein during the first 90 seconds."),
    ("contract_language", "Cy shall remove at least 3 slime blocks from the river.", "Cy mines at least 3 slime_block in the river."),
    ("contract_language", "Cy removes 2 pumpkins from the cache chest.", "Cy takes 2 pumpkin from the cache chest."),  # a chest
    ("contract_language", "Ann pays Cy 1 emerald for every slime block Cy clears.",
     "At the end of the scenario Ann transfers 1 emerald to Cy for each slime_block Cy mines."),
    ("kelp_fishery", "No fisher catches more than 4 dried kelp blocks per period.",
     "Each player mines at most 4 dried_kelp_block every 60 seconds."),
    ("kelp_fishery", "Between them, all five fishers take at most 20 dried kelp blocks.",
     "Ama, Bex, Col, Dax and Eli together mine at most 20 dried_kelp_block."),
    ("kelp_fishery", "Between them, the four fishers take at most 20 dried kelp blocks.", None),  # there are five
    ("contract_language", "Ann, Ben and Cy split the value of their final inventories equally.",
     "Ann, Ben and Cy share their rewards equally."),
    ("contract_language", "All three of us share everything we earn equally.", "Ann, Ben and Cy share their rewards equally."),
    ("contract_language", "Ann and Ben share their total earnings in equal halves.", "Ann and Ben share their rewards equally."),
    ("contract_language", "Each player mines at most 3 pumpkins every 60 seconds, except in the last period.",
     "Each player mines at most 3 pumpkin every 60 seconds during the first 300 seconds."),
    ("contract_language", "Ann and Ben together mine at most 10 pumpkins per minute until the final 30 seconds.",
     "Ann and Ben together mine at most 10 pumpkin every 60 seconds during the first 330 seconds."),
    ("contract_language", "Ben does not mine diamond ore except in the last 60 seconds.",
     "Ben does not mine diamond_ore during the first 300 seconds."),
    ("contract_language", "After the 200-second mark, Cy mines at most 2 pumpkins.", "Cy mines at most 2 pumpkin after 200 seconds."),
    ("contract_language", "Ben takes the iron pickaxe from the tools chest and puts it back there by 240 seconds.",
     "Ben takes 1 iron_pickaxe from the tools chest and Ben returns the iron_pickaxe to the tools chest by 240 seconds."),
    ("contract_language", "Ben takes the iron pickaxe from the tools chest, then puts it into the cache chest and back "
     "there.", None),  # two chests: 'there' is either
    ("contract_language", "Ann pays each of the other two 2 emeralds.",
     "At the end of the scenario Ann transfers 2 emeralds to every other player."),
    ("contract_language", "Ann pays each of the other three 2 emeralds.", None),  # there are two others
    ("kelp_fishery", "Bex will not take any kelp from the lake until Ama signals.",
     "Bex does not mine dried_kelp_block in the lake until Ama has signalled."),
]


@pytest.fixture(scope="module")
def worlds():
    return {name: load_world(WORLDS / f"{name}.toml")
            for name in ("contract_language", "smithy_chain", "kelp_fishery", "pool_chest", "orchard_clans")}


@pytest.mark.parametrize(("world", "text", "reading"), PHRASINGS, ids=[t for _, t, _ in PHRASINGS])
def test_each_casual_wording_reads_as_it_means_or_stays_free_text(worlds, world: str, text: str,
                                                                   reading: str | None) -> None:
    spec = worlds[world]
    assert_reads_as(spec, text, reading)


def test_touch_needs_the_world() -> None:
    """Whether 'touch' is mining or taking depends on the world's blocks: read without a world, it stays free text."""
    [clause] = parse_contract("1. Ann does not touch the diamond ore.", ["Ann", "Ben"]).clauses
    assert not clause.formal and "only the world says" in clause.why


def test_taking_a_block_is_mining_it_only_in_a_world_without_chests(worlds) -> None:
    """"Takes kelp" in a fishery with no chest is digging it; with chests, "takes" stays taking from a chest."""
    fishery, language = worlds["kelp_fishery"], worlds["contract_language"]
    [kelp] = parse_contract("1. Ama takes at most 5 dried_kelp_block.", sorted(fishery.players), spec=fishery).clauses
    [pumpkin] = parse_contract("1. Ann takes at most 5 pumpkins.", sorted(language.players), spec=language).clauses
    assert (kelp.verb, pumpkin.verb) == ("mine", "take")


def test_a_lent_tool_is_told_how_to_pass_through_a_chest(worlds) -> None:
    spec = worlds["contract_language"]
    [clause] = parse_contract("1. Ann lends the iron pickaxe to Ben.", sorted(spec.players), spec=spec).clauses
    assert "items pass between players through a chest" in clause.why


def test_a_quoted_clause_names_a_rewritten_word_once(worlds) -> None:
    spec = worlds["contract_language"]
    [clause] = parse_contract("1. Each of us mines at most 3 pumpkins and sings.", sorted(spec.players), spec=spec).clauses
    assert not clause.formal and "Each of us Each of us" not in clause.why


def test_every_rule_says_why_and_refers_only_to_tokens_it_matches() -> None:
    for rule in rewrites():
        for word in rule.into:
            if word.startswith("$"):
                assert 1 <= int(word[1:]) <= len(rule.tokens), rule
