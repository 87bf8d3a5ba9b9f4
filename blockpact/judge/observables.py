"""What a judge can know about an episode, derived from its events alone (so a report can be rebuilt).

Counts follow the simulator's event kinds: `inventory` (item, delta, cause), `block` (old, new,
cause), `chest` (pos, item, delta), `chat`, `signal`, `episode_start` / `episode_end` snapshots,
and `task` events (data {"task": text}) that the experiment emits when it gives a player a task.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from blockpact.worlds.events import Event
from blockpact.worlds.spec.schema import Region, WorldSpec

# Inventory causes that count as collecting: the simulator's "dig:<block>", a live body's pickups.
COLLECT_CAUSES = ("dig:", "pickup")


@dataclass(frozen=True)
class ChestOp:
    """One player moving items in or out of a chest: `delta` > 0 deposits, < 0 withdraws."""

    time: float
    player: str
    chest: str  # "x,y,z", as in snapshots
    item: str
    delta: int


@dataclass
class EpisodeObservables:
    world: str
    players: list[str]
    values: dict[str, dict[str, float]]  # player -> item -> emeralds (emeralds are worth 1)
    inventories: dict[str, dict[str, int]]  # final
    chests: dict[str, dict[str, int]]  # final, "x,y,z" -> contents
    chat: list[tuple[float, str, str]]  # (time, player, message)
    collected: dict[str, dict[str, int]]  # per player: item -> count gained from digging/pickup
    mined: dict[str, dict[str, int]]  # per player: block -> count dug
    tasks: dict[str, str]
    chest_ops: list[ChestOp] = field(default_factory=list)
    signals: list[tuple[float, str, str]] = field(default_factory=list)  # (time, sender, task)
    gains: list[tuple[float, str, str, int]] = field(default_factory=list)  # (time, player, item, n) collected
    digs: list[tuple[float, str, str]] = field(default_factory=list)  # (time, player, block) dug
    crafted: dict[str, dict[str, int]] = field(default_factory=dict)  # per player: item -> count crafted
    acts: list[tuple[float, str, str]] = field(default_factory=list)  # (time, player, what): dig, chest, craft, place
    chest_names: dict[str, str] = field(default_factory=dict)  # "x,y,z" -> the chest's name in the world file
    chest_owners: dict[str, str] = field(default_factory=dict)  # "x,y,z" -> a player or "shared"
    group_sharing: dict[str, float] = field(default_factory=dict)  # what the world's groups move (judge.groups)
    dig_cells: list[tuple[float, str, str, tuple[int, int, int]]] = field(default_factory=list)  # (time, player, block, cell)
    block_changes: list[tuple[float, tuple[int, int, int], str, str]] = field(default_factory=list)  # (time, cell, old, new), any cause
    craft_events: list[tuple[float, str, str, int]] = field(default_factory=list)  # (time, player, item, n) crafted
    start_blocks: dict[tuple[int, int, int], str] = field(default_factory=dict)  # the world's cells at the start
    regions: dict[str, Region] = field(default_factory=dict)  # the world's named regions
    start_time: float = 0.0
    end_time: float = 0.0
    finished: bool = False  # the log holds the episode_end snapshot
    description: str = ""  # the world's description, as the players read it
    held: dict[str, set[str]] = field(default_factory=dict)  # per player: every item it held at some time
    harvest_tools: dict[str, frozenset[str]] = field(default_factory=dict)  # block -> tools that harvest it (empty: any)

    def value(self, player: str, item: str) -> float:
        return 1.0 if item == "emerald" else float(self.values.get(player, {}).get(item, 0.0))

    def inventory_value(self, player: str) -> float:
        """Emeralds the player's final inventory is worth to the player, plus its share of the chests a
        world gives an owner (the reward before transfers)."""
        held = sum(self.value(player, item) * n for item, n in self.inventories.get(player, {}).items())
        for chest, owner in self.chest_owners.items():
            share = 1.0 / len(self.players) if owner == "shared" else float(owner == player)
            if share:
                held += share * sum(self.value(player, item) * n for item, n in self.chests.get(chest, {}).items())
        return held


def _harvest_tools(spec: WorldSpec) -> dict[str, frozenset[str]]:
    """The tools that harvest each block the world starts with (the world's own rules, else minecraft-data's)."""
    from blockpact.worlds.spec import mcdata

    blocks = set(spec.blocks.values())
    data = mcdata.load(spec.mc_version) if blocks - set(spec.harvest) else None
    return {b: spec.harvest[b] if b in spec.harvest else data.blocks[b].harvest_tools if data and b in data.blocks
            else frozenset() for b in sorted(blocks)}


def _episode(events: Sequence[Event]) -> Sequence[Event]:
    """The events of the last episode in the log (a run log may hold several)."""
    starts = [i for i, e in enumerate(events) if e.kind == "episode_start"]
    if not starts:
        raise ValueError("the event log has no episode_start event")
    return events[starts[-1] :]


def observables_from_events(spec: WorldSpec, events: Sequence[Event]) -> EpisodeObservables:
    episode = _episode(events)
    start = episode[0].data
    players = sorted(spec.players)
    inventories = {p: Counter(start.get("inventories", {}).get(p, {})) for p in players}
    chests = {pos: Counter(items) for pos, items in start.get("chests", {}).items()}
    collected: dict[str, Counter[str]] = {p: Counter() for p in players}
    mined: dict[str, Counter[str]] = {p: Counter() for p in players}
    obs = EpisodeObservables(
        world=spec.name,
        players=players,
        values={p: dict(spec.players[p].values) for p in players},
        inventories={},
        chests={},
        chat=[],
        collected={},
        mined={},
        tasks={},
        description=spec.description.strip(),
        chest_names={",".join(str(c) for c in pos): chest.name for pos, chest in spec.chests.items()},
        chest_owners={",".join(str(c) for c in pos): chest.owner for pos, chest in spec.chests.items() if chest.owner},
        start_time=episode[0].time,
        start_blocks=spec.blocks,
        regions=spec.regions,
        held={p: {i for i, n in inventories[p].items() if n} for p in players},
        harvest_tools=_harvest_tools(spec),
    )
    crafted: dict[str, Counter[str]] = {p: Counter() for p in players}
    final = None
    for e in episode:
        obs.end_time = max(obs.end_time, e.time)
        if e.kind == "inventory" and e.agent in inventories:
            inventories[e.agent][e.data["item"]] = e.data["count"]
            if e.data["count"] > 0:
                obs.held[e.agent].add(e.data["item"])
            cause = str(e.data.get("cause", ""))
            if e.data["delta"] > 0 and cause.startswith(COLLECT_CAUSES):
                collected[e.agent][e.data["item"]] += e.data["delta"]
                obs.gains.append((e.time, e.agent, e.data["item"], int(e.data["delta"])))
            elif e.data["delta"] > 0 and cause in ("craft", "smelt"):  # made at a crafting table or in a furnace
                crafted[e.agent][e.data["item"]] += e.data["delta"]
                obs.craft_events.append((e.time, e.agent, e.data["item"], int(e.data["delta"])))
                obs.acts.append((e.time, e.agent, "craft"))
        elif e.kind == "block" and e.agent in mined and e.data.get("cause") in ("dig", "place"):
            cell = tuple(e.data["pos"]) if "pos" in e.data else None
            if e.data["cause"] == "dig":
                mined[e.agent][e.data["old"]] += 1
                obs.digs.append((e.time, e.agent, e.data["old"]))
                if cell is not None:
                    obs.dig_cells.append((e.time, e.agent, e.data["old"], cell))  # type: ignore[arg-type]
            if cell is not None:
                obs.block_changes.append((e.time, cell, str(e.data.get("old")), str(e.data.get("new"))))  # type: ignore[arg-type]
            obs.acts.append((e.time, e.agent, e.data["cause"]))
        elif e.kind == "block" and "pos" in e.data:  # the world's rules (regrowth, spawning) and other causes
            obs.block_changes.append((e.time, tuple(e.data["pos"]), str(e.data.get("old")), str(e.data.get("new"))))  # type: ignore[arg-type]
        elif e.kind == "chest" and e.agent is not None:
            chest = ",".join(str(c) for c in e.data["pos"])
            chests.setdefault(chest, Counter())[e.data["item"]] = e.data["count"]
            obs.chest_ops.append(ChestOp(e.time, e.agent, chest, e.data["item"], int(e.data["delta"])))
            obs.acts.append((e.time, e.agent, "chest"))
        elif e.kind == "chat" and e.agent is not None:
            obs.chat.append((e.time, e.agent, str(e.data.get("message", ""))))
        elif e.kind == "signal" and e.agent is not None:
            obs.signals.append((e.time, e.agent, str(e.data.get("task", ""))))
        elif e.kind == "task" and e.agent is not None:
            obs.tasks[e.agent] = str(e.data.get("task", ""))
        elif e.kind == "episode_end":
            final = e.data
    if final is not None:  # the snapshot is authoritative (it also covers changes no event describes)
        obs.finished = True
        inventories = {p: Counter(final["inventories"].get(p, {})) for p in players}
        chests = {pos: Counter(items) for pos, items in final.get("chests", {}).items()}
    obs.inventories = {p: {i: n for i, n in sorted(inv.items()) if n} for p, inv in inventories.items()}
    obs.chests = {pos: {i: n for i, n in sorted(c.items()) if n} for pos, c in sorted(chests.items())}
    obs.collected = {p: dict(sorted(c.items())) for p, c in collected.items()}
    obs.mined = {p: dict(sorted(c.items())) for p, c in mined.items()}
    obs.crafted = {p: dict(sorted(c.items())) for p, c in crafted.items()}
    if spec.groups or any(e.kind == "group_form" for e in events):  # a group formed during play shares too
        from blockpact.judge.groups import group_sharing

        obs.group_sharing = group_sharing(spec, events)
    return obs
