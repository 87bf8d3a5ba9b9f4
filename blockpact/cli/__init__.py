"""The `blockpact` command: one module per verb in this package, each parsing its flags, calling the
package below (the Runner in experiments/play/runner.py for runs) and printing. Nothing here plays anything."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

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
    "blockpact.cli.suite",
]


class CommandParser(argparse.ArgumentParser):
    """argparse without abbreviated options (`run --seed 2` was taken as `--seeds 2`, and ran seeds 0 and 1), and a
    command's unknown option reported with that command's usage rather than the top-level one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.is_command = True  # a subcommand's parser (the top level's says False): everything after it is its own

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and self.is_command:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of `verb`'s when a command module has that name.

    `main` passes the command line's first word: importing every command module (the agents, the
    server, plotting) costs ~0.6 s of CPU, which a sweep's driver paid before starting its workers.
    """
    import importlib

    parser = CommandParser(prog="blockpact", description="LLM-driven agents that organize, negotiate and keep "
                           "agreements in Minecraft-style worlds.")
    parser.is_command = False
    parser.add_argument("--version", action="version", version=f"blockpact {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in [m for m in COMMAND_GROUPS if m.rpartition(".")[2] == verb] or COMMAND_GROUPS:
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    from blockpact.cli.llm import agent_settings_from

    try:
        with agent_settings_from(args):
            return handler(args)
    except UserError as exc:
        print(f"blockpact: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `blockpact contract check ... | head`: the reader left; no traceback, but the command
        # did not finish (a run cut off this way is not a success): 141, as a process a SIGPIPE ended
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt as exc:
        from blockpact.experiments import Terminated

        if isinstance(exc, Terminated):  # SIGTERM where a command turns it into one (stopping.SigtermAsInterrupt)
            print("blockpact: terminated (SIGTERM)", file=sys.stderr)
            return 143
        print("blockpact: interrupted", file=sys.stderr)
        return 130

