"""Crowd worlds: N players on one floor, each with its own dirt block and all sharing a pumpkin patch.

Written as world-file text (validated like any world) so a crowd of any size can be generated, run and
compared; the layout depends only on N, so the same N always gives the same file."""

from __future__ import annotations

import math

MIN_PUMPKINS = 4


def player_name(index: int, crowd: int) -> str:
    """P1..PN, zero-padded so names sort in play order."""
    return f"P{index + 1:0{len(str(crowd))}d}"


def crowd_world_text(name: str, crowd: int, seconds: float = 120.0) -> str:
    """A world file for `crowd` players: a square of 3x3 plots (spawn, own dirt block east of it), a pumpkin row south."""
    if crowd < 1:
        raise ValueError(f"crowd {crowd} (expected at least 1 player)")
    if seconds <= 0:
        raise ValueError(f"seconds {seconds:g} (expected more than 0)")
    side = math.ceil(math.sqrt(crowd))
    width = 3 * side + 1
    pumpkin_z = 3 * side + 1
    depth = pumpkin_z + 3
    pumpkins = min(max(crowd // 2, MIN_PUMPKINS), width - 2)
    rows = [["."] * width for _ in range(depth)]
    spawns = []
    for i in range(crowd):
        x, z = 1 + 3 * (i % side), 1 + 3 * (i // side)
        rows[z][x + 1] = "D"
        spawns.append((x, z))
    for x in range(1, 1 + pumpkins):
        rows[pumpkin_z][x] = "P"
    lines = [
        f"# Crowd world for {crowd} players, written by `blockpact world new {name} --crowd {crowd}`.",
        "[world]",
        f'name = "{name}"',
        f'title = "Crowd of {crowd}"',
        'description = """',
        f"{crowd} players stand on one stone floor, each next to its own dirt block (one block east of its spawn). "
        f"A shared row of {pumpkins} pumpkins lies at z {pumpkin_z}. Nothing grows back. Each player values dirt 1 "
        'and pumpkin 2 for what is in its inventory at the end."""',
        "",
        "[map]",
        f"origin = [0, 63, 0]",
        f"size = [{width}, 4, {depth}]",
        "",
        "[map.legend]",
        '"D" = "dirt"',
        '"P" = "pumpkin"',
        "",
        "[[map.layers]]",
        "y = 63",
        'fill = "stone"',
        "",
        "[[map.layers]]",
        "y = 64",
        "rows = [",
        *(f'  "{"".join(row)}",' for row in rows),
        "]",
        "",
        "[regions.patch]",
        f"from = [1, 64, {pumpkin_z}]",
        f"to = [{pumpkins}, 64, {pumpkin_z}]",
        "",
    ]
    for i, (x, z) in enumerate(spawns):
        lines += [f"[players.{player_name(i, crowd)}]", f"spawn = [{x}, 64, {z}]", "values = { dirt = 1, pumpkin = 2 }", ""]
    lines += ["[episode]", f"seconds = {seconds:g}", "length_known = true", ""]
    return "\n".join(lines)
