"""Each kind of mistake in a world file is reported at its line and key path, saying what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.worlds.world_files import builtin_names, load_world, validate_world
from blockpact.worlds.spec.value_reader import Problem, WorldSpecError

VALID = '''\
[world]
name = "tiny"
description = "A tiny test world: one iron vein, one chest, one player."

[map]
origin = [0, 63, 0]
size = [10, 4, 10]

[map.legend]
"#" = "stone"
"I" = "iron_ore"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]
y = 64
rows = [
  "..........",
  ".II.......",
]

[regions.vein]
from = [1, 64, 1]
to = [2, 64, 1]

[[blocks]]
block = "gold_ore"
positions = [[6, 64, 2]]

[[chests]]
name = "box"
position = [8, 64, 8]
items = { stone_pickaxe = 1 }

[players.Ann]
spawn = [2, 64, 5]
inventory = { bread = 2 }
values = { raw_iron = 2 }

[drops.iron_ore]
item = "raw_iron"
counts = [0, 1]
weights = [0.5, 0.5]

[[dynamics]]
rule = "regrow"
block = "iron_ore"
region = "vein"
probability = 0.1
when = "iron_ore in vein <= 1"

[[dynamics]]
rule = "spawn"
block = "iron_ore"
region = "vein"
probability = 0.01
on = ["air"]

[episode]
seconds = 60
'''


def edit(old: str, new: str, text: str = VALID) -> str:
    assert text.count(old) == 1, f"{old!r} must occur once in the world text"
    return text.replace(old, new)


def problems_in(tmp_path: Path, text: str) -> list[Problem]:
    path = tmp_path / "world.toml"
    path.write_text(text, encoding="utf-8")
    return validate_world(path)


def line_of(text: str, marker: str) -> int:
    """1-based line of the only line containing `marker`."""
    found = [i + 1 for i, line in enumerate(text.splitlines()) if marker in line]
    assert len(found) == 1, f"{marker!r} is on lines {found}"
    return found[0]


def expect(tmp_path: Path, text: str, path: str, marker: str, *phrases: str) -> Problem:
    """The one problem at `path` sits on the line with `marker` and says `phrases` and what was expected."""
    problems = problems_in(tmp_path, text)
    at_path = [p for p in problems if p.path == path]
    assert len(at_path) == 1, f"wanted one problem at {path}, got: {[str(p) for p in problems]}"
    problem = at_path[0]
    assert problem.line == line_of(text, marker), str(problem)
    assert problem.file == str(tmp_path / "world.toml")
    assert "expected" in problem.message.lower(), str(problem)
    for phrase in phrases:
        assert phrase in problem.message, str(problem)
    assert str(problem).startswith(f"{tmp_path / 'world.toml'}:{problem.line}: {path}: ")
    return problem


def test_the_minimal_world_is_valid(tmp_path: Path) -> None:
    assert problems_in(tmp_path, VALID) == []


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_worlds_validate_clean(name: str) -> None:
    assert validate_world(name) == []
    assert load_world(name).players


def test_toml_syntax_error_gives_its_line(tmp_path: Path) -> None:
    text = edit("seconds = 60", "seconds = 60 60")
    problems = problems_in(tmp_path, text)
    assert len(problems) == 1
    assert problems[0].line == line_of(text, "seconds = 60 60")
    assert problems[0].path == "(toml)"
    assert "not valid TOML" in problems[0].message
    assert "expected" in problems[0].message.lower()


def test_unknown_top_level_key(tmp_path: Path) -> None:
    text = VALID + "\n[weather]\nrain = true\n"
    problem = expect(tmp_path, text, "weather", "[weather]", "unknown key 'weather'")
    assert "dynamics" in problem.message and "players" in problem.message
    assert "did you mean" not in problem.message  # nothing close to it


def test_a_misspelt_required_key_is_unknown_and_its_key_missing(tmp_path: Path) -> None:
    """Not "probability: got None": TOML has no null, so the value is missing (a typo)."""
    text = edit("probability = 0.1", "probabilty = 0.1")
    expect(tmp_path, text, "dynamics[0].probabilty", "probabilty = 0.1",
           "unknown key 'probabilty' (did you mean 'probability'? expected one of:")
    (problem,) = [p for p in problems_in(tmp_path, text) if p.path == "dynamics[0].probability"]
    assert problem.message.startswith("missing (expected a probability"), str(problem)


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ("values = { raw_iron = 2 }", "values = { raw_iron = 2 }\nspeed = 3", "players.Ann.speed", "speed = 3"),
        ("probability = 0.1", "probability = 0.1\nchance = 0.2", "dynamics[0].chance", "chance = 0.2"),
        ("y = 63", "y = 63\nheight = 2", "map.layers[0].height", "height = 2"),
        ("seconds = 60", "seconds = 60\nminutes = 1", "episode.minutes", "minutes = 1"),
    ],
)
def test_unknown_nested_key(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    key = path.rsplit(".", 1)[1]
    expect(tmp_path, edit(old, new), path, marker, f"unknown key {key!r}", "expected one of")


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ('"I" = "iron_ore"', '"I" = "iron_oar"', "map.legend.I", '"iron_oar"'),
        ('block = "gold_ore"', 'block = "gold_oar"', "blocks[0].block", '"gold_oar"'),
        ('block = "iron_ore"\nregion = "vein"\nprobability = 0.1', 'block = "iron_oar"\nregion = "vein"\nprobability = 0.1', "dynamics[0].block", '"iron_oar"'),
        ('on = ["air"]', 'on = ["air", "watter"]', "dynamics[1].on[1]", '"watter"'),
        ('when = "iron_ore in vein <= 1"', 'when = "iron_oar in vein <= 1"', "dynamics[0].when", "iron_oar in vein"),
    ],
)
def test_unknown_block_name(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "unknown block", "expected a block name of Minecraft")


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ("items = { stone_pickaxe = 1 }", "items = { stone_pickax = 1 }", "chests[0].items.stone_pickax", "stone_pickax ="),
        ("values = { raw_iron = 2 }", "values = { raw_irn = 2 }", "players.Ann.values.raw_irn", "raw_irn"),
        ("inventory = { bread = 2 }", "inventory = { bred = 2 }", "players.Ann.inventory.bred", "bred"),
        ('item = "raw_iron"', 'item = "raw_irn"', "drops.iron_ore.item", '"raw_irn"'),
    ],
)
def test_unknown_item_name(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "unknown item", "expected an item name of Minecraft")


def test_two_block_lists_on_one_cell_overlap(tmp_path: Path) -> None:
    text = VALID + '\n[[blocks]]\nblock = "diamond_ore"\npositions = [[5, 64, 5], [6, 64, 2]]\n'
    expect(tmp_path, text, "blocks[1].positions[1]", "[5, 64, 5], [6, 64, 2]", "overlapping placement", "gold_ore from blocks[0].positions[0]")


def test_a_layer_row_over_a_fill_overlaps(tmp_path: Path) -> None:
    text = VALID + '\n[[map.layers]]\ny = 63\nrows = [\n  "..#",\n]\n'
    expect(tmp_path, text, "map.layers[2].rows[0]", '"..#"', "overlapping placement", "[2, 63, 0]", "stone from map.layers[0].fill")


def test_a_chest_on_a_placed_block_overlaps(tmp_path: Path) -> None:
    text = edit("position = [8, 64, 8]", "position = [6, 64, 2]")
    expect(tmp_path, text, "chests[0].position", "position = [6, 64, 2]", "overlapping placement", "gold_ore")


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ("positions = [[6, 64, 2]]", "positions = [[6, 64, 2], [10, 64, 2]]", "blocks[0].positions[1]", "[10, 64, 2]"),
        ("positions = [[6, 64, 2]]", "positions = [\n  [6, 64, 2],\n  [3, 70, 3],\n]", "blocks[0].positions[1]", "[3, 70, 3]"),
        ("position = [8, 64, 8]", "position = [8, 64, -1]", "chests[0].position", "[8, 64, -1]"),
        ("spawn = [2, 64, 5]", "spawn = [2, 64, 12]", "players.Ann.spawn", "spawn = [2, 64, 12]"),
    ],
)
def test_placement_outside_the_map(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "outside the map", "expected within origin [0, 63, 0] and size [10, 4, 10]")


@pytest.mark.parametrize(
    ("corners", "key"),
    [
        ("from = [1, 64, 1]\nto = [2, 64, 10]", "to"),
        ("from = [1, 64, -1]\nto = [2, 64, 1]", "from"),
        ("from = [1, 64, -1]\nto = [2, 64, 10]", "from"),  # both out: the first corner's line
        ("from = [2, 64, 10]\nto = [1, 64, 1]", "from"),  # corners given high first: the key the user wrote
    ],
)
def test_region_outside_the_map_is_said_at_the_corner_that_is_out(tmp_path: Path, corners: str, key: str) -> None:
    """At the line of the `from` or `to` that lies outside, not at the `[regions.vein]` header."""
    text = edit("from = [1, 64, 1]\nto = [2, 64, 1]", corners)
    marker = next(line for line in corners.splitlines() if line.startswith(key))
    expect(tmp_path, text, f"regions.vein.{key}", marker, "not inside the map")


def test_player_without_spawn(tmp_path: Path) -> None:
    text = edit("spawn = [2, 64, 5]\n", "")
    expect(tmp_path, text, "players.Ann", "[players.Ann]", "no spawn", "spawn = [x, y, z]")


@pytest.mark.parametrize("spawn", ["[2, 63, 5]", "[6, 64, 2]", "[5, 66, 5]"])
def test_spawn_where_a_player_cannot_stand(tmp_path: Path, spawn: str) -> None:
    """Inside the stone floor, inside a block, and in mid-air."""
    text = edit("spawn = [2, 64, 5]", f"spawn = {spawn}")
    expect(tmp_path, text, "players.Ann.spawn", f"spawn = {spawn}", "cannot stand", "two free cells above solid ground")


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ("probability = 0.1", "probability = 1.5", "dynamics[0].probability", "probability = 1.5"),
        ("probability = 0.01", "probability = -0.01", "dynamics[1].probability", "probability = -0.01"),
        ("weights = [0.5, 0.5]", "weights = [1.5, -0.5]", "drops.iron_ore.weights[0]", "weights = [1.5, -0.5]"),
        ("weights = [0.5, 0.5]", "weights = [\n  0.5,\n  1.2,\n]", "drops.iron_ore.weights[1]", "1.2,"),
    ],
)
def test_probability_outside_zero_to_one(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "out of range", "[0, 1]")


def test_drop_weights_must_sum_to_one(tmp_path: Path) -> None:
    text = edit("weights = [0.5, 0.5]", "weights = [0.5, 0.4]")
    expect(tmp_path, text, "drops.iron_ore.weights", "weights = [0.5, 0.4]", "sum to 0.9", "expected 1")


def test_chest_walled_in_by_stone_is_unreachable(tmp_path: Path) -> None:
    """Stone two blocks high fills every cell within 4 of the chest, so no one can stand near it."""
    ground = ["..........", ".II.......", "..........", ".........."] + ["....######"] * 4
    y64 = ground + ["....####.#", "....######"]  # the chest at (8, 64, 8) keeps its cell
    y65 = ["..........", ".........."] * 2 + ["....######"] * 6
    text = edit('  "..........",\n  ".II.......",\n', _rows(y64)) + f"\n[[map.layers]]\ny = 65\nrows = [\n{_rows(y65)}]\n"
    expect(tmp_path, text, "chests[0].position", "position = [8, 64, 8]", "cannot be reached by any player", "standable cell within 4.5 blocks")


def _rows(rows: list[str]) -> str:
    return "".join(f'  "{row}",\n' for row in rows)


@pytest.mark.parametrize(
    ("old", "new", "path", "marker"),
    [
        ('region = "vein"\nprobability = 0.1', 'region = "veins"\nprobability = 0.1', "dynamics[0].region", '"veins"'),
        ('when = "iron_ore in vein <= 1"', 'when = "iron_ore in river <= 1"', "dynamics[0].when", "in river"),
        ('block = "gold_ore"\npositions = [[6, 64, 2]]', 'block = "gold_ore"\nregion = "nowhere"', "blocks[0].region", '"nowhere"'),
    ],
)
def test_unknown_region_reference(tmp_path: Path, old: str, new: str, path: str, marker: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "unknown region", "expected one of: vein")


@pytest.mark.parametrize(
    "condition",
    ["iron_ore inside vein <= 1", "iron_ore in vein =< 1", "iron_ore in vein <= many", "in vein <= 1"],
)
def test_malformed_condition(tmp_path: Path, condition: str) -> None:
    text = edit('when = "iron_ore in vein <= 1"', f'when = ["iron_ore in vein <= 5", "{condition}"]')
    expect(tmp_path, text, "dynamics[0].when[1]", condition, "cannot read condition", "BLOCK in REGION OP COUNT")


def test_row_longer_than_the_map(tmp_path: Path) -> None:
    text = edit('  ".II.......",', '  ".II........",')
    expect(tmp_path, text, "map.layers[1].rows[1]", '".II........"', "row is 11 characters", "at most 10")


def test_more_rows_than_the_map_is_deep(tmp_path: Path) -> None:
    text = edit('  ".II.......",\n', '  ".II.......",\n' + '  "..........",\n' * 9)
    expect(tmp_path, text, "map.layers[1].rows", "rows = [", "11 rows", "at most 10")


def test_legend_character_undefined(tmp_path: Path) -> None:
    text = edit('  ".II.......",', '  ".IIX......",')
    expect(tmp_path, text, "map.layers[1].rows[1]", ".IIX", "'X' at column 3 is not in map.legend", "expected one of: #, I")


def test_every_problem_in_a_file_is_reported(tmp_path: Path) -> None:
    mistakes = {  # key path -> (valid text, broken text); the broken text marks the line
        "map.legend.I": ('"I" = "iron_ore"', '"I" = "iron_oar"'),
        "chests[0].items.stone_pickax": ("items = { stone_pickaxe = 1 }", "items = { stone_pickax = 1 }"),
        "dynamics[0].probability": ("probability = 0.1", "probability = 2"),
        "drops.iron_ore.weights": ("weights = [0.5, 0.5]", "weights = [0.5, 0.25]"),
        "players.Ann.spawn": ("spawn = [2, 64, 5]", "spawn = [2, 64, 50]"),
        "players.Ann.values.raw_irn": ("values = { raw_iron = 2 }", "values = { raw_irn = 2 }"),  # said beside a bad spawn
        "players.Ann.inventory.bred": ("inventory = { bread = 2 }", "inventory = { bred = 2 }"),
        "episode.minutes": ("seconds = 60", "seconds = 60\nminutes = 1"),
    }
    text = VALID
    for old, new in mistakes.values():
        text = edit(old, new, text)
    problems = problems_in(tmp_path, text)
    assert sorted(p.path for p in problems) == sorted(mistakes)
    for problem in problems:
        assert problem.line == line_of(text, mistakes[problem.path][1].splitlines()[-1]), str(problem)
    with pytest.raises(WorldSpecError) as raised:
        load_world(tmp_path / "world.toml")
    assert raised.value.problems == problems


@pytest.mark.parametrize(
    ("old", "new", "path", "marker", "phrase"),
    [
        ('block = "iron_ore"\nregion = "vein"\nprobability = 0.1', 'block = "pumpkin"\nregion = "vein"\nprobability = 0.1',
         "dynamics[0].block", 'block = "pumpkin"', "so this regrow rule can never fire"),
        ('when = "iron_ore in vein <= 1"', 'when = "slime_block in vein <= 1"',
         "dynamics[0].when", "slime_block in vein", "never changes (its count is always 0"),
    ],
)
def test_a_rule_on_a_block_that_can_never_exist_is_an_error(tmp_path: Path, old: str, new: str, path: str,
                                                            marker: str, phrase: str) -> None:
    expect(tmp_path, edit(old, new), path, marker, "never occurs in this world and is never placed, dropped or crafted", phrase)


def test_a_rule_on_a_block_players_can_place_or_craft_is_fine(tmp_path: Path) -> None:
    placeable = edit("items = { stone_pickaxe = 1 }", "items = { stone_pickaxe = 1, pumpkin = 2 }",
                     edit('block = "iron_ore"\nregion = "vein"\nprobability = 0.1', 'block = "pumpkin"\nregion = "vein"\nprobability = 0.1'))
    assert problems_in(tmp_path, placeable) == []
    craftable = edit("inventory = { bread = 2 }", "inventory = { oak_planks = 4 }",
                     edit('when = "iron_ore in vein <= 1"', 'when = "crafting_table in vein <= 1"'))
    assert problems_in(tmp_path, craftable) == []


def test_a_missing_map_is_one_line_not_a_cascade(tmp_path: Path) -> None:
    start, end = VALID.index("[map]"), VALID.index("[regions.vein]")
    problems = problems_in(tmp_path, VALID[:start] + VALID[end:])
    assert [p.path for p in problems] == ["map"], [str(p) for p in problems]


def test_a_region_outside_the_map_is_one_line_for_all_it_places(tmp_path: Path) -> None:
    text = edit("to = [2, 64, 1]", "to = [12, 64, 1]") + '\n[[blocks]]\nblock = "gold_ore"\nregion = "vein"\n'
    text = text.replace('"..........",\n  ".II.......",', '"..........",')
    assert [p.path for p in problems_in(tmp_path, text)] == ["regions.vein.to"]


def test_a_broken_region_is_not_reported_again_where_it_is_used(tmp_path: Path) -> None:
    problems = problems_in(tmp_path, edit("to = [2, 64, 1]", "to = [2, 64]"))
    assert [p.path for p in problems] == ["regions.vein.to"], [str(p) for p in problems]


@pytest.mark.parametrize(("count", "phrase"), [("1.5", "got 1.5, which is not a whole number"), ("-1", "got -1")])
def test_counts_must_be_whole_numbers_and_say_so(tmp_path: Path, count: str, phrase: str) -> None:
    text = edit("inventory = { bread = 2 }", f"inventory = {{ bread = {count} }}")
    expect(tmp_path, text, "players.Ann.inventory.bread", "inventory = {", phrase, "expected a whole number of items >= 0")
