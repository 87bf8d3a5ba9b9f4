"""`blockpact program run`: one agent program on the simulator (or on a live server), result printed."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from blockpact.bridge.protocols import ProgramResult
from blockpact.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:
    program = sub.add_parser("program", help="run agent programs (JavaScript) on the simulator or a server")
    cmds = program.add_subparsers(dest="program_command", metavar="PROGRAM_COMMAND", required=True)
    p = cmds.add_parser("run", help="run FILE.js as one player, in a fresh copy of the world (or on --server)")
    p.add_argument("file", type=Path, help="program source: async function name(bot) { ... }")
    p.add_argument("--world", help="built-in world name or .toml file (simulator)")
    p.add_argument("--player", required=True, help="which player of the world (or the bot's name on a server)")
    p.add_argument("--seed", type=int, default=0, help="simulator seed (default 0)")
    p.add_argument("--budget", type=float, help="seconds the program may run (simulated on the simulator, wall on a server)")
    p.add_argument("--compute-budget", type=float, metavar="SECONDS",
                   help="simulator: seconds the program may spend computing in one instant of simulated time (not waiting for primitives); default from defaults.toml")
    p.add_argument("--skills", type=Path, help="skill library directory: its skills are callable from the program")
    p.add_argument("--server", metavar="HOST:PORT", help="run on a Minecraft server instead of the simulator")
    p.add_argument("--mc-version", help="Minecraft version (default from defaults.toml)")
    p.add_argument("--auth", choices=("offline", "microsoft"), default="offline", help="server login (default offline)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(handler=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise UserError(f"no program file {args.file}")
    source = args.file.read_text()
    skills = _skill_sources(args.skills)
    for option in ("budget", "compute_budget"):
        value = getattr(args, option)
        if value is not None and not value > 0:
            raise UserError(f"--{option.replace('_', '-')} must be a positive number of seconds, got {value:g}")
    if args.server:
        if args.compute_budget is not None:
            raise UserError("--compute-budget is for the simulator; on a server --budget is wall-clock seconds")
        result = asyncio.run(_run_on_server(source, args, skills))
    else:
        if not args.world:
            raise UserError("give --world WORLD (simulator) or --server HOST:PORT")
        result = asyncio.run(_run_on_simulator(source, args, skills))
    if args.json:
        print(json.dumps({**result.to_json(), "inventory": result.observation.get("inventory", {})}))
    else:
        _print_result(result, "wall time" if args.server else "simulated")
    return 0 if result.success else 1


def _skill_sources(directory: Path | None) -> list[str]:
    if directory is None:
        return []
    from blockpact.skills.library import SkillLibrary

    if not directory.is_dir():
        raise UserError(f"no skill library directory {directory}")
    return [skill.code for skill in SkillLibrary(directory).all()]


async def _run_on_simulator(source: str, args: argparse.Namespace, skills: list[str]) -> ProgramResult:
    from blockpact.bridge.sim import SimWorld
    from blockpact.worlds.world_files import load_world

    spec = load_world(args.world, args.mc_version)
    if args.player not in spec.players:
        raise UserError(f"no player {args.player!r} in world {spec.name} (players: {', '.join(sorted(spec.players))})")
    world = SimWorld(spec, seed=args.seed, compute_budget=args.compute_budget)
    try:
        return await world.body(args.player).run(source, skills=skills, budget=args.budget)
    finally:
        await world.close()


async def _run_on_server(source: str, args: argparse.Namespace, skills: list[str]) -> ProgramResult:
    host, _, port = args.server.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"--server must be HOST:PORT, e.g. 127.0.0.1:25565 (got {args.server!r})")
    from blockpact.bridge.live.mineflayer_body import run_program_on_server

    return await run_program_on_server(source, host=host, port=int(port), player=args.player, version=args.mc_version,
                                       auth=args.auth, budget=args.budget, skills=skills)


def _print_result(result: ProgramResult, clock: str) -> None:
    """`clock` names the seconds: the simulator's are simulated (a long walk takes a fraction of a CPU second)."""
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    status = "[green]success[/green]" if result.success else "[red]failed[/red]"
    console.print(f"[bold]{escape(result.player)}[/bold]: {status} after {result.duration:.1f} s {clock}")
    if result.error:
        cause = f" [dim]({result.failure}{': ' + result.limit if result.limit else ''})[/dim]" if result.failure else ""
        console.print(f"[red]{escape(result.error)}[/red]{cause}")
    for line in result.chat:
        console.print(f"  [cyan]chat[/cyan] {escape(line)}")
    for line in result.logs:
        console.print(f"  [dim]log[/dim]  {escape(line)}")
    obs = result.observation
    inventory = ", ".join(f"{item} {n}" for item, n in obs.get("inventory", {}).items()) or "empty"
    console.print(f"position {obs.get('position')}, holding {obs.get('held') or 'nothing'}; inventory: {escape(inventory)}")
    for pos, items in obs.get("chests", {}).items():
        contents = ", ".join(f"{item} {n}" for item, n in items.items()) or "empty"
        console.print(f"chest at ({pos}): {escape(contents)}")
