"""A payment owed when a deed is not done ("If Ada fails to craft an iron pickaxe by 60 seconds, she pays Ben 10
emeralds", "Unless Ben deposits 2 sticks into the workshop chest, Ben pays Ada 5 emeralds"): the sentence is cut into
the deed and the payment, each read as a clause of its own, and joined into a `FailurePayment`.

The deed is not promised (only its failure costs), so it must be something its check can find undone: a deposit,
withdrawal, return, craft, signal or at-least quota of the one player who pays.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from blockpact.judge.clauses import (
    Clause, Craft, Deposit, FailurePayment, FixedTransfer, ForEach, FreeText, Quota, Return, Signal, Steps, Withdraw,
    parts,
)

_FAILS = r"(?:fails|fail|does\s+not|doesn['’]t|do\s+not|don['’]t|has\s+not|hasn['’]t|have\s+not|haven['’]t)\s+(?:to\s+)?"
_PAYS = r"(?:(?:must|shall|will|has\s+to|agrees\s+to)\s+)?(?:pays?|owes?|transfers?|gives?|compensates?)\b"
_FORMS = (
    # "If Ada fails to craft ..., (then) she pays Ben 10 emeralds"
    re.compile(rf"^\s*(?:if|should)\s+(?P<who>[A-Z][\w]*)\s+{_FAILS}(?P<deed>.+?)\s*,\s*(?:then\s+)?"
               rf"(?P<payer>[A-Z][\w]*|he|she|they)\s+(?P<pay>{_PAYS}.*?)\s*\.?\s*$", re.I),
    # "Unless Ada crafts ... by 60 seconds, Ada pays Ben 10 emeralds"
    re.compile(rf"^\s*unless\s+(?P<who>[A-Z][\w]*)\s+(?P<deed>.+?)\s*,\s*(?:then\s+)?"
               rf"(?P<payer>[A-Z][\w]*|he|she|they)\s+(?P<pay>{_PAYS}.*?)\s*\.?\s*$", re.I),
    # "Ada pays Ben 10 emeralds if she fails to craft ..."
    re.compile(rf"^\s*(?P<who>[A-Z][\w]*)\s+(?P<pay>{_PAYS}.+?)\s+(?:if|should)\s+(?P<payer>[A-Z][\w]*|he|she|they)\s+"
               rf"{_FAILS}(?P<deed>.+?)\s*\.?\s*$", re.I),
)
# "has not crafted the pickaxe": the deed said as it is done
_PARTICIPLES = {"crafted": "craft", "made": "make", "deposited": "deposit", "put": "put", "placed": "place",
                "stored": "store", "taken": "take", "withdrawn": "withdraw", "returned": "return", "signalled": "signal",
                "signaled": "signal", "mined": "mine", "collected": "collect", "smelted": "smelt", "sent": "send"}
_DEEDS = (Deposit, Withdraw, Return, Craft, Signal)


def failure_payment(text: str, read: Callable[[str], Clause]) -> Clause | None:
    """The `FailurePayment` `text` states (or FreeText saying why it cannot be one), else None when it is not of the
    form; `read` parses one clause of the same contract."""
    found = next((m for form in _FORMS if (m := form.match(text))), None)
    if found is None or not found.group("who")[0].isupper():
        return None
    who, payer = found.group("who"), found.group("payer")
    if payer.lower() not in ("he", "she", "they") and payer != who:
        return FreeText(text, f"a payment on {who}'s failure is paid by {who}, not {payer}")
    words = found.group("deed").split()
    words[0] = _PARTICIPLES.get(words[0].lower(), words[0])
    deed, pay = read(f"{who} {' '.join(words)}"), read(f"{who} {found.group('pay')}")
    for what, clause in (("the deed", deed), ("the payment", pay)):
        if not clause.formal:
            return FreeText(text, f"{what} of this payment on failure is not in the controlled form: {clause.why}")
    if isinstance(deed, (Steps, ForEach)) or not _a_deed(deed, who):
        return FreeText(text, f"a payment on failure needs one deed of {who} its check can find undone (a deposit, "
                              f"withdrawal, return, craft, signal or 'at least' quota), not this one ({deed.kind})")
    payments = parts(pay)
    if not all(isinstance(p, FixedTransfer) and p.payer == who for p in payments) or len(
            {p.amount for p in payments}) != 1:  # type: ignore[union-attr]
        return FreeText(text, f"a payment on failure is a fixed sum {who} pays ('{who} pays Ben 10 emeralds'), the "
                              "same to each player paid")
    return FailurePayment(deed, tuple(p.payee for p in payments), payments[0].amount)  # type: ignore[union-attr]


def _a_deed(clause: Clause, player: str) -> bool:
    if isinstance(clause, Quota):
        return clause.bound == "at_least" and clause.player == player
    return isinstance(clause, _DEEDS) and clause.player == player
