"""The `blockpact` command. Each command group lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from blockpact import __version__
from blockpact.errors import UserError

# (module path, attribute): each `register(subparsers)` adds one command group.
COMMAND_GROUPS: list[str] = [
    "blockpact.worlds.cli",
    "blockpact.experiments.cli",
    "blockpact.experiments.contract_cli",
    "blockpact.agents.llm.cli",
    "blockpact.agents.pool_cli",
    "blockpact.bridge.server_cli",
    "blockpact.bridge.cli",
    "blockpact.experiments.org.cli",
    "blockpact.experiments.compare_cli",
    "blockpact.experiments.sweep_cli",
]


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="blockpact", description=__doc__)
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


if __name__ == "__main__":
    sys.exit(main())
