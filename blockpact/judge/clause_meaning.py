"""What a parsed clause means in its world: items and blocks by slot, chests and regions by name, time
windows in seconds; and the clauses that could never happen or cannot hold, refused with the reason.

- A word in an item slot (deposits, gifts, collecting, taking, transfers) means an item: a crop block's
  word maps to its item ("carrots" -> carrot); a block no player can hold is refused.
- "mines N diamonds" (an item, not a block) counts the diamonds gained by digging (collect).
- With a world: a chest or region it does not name, an item nobody can come to hold, a block it never
  has, or a window outside the episode make the clause free text ("could never happen"), never kept.
"""

from __future__ import annotations

import dataclasses

from blockpact.judge.clauses import (
    Assignment, ChestPayment, Clause, Craft, Deposit, Exclusion, FixedTransfer, ForEach, Give, MineOnly, Penalty,
    PerUnitTransfer, Pool, ProportionalTransfer, Quota, RegionLimit, Return, RewardSplit, Steps, ThresholdTransfer, TotalQuota,
    TurnTaking, WaitFor, Window, Withdraw,
)
from blockpact.judge.contract_lexicon import Lexicon
from blockpact.judge.contract_values import Chest, ClauseError, TimeSpan, WorldPeriod
from blockpact.worlds.spec.schema import Condition

NEVER = "the clause could never happen"
_ACTION_KINDS = (Assignment, Exclusion, RegionLimit, Quota, TotalQuota)


def singular_forms(name: str) -> list[str]:
    forms = [name]
    if name.endswith("ies"):
        forms.append(name[:-3] + "y")
    if name.endswith("es"):
        forms.append(name[:-2])
    if name.endswith("s"):
        forms.append(name[:-1])
    return forms


def as_item(name: str, lex: Lexicon) -> str:
    """`name` as an item: itself, or the item a crop block's word stands for ("carrots" -> carrot)."""
    if name in lex.items:
        item = name
    elif name not in lex.blocks and len(lex.item_candidates(name)) > 1:
        raise ClauseError(f"'{name}' could be {_either(lex.item_candidates(name))}: name the item")
    elif name not in lex.blocks and lex.loose_item(name):
        item = lex.loose_item(name)  # type: ignore[assignment]
    elif name not in lex.blocks and name not in lex.items and lex.loose_block(name):
        raise ClauseError(f"'{name}' here names an item, and this world has no single {name} item players can hold: "
                          f"name it ('raw_{name}', '{name}_ingot')")
    else:
        item = next((f for f in singular_forms(name)[1:] if f in lex.items), None)
        if item is None:
            raise ClauseError(f"'{name}' is a block, not an item a player can hold: name the item it yields")
    if lex.obtainable is not None and item not in lex.obtainable:
        raise ClauseError(f"nobody in this world can come to hold {item} (no block of the world drops it, no chest "
                          f"or inventory holds it, no recipe or furnace makes it): {NEVER}")
    return item


def _either(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1]


def as_block(name: str, lex: Lexicon) -> str:
    if name not in lex.blocks and len(lex.block_candidates(name)) > 1:
        raise ClauseError(f"'{name}' could be {_either(lex.block_candidates(name))}: name the block")
    if name not in lex.blocks and lex.loose_block(name):
        return lex.loose_block(name)  # type: ignore[return-value]
    if lex.world_blocks is not None and name not in lex.world_blocks:
        raise ClauseError(f"this world has no {name} (nor do its rules bring any): {NEVER}")
    return name


GENERIC_CHEST_WORDS = frozenset({"shared", "common", "communal", "team", "main", "central", "storage", "supply",
                                 "group", "joint", "nearby", "our"})


def _mine_only_block(name: str, lex: Lexicon) -> str:
    """A block "mines only" names: a block, the world's one block of a material ("iron"), or the ore of an item ("diamonds")."""
    if lex.world_blocks is None:
        if name in lex.blocks:
            return name
        raise ClauseError(f"'mines only' names blocks, and {name} is not a block")
    for candidate in (name, lex.loose_block(name), f"{name}_ore"):
        if candidate in lex.world_blocks:
            return candidate  # type: ignore[return-value]
    raise ClauseError(f"'mines only' names blocks of this world, and it has no {name} block: {NEVER}")


def _chest(value: object, lex: Lexicon) -> str | None:
    """A chest's name ("" any chest) from what the clause wrote; with a world, one it names."""
    if value is None or isinstance(value, str):
        return value  # type: ignore[return-value]
    assert isinstance(value, Chest)
    name = value.name
    if value.at is not None and lex.world is not None:
        at = dict(lex.chest_positions).get(value.at)
        if at is None:
            raise ClauseError(f"there is no chest at {list(value.at)} in this world (chests: {_chests(lex)})")
        if name and name != at:
            raise ClauseError(f"the chest at {list(value.at)} is {at}, not {name}")
        name = at
    if name in GENERIC_CHEST_WORDS and lex.world is not None and name not in lex.chest_names():
        if len(lex.chest_names()) == 1:
            return lex.chest_names()[0]  # "the shared chest" in a world of one chest
        raise ClauseError(f"'the {name} chest' could be any of this world's chests ({_chests(lex)}): name one")
    if name and lex.world is not None and name not in lex.chest_names():
        raise ClauseError(f"this world has no chest named '{name}' (chests: {_chests(lex)})")
    return name


