"""`blockpact contract check TEXT|@FILE --world W`: how each clause of a contract is read, before a run
plays under it: in a formal form (the formal judge settles it, the scripted players can follow it), or
as free text that neither reads, and why. Exit 1 when no clause is formal."""

from __future__ import annotations

import argparse

from blockpact.errors import UserError
from blockpact.experiments import contract_text
from blockpact.judge.contract_reading import read_contract


def register(sub: argparse._SubParsersAction) -> None:
    contract = sub.add_parser("contract", help="contract tools", description="contract tools")
    contract_sub = contract.add_subparsers(dest="contract_command", metavar="COMMAND", required=True)
    check = contract_sub.add_parser(
        "check", help="show how each clause of a contract is read (formal form, or free text and why)",
        description="Parse a contract for a world and show, clause by clause, its formal form or why it stays "
                    "free text (which no formal check and no scripted player reads). Exit 1 when nothing is formal.")
    check.add_argument("text", metavar="TEXT|@FILE", help="the contract text, or @FILE for a file holding it")
    check.add_argument("--world", default="double_vein", help="built-in world name or path (default: double_vein)")
    check.add_argument("--mc-version", metavar="V", help="Minecraft version (default from defaults.toml)")
    check.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from blockpact.worlds.world_files import load_world

    spec = load_world(args.world, args.mc_version)
    text = contract_text(args.text, "contract check")
    if not text.strip():
        raise UserError("contract check: empty contract text")
    readings = read_contract(text, sorted(spec.players), spec)
    for reading in readings:
        print(reading.line())
    formal = sum(r.formal for r in readings)
    print(f"{formal} of {len(readings)} clause(s) formal (world {spec.name}, players {', '.join(sorted(spec.players))})")
    if not formal:
        print("nothing is formal: the formal judge would settle nothing and the scripted players would follow nothing")
        return 1
    return 0
