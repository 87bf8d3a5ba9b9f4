"""Clauses back to controlled-form sentences: each sentence parses back to the same clause (with the same
world), so a contract the scripted negotiator builds from clause objects is read exactly as it meant."""

from __future__ import annotations

from collections.abc import Sequence

from blockpact.judge.clauses import (
    Assignment, ChestPayment, Clause, Craft, Deposit, Exclusion, FailurePayment, FixedTransfer, ForEach, FreeText, Give,
    MineOnly, Penalty, PerUnitTransfer, Pool, ProportionalTransfer, Quota, RegionLimit, Return, RewardSplit, Signal, Steps,
    ThresholdTransfer, TotalQuota, TurnTaking, WaitFor, Window, Withdraw,
)
from blockpact.judge.contract_grammar import render_assignment
from blockpact.worlds.spec.schema import Condition

_VERBS = {"mine": "mines", "collect": "collects", "take": "takes"}
_BASE = {"mine": "mine", "collect": "collect", "take": "take"}
_DONE = {"mine": "mined", "collect": "collected", "take": "taken"}
_BOUNDS = {"at_most": "at most", "at_least": "at least"}
_CMP = {"<=": "at most", ">=": "at least", ">": "more than", "<": "fewer than", "==": "exactly"}


def number(value: float) -> str:
    """A number as a contract writes it: 9, 1.5, 33.3."""
    return f"{value:.10g}"


def _names(players: Sequence[str]) -> str:
    return players[0] if len(players) == 1 else f"{', '.join(players[:-1])} and {players[-1]}"


def _amount(count: int | None) -> str:
    return "all" if count is None else str(count)


def _emeralds(value: float) -> str:
    return f"{number(value)} {'emerald' if value == 1 else 'emeralds'}"


def _chest(name: str | None) -> str:
    """"the cache chest", "the tool chest" (for tool_chest), "the chest"."""
    if not name:
        return "the chest"
    words = name.replace("_", " ")
    return f"the {words}" if words.endswith(" chest") else f"the {words} chest"


def window_words(window: Window | None) -> str:
    if window is None:
        return ""
    if window.end is None:
        return f" after {number(window.start)} seconds"
    if window.start == 0:
        return f" during the first {number(window.end)} seconds"
    return f" from {number(window.start)} to {number(window.end)} seconds"


def condition_words(condition: Condition | None) -> str:
    if condition is None:
        return ""
    return f" while the {condition.region.replace('_', ' ')} holds {_CMP[condition.op]} {condition.count} {condition.block}"


def _where(region: str | None) -> str:
    return f" in the {region.replace('_', ' ')}" if region else ""


def _around(clause: Clause) -> str:
    """Window and condition, as a clause ends with them."""
    return window_words(getattr(clause, "window", None)) + condition_words(getattr(clause, "condition", None))


def _by(by: float | None) -> str:
    return "" if by is None else f" by {number(by)} seconds"


def _waits(clause: Clause) -> list[str] | None:
    """The senders a wait (or several waits of one player) is for, else None."""
    if isinstance(clause, WaitFor):
        return [clause.signaller]
    if isinstance(clause, Steps) and all(isinstance(s, WaitFor) for s in clause.parts):
        return [s.signaller for s in clause.parts]  # type: ignore[union-attr]
    return None


