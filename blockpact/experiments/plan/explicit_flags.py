"""Which options a user actually typed, so a scenario file's values give way only to those (an option
left at its default must not override the file, even when the file says something else)."""

from __future__ import annotations

import argparse

ATTRIBUTE = "explicit_flags"


def track_explicit(parser: argparse.ArgumentParser) -> None:
    """After this, `explicit(args)` names the dests of the options given on the command line."""
    for action in parser._actions:
        if not action.option_strings or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        action.__class__ = _recording(type(action))


def explicit(args: argparse.Namespace) -> set[str]:
    return set(getattr(args, ATTRIBUTE, ()))


_CLASSES: dict[type, type] = {}


def _recording(cls: type) -> type:
    if cls not in _CLASSES:
        def __call__(self, parser, namespace, values, option_string=None):  # noqa: N807
            cls.__call__(self, parser, namespace, values, option_string)
            setattr(namespace, ATTRIBUTE, explicit(namespace) | {self.dest})

        _CLASSES[cls] = type(f"Recording{cls.__name__}", (cls,), {"__call__": __call__})
    return _CLASSES[cls]