def _chests(lex: Lexicon) -> str:
    return ", ".join(lex.chest_names()) or "none"


def _window(span: object, clause: Clause, lex: Lexicon) -> Window | None:
    if span is None or isinstance(span, Window):
        return span  # type: ignore[return-value]
    assert isinstance(span, TimeSpan)
    own = getattr(clause, "period", None)
    period = own if isinstance(own, (int, float)) else lex.world_period
    end_of_episode = lex.episode_seconds
    numbers = span.numbers
    if span.kind in ("first_periods", "last_period", "until_last_period") and period is None:
        raise ClauseError("'period' here needs the clause's own period ('every 60 seconds') or a world whose "
                          "rules share one period")
    if span.kind in ("last_period", "last", "until_last_period", "until_last") and end_of_episode is None:
        raise ClauseError("'the last ...' needs the episode's length: read the contract with its world")
    window = {
        "first": lambda: Window(0.0, numbers[0]),
        "first_periods": lambda: Window(0.0, numbers[0] * period),  # type: ignore[operator]
        "after": lambda: Window(numbers[0], None),
        "until": lambda: Window(0.0, numbers[0]),
        "span": lambda: Window(numbers[0], numbers[1]),
        "last_period": lambda: Window(max(end_of_episode - period, 0.0), None),  # type: ignore[operator]
        "last": lambda: Window(max(end_of_episode - numbers[0], 0.0), None),  # type: ignore[operator]
        "until_last_period": lambda: Window(0.0, max(end_of_episode - period, 0.0)),  # type: ignore[operator]
        "until_last": lambda: Window(0.0, max(end_of_episode - numbers[0], 0.0)),  # type: ignore[operator]
    }[span.kind]()
    if window.end is not None and window.end <= window.start:
        raise ClauseError(f"the window ends at {window.end:g} s, not after it starts ({window.start:g} s)")
    if end_of_episode is not None and window.start >= end_of_episode:
        raise ClauseError(f"the window starts at {window.start:g} s, when the episode ({end_of_episode:g} s) is over: {NEVER}")
    return window


def _an_item_here(name: str, lex: Lexicon) -> bool:
    """Whether mining `name` means gaining the item: it is no block, or the world has no such block but
    players can hold the item (red_mushroom, a plant block and an item, in a world of mushroom blocks)."""
    if name not in lex.blocks:
        return True
    return (lex.world_blocks is not None and name not in lex.world_blocks and name in lex.items
            and (lex.obtainable is None or name in lex.obtainable))


def _target(clause: Clause, lex: Lexicon) -> dict[str, object]:
    """The verb and target of an action clause as the world means them."""
    verb, target = clause.verb, clause.target  # type: ignore[union-attr]
    if isinstance(clause, RegionLimit) and verb != "mine" and (target is None or not _an_item_here(target, lex)):
        raise ClauseError("only mining can be limited to a region (the log says where a block was dug, not where an item was had)")
    if target is None:
        return {}
    if verb == "touch":  # "does not touch the gold ore": a block of the map is not mined, anything else not taken
        if lex.world_blocks is None:
            raise ClauseError("'touch' means mining a block or taking an item, which only the world says: read the "
                              "contract with its world, or write 'mine' or 'take'")
        verb = "mine" if target in lex.world_blocks or lex.loose_block(target) is not None else "take"
    if verb == "take" and not getattr(clause, "chest", None) and _only_on_the_map(target, lex):
        verb = "mine"  # "takes at most 5 kelp" in a world with no chest: taken from the world, by digging
    if verb == "mine" and lex.loose_block(target):
        target = lex.loose_block(target)  # "mines iron": the world's iron_ore
    if verb == "mine" and len(lex.block_candidates(target)) > 1:
        as_block(target, lex)  # "mines logs" with oak and birch logs: refused, naming both
    if verb == "mine" and _an_item_here(target, lex):
        verb = "collect"  # "mines 3 diamonds": the diamonds gained by digging
    if verb == "mine":
        return {"verb": verb, "target": as_block(target, lex)}
    if isinstance(clause, RegionLimit):
        raise ClauseError(f"only mining can be limited to a region, and {target} is an item, not a block of this world")
    return {"verb": verb, "target": as_item(target, lex)}