def _quantified(clause: ForEach, world: str | None) -> str | None:
    """The quantifiers written as one sentence ("Ann and Ben each ...", "Nobody but Ann ...", "Whoever takes ..."),
    else None (each player, every other player)."""
    quantifier, first = clause.quantifier, clause.parts[0]
    if quantifier.startswith("nobody but ") and isinstance(first, Exclusion):
        source = "" if first.chest is None else f" from {_chest(first.chest)}"
        return (f"Nobody but {quantifier[len('nobody but '):]} {_VERBS[first.verb]} {first.target}{source}"
                f"{_where(first.region)}{_around(first)}.")
    if quantifier.startswith("whoever takes ") and isinstance(first, Return):
        into = f" to {_chest(first.chest)}" if first.chest else ""
        return f"Whoever takes the {first.item} returns it{into}{_by(first.by)}."
    if " sharing the value of " in quantifier and isinstance(first, ProportionalTransfer):
        group = list(dict.fromkeys(p.payer for p in clause.parts))  # type: ignore[union-attr]
        return f"{_names(group)} share the value of their {first.item} equally."
    if quantifier.startswith("anyone, to ") and isinstance(first, (ThresholdTransfer, PerUnitTransfer)):
        extra = f" for each extra {first.item}" if isinstance(first, PerUnitTransfer) else ""
        amount = first.rate if isinstance(first, PerUnitTransfer) else first.amount
        every = f" every {number(first.period)} seconds" if isinstance(first, PerUnitTransfer) and first.period else ""
        return (f"Any player who {_VERBS[first.verb]} more than {first.over} {first.item}{every} pays {_emeralds(amount)}"
                f"{extra} to {quantifier[len('anyone, to '):]}.")
    if quantifier.startswith("to ") and quantifier.endswith(" each") and isinstance(first, FixedTransfer):
        return f"{first.payer} pays {quantifier[3:-5]} {_emeralds(first.amount)} each."
    senders = [_waits(p) for p in clause.parts]
    if all(senders) and (quantifier == "each player" or quantifier.endswith(" each")):
        names = senders[0]  # every waiter waits for the same senders
        who = "Each player" if quantifier == "each player" else quantifier
        return f"{who} waits for {' and '.join(f'{s}' + chr(39) + 's signal' for s in names)}."
    if quantifier.endswith(" each"):
        return _render(first, world, quantifier)
    return None


