"""What `--contract` accepts: `none`, `negotiate`, a contract text, or `@FILE` (the text in a file).

A single word that is neither a condition nor a contract is a typo, not a contract: it is refused
with a suggestion, instead of running a "contract" condition whose whole text is that word.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from blockpact.errors import UserError
from blockpact.judge.contract_reading import read_contract
from blockpact.worlds.spec.schema import WorldSpec

CONTRACT_MODES = ("none", "negotiate")
EXPECTED = ('none, negotiate, the text of a contract (numbered clauses, e.g. "1. Gizmo mines all iron_ore. '
            '2. Glitch mines all diamond_ore.") or @FILE')


def contract_text(value: str, option: str = "--contract") -> str:
    """The text `value` stands for: itself, or the contents of FILE for `@FILE`."""
    if not value.startswith("@"):
        return value
    path = Path(value[1:]).expanduser()
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise UserError(f"{option} {value}: cannot read {path}: {exc.strerror or exc}") from None


def check_contract_value(value: str, players: list[str], world: str | WorldSpec | None) -> None:
    """Refuse a value that is no condition and no contract (a lone word such as a misspelt condition)."""
    text = contract_text(value)
    if not text.strip():
        raise UserError(f"--contract: empty contract text (expected {EXPECTED})")
    words = text.split()
    if len(words) > 1 or any(r.formal for r in read_contract(text, players, world)):
        return
    word = words[0]
    close = difflib.get_close_matches(word.lower(), CONTRACT_MODES, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}?" if close else "did you mean negotiate (the players negotiate a contract) or none?"
    raise UserError(f"--contract {word!r} is neither a condition nor a contract: {hint} Expected {EXPECTED}")
