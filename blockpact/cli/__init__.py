"""The `blockpact` command: one module per verb in this package, each parsing its flags, calling the
package below (the Runner in experiments/runner.py for runs) and printing. Nothing here plays anything."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from blockpact import __version__
from blockpact.errors import UserError

# Each module's `register(subparsers)` adds its verb (and the verb's subcommands).
COMMAND_GROUPS: list[str] = [
    "blockpact.cli.world",
    "blockpact.cli.run",
    "blockpact.cli.resume",
    "blockpact.cli.report",
    "blockpact.cli.contract",
    "blockpact.cli.llm",
    "blockpact.cli.broker",
    "blockpact.cli.server",
    "blockpact.cli.program",
    "blockpact.cli.org",
    "blockpact.cli.agent",
    "blockpact.cli.compare",
    "blockpact.cli.sweep",
]


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="blockpact", description="LLM-driven agents that organize, negotiate and keep "
                                     "agreements in Minecraft-style worlds.")
    parser.add_argument("--version", action="version", version=f"blockpact {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_GROUPS:
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except UserError as exc:
        print(f"blockpact: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("blockpact: interrupted", file=sys.stderr)
        return 130