def _only_on_the_map(target: str, lex: Lexicon) -> bool:
    """Whether `target` is a block of a world that has no chest: what is taken of it is taken from the world."""
    return lex.world is not None and not lex.chests and lex.world_blocks is not None and target in lex.world_blocks


def _counted(clause: PerUnitTransfer | ThresholdTransfer, lex: Lexicon) -> dict[str, object]:
    verb, item = clause.verb, clause.item
    if verb == "take" and _only_on_the_map(item, lex):
        verb = "mine"  # "for each pumpkin taken" in a world with no chest: taken from the world, by digging
    if verb == "mine" and lex.loose_block(item):
        item = lex.loose_block(item)  # type: ignore[assignment]
    if verb == "mine" and _an_item_here(item, lex):
        verb = "collect"
    return {"verb": verb, "item": as_block(item, lex) if verb == "mine" else as_item(item, lex)}


def _condition(condition: Condition | None, lex: Lexicon) -> Condition | None:
    if condition is None:
        return None
    if condition.block not in lex.blocks:
        raise ClauseError(f"a condition counts blocks in a region; {condition.block} is not a block")
    return dataclasses.replace(condition, block=as_block(condition.block, lex))


def _resolve_one(clause: Clause, lex: Lexicon) -> Clause:
    updates: dict[str, object] = {}
    if isinstance(clause, Exclusion) and clause.target is None and clause.region is None and not (
            clause.verb == "take" and clause.chest) and not clause.until_signals_from:  # "takes nothing from the
        # pot" names the chest; "does not mine anything until Ann has signalled" holds back every dig
        raise ClauseError("say what is not done: an item or block, or a region ('does not mine in the north patch')")
    if isinstance(clause, _ACTION_KINDS):
        updates.update(_target(clause, lex))
        if (isinstance(clause, Exclusion) and clause.region is not None and updates.get("verb", clause.verb) != "mine"
                and clause.target is not None):
            raise ClauseError("only mining can be limited to a region")
    if isinstance(clause, (PerUnitTransfer, ThresholdTransfer)):
        updates.update(_counted(clause, lex))
    if isinstance(clause, MineOnly):
        updates["blocks"] = tuple(dict.fromkeys(_mine_only_block(b, lex) for b in clause.blocks))
    if isinstance(clause, (Deposit, Withdraw, Return, Give, TurnTaking, ProportionalTransfer, Craft, ChestPayment)):
        updates["item"] = as_item(clause.item, lex)  # type: ignore[union-attr]
    for name in ("chest",):
        if hasattr(clause, name):
            updates[name] = _chest(getattr(clause, name), lex)
    if isinstance(getattr(clause, "period", None), WorldPeriod):
        if lex.world_period is None:
            raise ClauseError("'every period' needs a world whose rules share one period; write 'every 60 seconds'")
        updates["period"] = lex.world_period
    if hasattr(clause, "window"):
        updates["window"] = _window(clause.window, dataclasses.replace(clause, **updates) if updates else clause, lex)  # type: ignore[arg-type]
    if hasattr(clause, "condition"):
        updates["condition"] = _condition(clause.condition, lex)  # type: ignore[union-attr]
    return dataclasses.replace(clause, **updates) if updates else clause  # type: ignore[type-var]


def resolve(clause: Clause, lex: Lexicon) -> Clause:
    """`clause` with every word as the world means it (ClauseError when it means nothing there)."""
    if isinstance(clause, ForEach):
        return ForEach(clause.quantifier, tuple(resolve(p, lex) for p in clause.parts))
    if isinstance(clause, Steps):
        return Steps(tuple(resolve(p, lex) for p in clause.parts), clause.ordered)
    return _resolve_one(clause, lex)


def problem(clause: Clause) -> str | None:
    """Why a clause cannot hold (a player paying himself, ...), else None."""
    for part in clause.parts if isinstance(clause, (ForEach, Steps)) else (clause,):
        if isinstance(part, (ForEach, Steps)):
            found = problem(part)
            if found:
                return found
            continue
        match part:
            case (FixedTransfer(payer, payee) | ProportionalTransfer(payer, payee) | PerUnitTransfer(payer, payee)
                  | ThresholdTransfer(payer, payee) | ChestPayment(payer, payee)) if payer == payee:
                return f"{payer} cannot pay himself"
            case ProportionalTransfer(fraction=fraction) if fraction > 1:
                return f"a share of {fraction:.0%} is more than the whole value"
            case TurnTaking(first, _, then) if first == then:
                return f"{first} cannot take turns with himself"
            case Give(giver, receiver) if giver == receiver:
                return f"{giver} cannot give to himself"
            case WaitFor(player, signaller) if player == signaller:
                return f"{player} cannot wait for his own signal"
            case Penalty(breakers, _, _, payees) if set(breakers) & set(payees):
                return "a player cannot pay a penalty to himself"
            case Pool(players) | RewardSplit(players) if len(set(players)) < 2:
                return "sharing rewards takes at least two players"
    return None
