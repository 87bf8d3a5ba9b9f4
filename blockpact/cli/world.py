"""`blockpact world ...`: list, show, validate, render and start new world files."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import blockpact.worlds
from blockpact.errors import UserError
from blockpact.worlds.spec.schema import GrowRule
from blockpact.worlds.world_files import builtin_names, load_world, resolve_path, validate_world

TEMPLATE = Path(blockpact.worlds.__file__).parent / "templates" / "world.toml"


def register(sub: argparse._SubParsersAction) -> None:
    world = sub.add_parser("world", help="list, show, validate, render and create world files")
    cmds = world.add_subparsers(dest="world_command", metavar="WORLD_COMMAND", required=True)

    p = cmds.add_parser("list", help="the built-in worlds")
    p.set_defaults(handler=cmd_list)

    p = cmds.add_parser("show", help="a world's description and a summary")
    p.add_argument("world", help="built-in name or path to a .toml file")
    p.add_argument("--mc-version", help="Minecraft version for block and item data")
    p.set_defaults(handler=cmd_show)

    p = cmds.add_parser("validate", help="check a world file; exit 1 and list every problem if it is invalid")
    p.add_argument("world", help="built-in name or path to a .toml file")
    p.add_argument("--mc-version", help="Minecraft version for block and item data")
    p.set_defaults(handler=cmd_validate)

    p = cmds.add_parser("render", help="a top-down PNG picture of a world")
    p.add_argument("world", help="built-in name or path to a .toml file")
    p.add_argument("--out", required=True, type=Path, help="PNG file to write")
    p.add_argument("--scale", type=int, default=24, help="pixels per block (default 24)")
    p.set_defaults(handler=cmd_render)

    from blockpact.cli.world_optimum import register as register_optimum

    register_optimum(cmds)

    p = cmds.add_parser("new", help="write a commented template world that validates")
    p.add_argument("name", help="world name; writes NAME.toml unless --out is given")
    p.add_argument("--out", type=Path, help="file to write")
    p.add_argument("--crowd", type=int, help="write a crowd world for this many players instead of the template")
    p.add_argument("--seconds", type=float, default=120.0, help="episode length of a --crowd world (default 120)")
    p.set_defaults(handler=cmd_new)


def cmd_list(args: argparse.Namespace) -> int:
    for name in builtin_names():
        spec = load_world(name)
        print(f"{name:14} {spec.title} ({len(spec.players)} players, {spec.episode_seconds:g} s)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    spec = load_world(args.world, args.mc_version)
    print(f"{spec.title} ({spec.name}) — {spec.source}")
    print(f"Minecraft {spec.mc_version}; box origin {list(spec.origin)} size {list(spec.size)}; "
          f"episode {spec.episode_seconds:g} s ({'known' if spec.length_known else 'not known'} to agents)")
    print()
    print(spec.description)
    print()
    counts: dict[str, int] = {}
    for block in spec.blocks.values():
        counts[block] = counts.get(block, 0) + 1
    print("Blocks:   " + ", ".join(f"{b} {n}" for b, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))))
    for name, player in sorted(spec.players.items()):
        values = ", ".join(f"{i} {v:g}" for i, v in sorted(player.values.items())) or "nothing"
        inv = ", ".join(f"{i} {n}" for i, n in sorted(player.inventory.items())) or "empty"
        print(f"Player:   {name} at {list(player.spawn)}; values {values}; inventory {inv}")
    for pos, chest in sorted(spec.chests.items()):
        items = ", ".join(f"{i} {n}" for i, n in sorted(chest.items.items())) or "empty"
        n = len(spec.players)
        owner = (f"; shared: counts 1/{n} for each of the {n} players at the end" if chest.owner == "shared"
                 else f"; counts for {chest.owner} at the end" if chest.owner else "")
        print(f"Chest:    {chest.name} at {list(pos)}: {items}{owner}")
    present = set(spec.blocks.values()) | {rule.block for rule in spec.rules}
    for block, drop in sorted((b, d) for b, d in spec.drops.items() if b in present):
        odds = ", ".join(f"{n} ({w:.3g})" for n, w in zip(drop.counts, drop.weights))
        print(f"Drop:     {block} -> {drop.item}: {odds}; {drop.expected:.3g} on average")
    for block, tools in sorted(spec.harvest.items()):
        print(f"Harvest:  {block} with {', '.join(sorted(tools)) or 'anything'}")
    for name, region in sorted(spec.regions.items()):
        print(f"Region:   {name} {list(region.lo)}..{list(region.hi)}")
    for rule in spec.rules:
        print(f"Rule:     {rule.kind} {rule.block} in {rule.region}{_rate(rule)}"
              + (" when " + " and ".join(map(str, rule.when)) if rule.when else ""))
    for group in spec.groups:
        print(f"Group:    {group.text} of what each earns, split equally")
    return 0


def _rate(rule: Any) -> str:
    """How fast a dynamics rule acts, as the world file says it."""
    if isinstance(rule, GrowRule):
        return f", x{rule.factor:g} every {rule.every:g} s" + (f" up to {rule.cap}" if rule.cap is not None else "")
    rate = f", p {rule.probability:g}/s" + (" per cell" if getattr(rule, "per", None) == "cell" else "")
    if rule.probability_from is not None:
        f = rule.probability_from
        rate += f" scaled by {f.block} in {f.region} (full at {f.full_at:g}, none at {f.zero_at:g})"
    if getattr(rule, "cap", None) is not None:
        rate += f" up to {rule.cap}"
    return rate


def cmd_validate(args: argparse.Namespace) -> int:
    path = resolve_path(args.world)
    problems = validate_world(path, args.mc_version)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{path}: {len(problems)} problem{'s' if len(problems) != 1 else ''}")
        return 1
    print(f"{path}: valid")
    from blockpact.worlds.rules.obtainable import world_warnings

    for warning in world_warnings(load_world(path, args.mc_version)):
        print(f"warning: {warning}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from blockpact.worlds.render import render_world

    spec = load_world(args.world)
    out = render_world(spec, args.out, scale=args.scale)
    print(f"wrote {out}")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    if not re.fullmatch(r"[A-Za-z0-9_-]+", args.name):
        raise UserError(f"world name {args.name!r} may use only letters, digits, _ and -")
    out: Path = args.out or Path(f"{args.name}.toml")
    if out.exists():
        raise UserError(f"{out} exists; choose another name or --out")
    if args.crowd is not None:
        from blockpact.worlds.crowd import crowd_world_text

        try:
            text = crowd_world_text(args.name, args.crowd, args.seconds)
        except ValueError as e:
            raise UserError(f"--crowd/--seconds: {e}") from None
    else:
        text = TEMPLATE.read_text(encoding="utf-8")
        text = text.replace("{name}", args.name).replace("{title}", args.name.replace("_", " ").title()).replace("{path}", str(out))
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}; check it with `blockpact world validate {out}`")
    return 0
