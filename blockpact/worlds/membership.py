"""Group membership over time (AdaSociety): players join, leave or form reward-sharing groups during play.

A world declares its groups and their first members (`[[groups]]`); a program changes them with the
primitives joinGroup, leaveGroup and formGroup, each recorded as an event at its simulated time:
`group_join`, `group_leave` (data `{group, members}`: the members after the change) and `group_form`
(`{group, share, members}`: a new group standing from then to the episode's end, its former the only member).

Who shares what is read from the declaration and these events alone (`spells`): a group's standing time is
cut at each change of its members into spells, and what a player earns during a spell is shared with the
members of that spell, by the group's share (judge/groups.py). A change at time t counts for what is earned
after t; a spell with one member shares nothing. With no change, a group has one spell: its members over
its whole standing time, as before membership could change.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import GroupSpec

GROUP_EVENTS = ("group_join", "group_leave", "group_form")


class MembershipError(ValueError):
    """A call that cannot change membership (an unknown group, a player already in it, ...)."""


@dataclass(frozen=True)
class Spell:
    """A time (start, end] during which `group` had exactly `members`."""

    group: str
    start: float
    end: float
    members: tuple[str, ...]


class Membership:
    """The groups as they stand now, with their members: checks each change and gives its event's data."""

    def __init__(self, groups: Sequence[GroupSpec], players: Iterable[str]) -> None:
        self.groups: dict[str, GroupSpec] = {g.name: g for g in groups}
        self.players = sorted(players)

    def _known(self, name: str) -> GroupSpec:
        if not isinstance(name, str) or name not in self.groups:
            known = ", ".join(sorted(self.groups)) or "none"
            raise MembershipError(f"no group named {name!r} in this world (groups: {known}; formGroup makes a new one)")
        return self.groups[name]

    def join(self, player: str, name: str) -> dict[str, Any]:
        group = self._known(name)
        if player in group.members:
            raise MembershipError(f"{player} is already a member of group {name!r}")
        return self._set(group, (*group.members, player))

    def leave(self, player: str, name: str) -> dict[str, Any]:
        group = self._known(name)
        if player not in group.members:
            raise MembershipError(f"{player} is not a member of group {name!r} (members: {', '.join(group.members) or 'none'})")
        return self._set(group, tuple(m for m in group.members if m != player))

    def form(self, player: str, name: str, share: float, now: float) -> dict[str, Any]:
        if not isinstance(name, str) or not name.strip():
            raise MembershipError("formGroup needs a group name (a non-empty string)")
        if name in self.groups:
            raise MembershipError(f"a group named {name!r} exists already (joinGroup joins it)")
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
            got = f"{share:g}" if isinstance(share, (int, float)) and not isinstance(share, bool) else repr(share)
            raise MembershipError(f"share for formGroup must be a fraction of rewards in [0, 1], got {got}")
        self.groups[name] = GroupSpec(name, (player,), float(share), now, None)
        return {"group": name, "share": float(share), "members": [player]}

    def _set(self, group: GroupSpec, members: tuple[str, ...]) -> dict[str, Any]:
        self.groups[group.name] = dataclasses.replace(group, members=members)
        return {"group": group.name, "members": list(members)}

    def apply(self, event: Event) -> None:
        """Replay a recorded change (it was checked when it was made)."""
        name = event.data.get("group")
        if event.kind == "group_form":
            self.groups[name] = GroupSpec(name, tuple(event.data["members"]), float(event.data["share"]), event.time, None)
        elif event.kind in GROUP_EVENTS and name in self.groups:
            self.groups[name] = dataclasses.replace(self.groups[name], members=tuple(event.data["members"]))

    def standing(self, now: float) -> tuple[GroupSpec, ...]:
        return tuple(g for g in self.groups.values() if g.stands_at(now))


def _episode(events: Sequence[Event]) -> Sequence[Event]:
    """The events of the log's last episode (a live retry starts the episode over in the same log)."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind == "episode_start":
            return events[i:]
    return events


def membership_at(groups: Sequence[GroupSpec], events: Sequence[Event], players: Iterable[str],
                  time: float = math.inf) -> Membership:
    """The groups and their members after the changes recorded up to `time` (all of them by default)."""
    state = Membership(groups, players)
    for e in _episode(events):
        if e.kind in GROUP_EVENTS and e.time <= time:
            state.apply(e)
    return state


def spells(groups: Sequence[GroupSpec], events: Sequence[Event], episode_seconds: float) -> list[Spell]:
    """Every group's standing time cut at the changes of its members, each piece with its members (empty
    pieces left out), in the order of the groups and of time."""
    state = Membership(groups, ())
    cuts: dict[str, list[tuple[float, tuple[str, ...]]]] = {g.name: [] for g in groups}
    for e in _episode(events):
        name = e.data.get("group") if e.kind in GROUP_EVENTS else None
        if name is None or (name not in state.groups and e.kind != "group_form"):
            continue
        if name in state.groups:  # the members until this change
            cuts[name].append((e.time, state.groups[name].members))
        else:
            cuts[name] = []
        state.apply(e)
    out = []
    for name, group in state.groups.items():
        end = episode_seconds if group.end is None else group.end
        start = group.start
        for t, members in [*cuts[name], (end, group.members)]:
            if min(t, end) > start:
                out.append(Spell(name, start, min(t, end), members))
            start = max(start, t)
    return out