def _render(clause: Clause, world: str | None, who: str | None = None, to: str | None = None) -> str:
    """One clause; `who` and `to` replace the subject and the receiving player (for quantifiers)."""
    match clause:
        case Assignment(player, verb, target, region):
            text = render_assignment(Assignment(player, verb, target), world).rstrip(".")
            text = text if who is None else who + text[len(player):]
            return f"{text}{_where(region)}{_around(clause)}."
        case Exclusion(player, verb, target, region, _, _, chest):
            what = f" {target}" if target else (" anything" if chest else "")
            source = "" if chest is None else f" from {_chest(chest)}"
            until = f" until {' and '.join(clause.until_signals_from)} {'have' if len(clause.until_signals_from) > 1 else 'has'} signalled" \
                if clause.until_signals_from else ""
            return f"{who or player} does not {_BASE[verb]}{what}{source}{_where(region)}{_around(clause)}{until}."
        case RegionLimit(player, verb, target, region):
            what = f" {target}" if target else ""
            return f"{who or player} {_VERBS[verb]}{what} only{_where(region)}{_around(clause)}."
        case Quota(player, verb, target, count, bound, period, chest, region):
            source = "" if chest is None else f" from {_chest(chest)}"
            every = f" every {number(period)} seconds" if period else ""
            return f"{who or player} {_VERBS[verb]} {_BOUNDS[bound]} {count} {target}{source}{_where(region)}{every}{_around(clause)}."
        case TotalQuota(players, verb, target, count, bound, period, region):
            every = f" every {number(period)} seconds" if period else ""
            return f"{_names(players)} together {verb} {_BOUNDS[bound]} {count} {target}{_where(region)}{every}{_around(clause)}."
        case MineOnly(player, blocks):
            return f"{who or player} mines only {' and '.join(blocks)}{_around(clause)}."
        case Deposit(player, item, count, chest, by):
            return f"{who or player} deposits {_amount(count)} {item} into {_chest(chest)}{_by(by)}."
        case Withdraw(player, item, count, chest, by):
            return f"{who or player} takes {_amount(count)} {item} from {_chest(chest)}{_by(by)}."
        case Return(player, item, chest, by):
            return f"{who or player} returns the {item} to {_chest(chest)}{_by(by)}."
        case Give(giver, receiver, item, count):
            return f"{who or giver} gives {_amount(count)} {item} to {to or receiver}."
        case Craft(player, item, count, by):
            return f"{who or player} crafts {count} {item}{_by(by)}."
        case WaitFor(player, signaller):
            return f"{player} waits for {signaller}'s signal."
        case Signal(player, receiver, by):
            target = to or receiver
            if by is not None:
                return f"{who or player} signals {target + ' ' if target else ''}by {number(by)} seconds."
            return f"{who or player} signals {target + ' ' if target else ''}when done."
        case TurnTaking(first, item, then, signal, chest):
            after = f"signals {then}" if signal else f"{then} takes it"
            return f"{first} takes the {item} first and returns it to {_chest(chest)}, then {after}."
        case Steps(steps, ordered):
            if all(isinstance(s, WaitFor) for s in steps) and len({s.player for s in steps}) == 1:  # type: ignore[union-attr]
                signals = " and ".join(f"{s.signaller}'s signal" for s in steps)  # type: ignore[union-attr]
                return f"{steps[0].player} waits for {signals}."  # type: ignore[union-attr]
            joint = ", then " if ordered else " and "
            return joint.join(_render(s, world).rstrip(".") for s in steps) + "."
        case FixedTransfer(payer, payee, amount):
            return f"At the end of the scenario {who or payer} transfers {_emeralds(amount)} to {to or payee}."
        case ProportionalTransfer(payer, payee, fraction, item):
            return (
                f"At the end of the scenario {who or payer} transfers {number(fraction * 100)}% of the value of his "
                f"{item} to {to or payee}."
            )
        case PerUnitTransfer(payer, payee, rate, item, verb, over, counted, period):
            beyond = f" over {over}" if over else ""
            every = f" every {number(period)} seconds" if period else ""
            done = f"{counted} {_VERBS[verb]}" if counted else _DONE[verb]
            return (f"At the end of the scenario {who or payer} transfers {_emeralds(rate)} to {to or payee} "
                    f"for each {item} {done}{beyond}{every}.")
        case ChestPayment(payer, payee, amount, chest, item, op, count):
            return (f"If {_chest(chest)} holds {_CMP[op]} {count} {item} at the end, {who or payer} pays "
                    f"{_emeralds(amount)} to {to or payee}.")
        case ThresholdTransfer(payer, payee, amount, verb, item, over):
            return f"If {payer} {_VERBS[verb]} more than {over} {item}, {payer} pays {_emeralds(amount)} to {payee}."
        case Pool(players):
            return f"{_names(players)} share their rewards equally."
        case RewardSplit(players, shares):
            return f"The total reward is split {'/'.join(number(round(s * 100, 8)) for s in shares)} between {_names(players)}."
        case Penalty(breakers, ref, amount, payees):
            broken = f"clause {ref}" if ref is not None else "a clause"
            receiver = _names(payees) if payees else "every other player"
            if breakers:
                return f"If {breakers[0]} breaks {broken}, {breakers[0]} pays {_emeralds(amount)} to {receiver}."
            return f"Whoever breaks {broken} pays {_emeralds(amount)} to {receiver}."
        case ForEach(quantifier, (first, *_)) if _quantified(clause, world) is not None:
            return _quantified(clause, world)  # type: ignore[return-value]
        case ForEach(quantifier, (first, *_)):
            subject = "each player" if "each player" in quantifier else None
            receiver = "every other player" if "every other player" in quantifier else None
            text = _render(first, world, subject, receiver)
            return text[0].upper() + text[1:]
        case FailurePayment(deed, payees, amount):
            player = deed.player  # type: ignore[union-attr]
            paid = (f"pays {_emeralds(amount)} to {payees[0]}" if len(payees) == 1
                    else f"pays {_names(payees)} {_emeralds(amount)} each")
            return f"Unless {_render(deed, world).rstrip('.')}, {player} {paid}."
        case FreeText(text):
            return text
    raise TypeError(f"not a clause: {clause!r}")


def render_clause(clause: Clause, *, world: str | None = None) -> str:
    """The controlled-form sentence for `clause` (parses back to the same clause)."""
    return _render(clause, world)


def render_contract(clauses: Sequence[Clause], *, world: str | None = None) -> str:
    """Numbered controlled-form text, one clause per line."""
    return "\n".join(f"{i}. {render_clause(c, world=world)}" for i, c in enumerate(clauses, 1))
