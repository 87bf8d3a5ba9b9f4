"""`[[groups]]` in a scenario file: reward-sharing groups (AdaSociety) declared for one study of a world,
without editing the world file.

```toml
[[groups]]
name = "miners"           # a world group of the same name is replaced; a new name is added
members = ["Gizmo", "Glitch"]
share = 0.5               # fraction of each member's reward pooled and split equally, in [0, 1]
from = 0                  # seconds; default 0
until = 60                # seconds; default the episode's end
shared_observation = false
```

The file is checked in two steps, each error naming the scenario file and line: the shape when the
file is read (no world needed), then the members and times against the world when a run is planned.
The groups in effect are recorded in run_start (`scenario.groups`), so metrics and `resume` read the
world as the run played it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from blockpact.worlds.spec.schema import GroupSpec, WorldSpec

GROUP_KEYS = ("name", "members", "share", "from", "until", "shared_observation")
Fail = Callable[[str, str], Exception]


def _number(value: Any, key: str, fail: Fail, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise fail(key, f"got {value!r} (expected {what})")
    return float(value)


def parse_groups(raw: Any, fail: Fail) -> tuple[GroupSpec, ...] | None:
    """The shape of a scenario's [[groups]] (None: the file declares none, the world's stand)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(g, Mapping) for g in raw):
        raise fail("groups", "expected an array of tables [[groups]]")
    out: list[GroupSpec] = []
    for i, entry in enumerate(raw):
        key = f"groups[{i}]"
        for k in entry:
            if k not in GROUP_KEYS:
                raise fail(f"{key}.{k}", f"unknown key (expected {', '.join(GROUP_KEYS)})")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise fail(f"{key}.name", "missing or empty (a scenario group needs a name: a world group of the same "
                                      "name is replaced by it)")
        members = entry.get("members")
        if not isinstance(members, list) or len(set(members)) < 2 or not all(isinstance(m, str) for m in members):
            raise fail(f"{key}.members", f"got {members!r} (expected a list of at least two player slots)")
        share = _number(entry.get("share", 1.0), f"{key}.share", fail, "a fraction of rewards in [0, 1]")
        if share > 1:
            raise fail(f"{key}.share", f"got {share:g} (expected a fraction of rewards in [0, 1])")
        start = _number(entry.get("from", 0.0), f"{key}.from", fail, "a time in seconds >= 0")
        end = _number(entry["until"], f"{key}.until", fail, "a time in seconds >= 0") if "until" in entry else None
        if end is not None and end <= start:
            raise fail(f"{key}.until", f"{end:g} is not after from = {start:g} (expected a later time)")
        shared = entry.get("shared_observation", False)
        if not isinstance(shared, bool):
            raise fail(f"{key}.shared_observation", f"got {shared!r} (expected true or false)")
        out.append(GroupSpec(name, tuple(dict.fromkeys(members)), share, start, end, shared))
    names = [g.name for g in out]
    if len(set(names)) != len(names):
        raise fail("groups", f"two groups share a name ({', '.join(names)})")
    return tuple(out)


def with_groups(spec: WorldSpec, groups: Sequence[GroupSpec] | None, fail: Fail) -> WorldSpec:
    """The world with the scenario's groups: members must be the world's players and times within its episode."""
    if groups is None:
        return spec
    for i, group in enumerate(groups):
        key = f"groups[{i}]"
        unknown = [m for m in group.members if m not in spec.players]
        if unknown:
            raise fail(f"{key}.members", f"no player {', '.join(map(repr, unknown))} in world {spec.name!r} "
                                         f"(players: {', '.join(sorted(spec.players))})")
        for field, value in (("from", group.start), ("until", group.end)):
            if value is not None and value > spec.episode_seconds:
                raise fail(f"{key}.{field}", f"{value:g} s is after the end of {spec.name}'s episode "
                                             f"({spec.episode_seconds:g} s)")
    mine = {g.name: g for g in groups}
    kept = [g for g in spec.groups if g.name not in mine]
    return dataclasses.replace(spec, groups=(*kept, *groups))


def groups_record(groups: Sequence[GroupSpec]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(g) for g in groups]


def groups_from_record(record: Sequence[Mapping[str, Any]]) -> tuple[GroupSpec, ...]:
    return tuple(GroupSpec(**{**g, "members": tuple(g["members"])}) for g in record)
