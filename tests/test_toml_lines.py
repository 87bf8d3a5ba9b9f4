"""The key-path locator finds the line a validation error should point at, in every TOML shape worlds use."""

from __future__ import annotations

import tomllib

import pytest

from blockpact.toml_lines import LineIndex

WORLD = '''\
# a comment line
title = "top-level key"

[world]
name = "demo"
description = """
A multi-line string. Lines in here look like TOML but are text:
[players.Fake]
spawn = [0, 0, 0]
"""

[map]
origin = [0, 63, 0]

[map.legend]
"#" = "stone"

[[map.layers]]
y = 63
fill = "stone"

[[map.layers]]  # the second layer
y = 64
rows = [
  "..#",   # a comment with ] and [ in it
  "#..",
  "...", "###",
]

[ players . "Gizmo" ]
spawn = [1, 64, 1]

[players]
Glitch.spawn = [2, 64, 2]
Glitch.values = { raw_iron = 3 }

[[blocks]]
block = "stone"
positions = [[4, 64, 10],
             [10, 64, 10],
  [5, 64, 5]]

[[dynamics]]
rule = "regrow"

[[dynamics]]
rule = "spawn"
on = ["air", 'wa]ter',
      "say \\" [", {a = [1, 2], b = 3},
]
probability = 0.5

[episode]
seconds = 60
'''


@pytest.fixture(scope="module")
def index() -> LineIndex:
    tomllib.loads(WORLD)  # the fixture is valid TOML, so the test is about real files
    return LineIndex(WORLD)


def line_with(text: str, nth: int = 1) -> int:
    """1-based line of the nth line containing `text` in WORLD."""
    found = [i + 1 for i, line in enumerate(WORLD.splitlines()) if text in line]
    return found[nth - 1]


@pytest.mark.parametrize(
    ("path", "marker"),
    [
        ("title", 'title = "top-level key"'),
        ("world", "[world]"),
        ("world.name", 'name = "demo"'),
        ("map.legend", "[map.legend]"),
        ("map.legend.#", '"#" = "stone"'),
        ("players.Gizmo", '[ players . "Gizmo" ]'),
        ("players.Gizmo.spawn", "spawn = [1, 64, 1]"),
        ("episode.seconds", "seconds = 60"),
    ],
)
def test_headers_and_keys(index: LineIndex, path: str, marker: str) -> None:
    assert index.line_of(path) == line_with(marker)


def test_arrays_of_tables_are_numbered_in_order(index: LineIndex) -> None:
    assert index.line_of("map.layers") == line_with("[[map.layers]]")
    assert index.line_of("map.layers[0]") == line_with("[[map.layers]]")
    assert index.line_of("map.layers[1]") == line_with("[[map.layers]]", 2)
    assert index.line_of("map.layers[0].fill") == line_with('fill = "stone"')
    assert index.line_of("map.layers[1].y") == line_with("y = 64")
    assert index.line_of("dynamics[1].rule") == line_with('rule = "spawn"')
    assert index.line_of("dynamics[1].probability") == line_with("probability = 0.5")


def test_dotted_keys_locate_their_tables_too(index: LineIndex) -> None:
    assert index.line_of("players.Glitch.spawn") == line_with("Glitch.spawn")
    assert index.line_of("players.Glitch") == line_with("Glitch.spawn")
    assert index.line_of("players.Glitch.values") == line_with("Glitch.values")


def test_multi_line_array_elements_get_their_own_lines(index: LineIndex) -> None:
    assert index.line_of("map.layers[1].rows") == line_with("rows = [")
    assert index.line_of("map.layers[1].rows[0]") == line_with('"..#"')
    assert index.line_of("map.layers[1].rows[1]") == line_with('"#.."')
    assert index.line_of("map.layers[1].rows[2]") == line_with('"...", "###"')
    assert index.line_of("map.layers[1].rows[3]") == line_with('"...", "###"')


def test_elements_on_the_opening_line_count(index: LineIndex) -> None:
    assert index.line_of("blocks[0].positions[0]") == line_with("positions = [[4, 64, 10]")
    assert index.line_of("blocks[0].positions[1]") == line_with("[10, 64, 10]")
    assert index.line_of("blocks[0].positions[2]") == line_with("[5, 64, 5]")


def test_brackets_and_commas_inside_strings_and_inline_tables_are_not_elements(index: LineIndex) -> None:
    assert index.line_of("dynamics[1].on[1]") == line_with("'wa]ter'")
    assert index.line_of("dynamics[1].on[2]") == line_with('"say')
    assert index.line_of("dynamics[1].on[3]") == line_with('"say')
    assert "dynamics[1].on[4]" not in index.lines


def test_multi_line_strings_are_skipped(index: LineIndex) -> None:
    assert index.line_of("world.description") == line_with('description = """')
    assert "players.Fake" not in index.lines
    assert index.line_of("map.origin") == line_with("origin = [0, 63, 0]")


def test_unknown_paths_fall_back_to_the_nearest_ancestor(index: LineIndex) -> None:
    assert index.line_of("players.Glitch.values.raw_iron") == line_with("Glitch.values")
    assert index.line_of("map.layers[1].rows[9]") == line_with("rows = [")
    assert index.line_of("dynamics[1].when[0]") == line_with("[[dynamics]]", 2)
    assert index.line_of("nowhere.at.all") is None
