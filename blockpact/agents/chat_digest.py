"""A chat log as a prompt shows it: a line said again and again (a primitive's feedback in a polling loop: "No
pumpkin nearby" 28 times) is shown once, with how often and until when, so the lines a prompt has room for are
the episode's messages rather than the last seconds of one loop."""

from __future__ import annotations

import re
from collections.abc import Iterable

_TIMED = re.compile(r"^\[(?P<time>[0-9.]+) s\] (?P<said>.+)$")  # "[649.5 s] Blake (feedback): No pumpkin nearby"


def condensed_chat(lines: Iterable[str]) -> list[str]:
    """`lines` in order, each distinct line once, at its first time; a line repeated later ends with how many more
    times it came and the time of the last ("(12 more times, the last at 714.5 s)"). Untimed lines compare whole."""
    order: list[str] = []
    first: dict[str, str] = {}
    repeats: dict[str, int] = {}
    last_time: dict[str, str] = {}
    for line in lines:
        timed = _TIMED.match(line)
        key = timed.group("said") if timed else line
        if key in first:
            repeats[key] += 1
            if timed:
                last_time[key] = timed.group("time")
            continue
        order.append(key)
        first[key] = line
        repeats[key] = 0
    shown = []
    for key in order:
        line = first[key]
        if repeats[key]:
            more = "1 more time" if repeats[key] == 1 else f"{repeats[key]} more times"
            line += f" ({more}, the last at {last_time[key]} s)" if key in last_time else f" ({more})"
        shown.append(line)
    return shown
