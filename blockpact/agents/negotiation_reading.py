"""Every proposal is read before it stands: the proposer is shown, clause by clause, what the formal judge
reads and why not, and may revise within its turn (at most `revisions` times, each recorded); the
reading of the proposal that stands is what the other players see beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockpact.agents.negotiation_format import FormatError, ParsedReply, parse_reply
from blockpact.judge.contract_reading import ClauseReading, read_contract
from blockpact.llm.repair import ask_until_usable
from blockpact.prompt_files import prompt_template
from blockpact.worlds.spec.schema import WorldSpec

PROMPTS = Path(__file__).parent / "prompts"
PROPOSE_AGAIN = "reply with a contract: your revised proposal, or the same one again"


# What the judge reads into a formal clause kind that its words may not say.
KIND_NOTES = {
    "waiting for a signal": "the player does nothing at all before that signal; to hold back only some steps, "
                            "write them after the wait in one clause: 'X waits for Y's signal, then takes ...'",
}


def reading_lines(readings: Sequence[ClauseReading]) -> list[str]:
    """One line per clause: formal with its kind (and what the judge reads into it, where the words may not say
    it), or free text with the reason."""
    out = []
    for r in readings:
        if r.formal:
            note = f"; {KIND_NOTES[r.kind]}" if r.kind in KIND_NOTES else ""
            out.append(f"{r.number}. formal ({r.kind}{note}): {r.text}")
        else:
            out.append(f"{r.number}. free text, not enforced ({r.reason or 'not in the controlled form'}): {r.text}")
    return out


def read_proposal(proposal: str, spec: WorldSpec) -> list[str]:
    return reading_lines(read_contract(proposal, sorted(spec.players), spec))


@dataclass
class Revised:
    """The proposal that stands after the reading, and every revision asked for on the way."""

    parsed: ParsedReply
    raw: str
    reading: list[str]
    revisions: list[dict[str, Any]] = field(default_factory=list)  # {proposal, reading, raw} of each earlier version


async def revise_until_formal(client: Any, role: str, messages: list[dict[str, Any]], first: ParsedReply, raw: str,
                              spec: WorldSpec, revisions: int, attempts: int,
                              retry: Callable[[str], dict[str, Any]]) -> Revised:
    """Show the proposer the reading of `first` while some clause is free text and revisions remain; a revised
    reply replaces it (a reply that is no usable proposal keeps the last one)."""
    assert first.proposal is not None
    current = Revised(first, raw, read_proposal(first.proposal, spec))
    conversation = list(messages)
    template = prompt_template(PROMPTS, "negotiator_reading")
    for done in range(revisions):
        loose = [line for line in current.reading if not line.split(" ", 1)[1].startswith("formal")]
        if not loose:
            break
        left = revisions - done - 1
        conversation += [
            {"role": "assistant", "content": current.raw},
            {"role": "user", "content": template.substitute(
                reading="\n".join(current.reading), loose=len(loose), count=len(current.reading),
                left=(f"You may revise {left} more time(s) after this." if left else "This is your last revision."))},
        ]
        asked = await ask_until_usable(client, role, conversation,
                                       lambda text: parse_reply(text, can_accept=False, refusal=PROPOSE_AGAIN),
                                       retry, attempts, errors=(FormatError,))
        if asked.value is None or asked.value.proposal is None:
            current.revisions.append({"proposal": None, "reading": [], "raw": asked.replies[-1] if asked.replies else "",
                                      "error": "; ".join(asked.problems) or "no usable reply"})
            break
        current.revisions.append({"proposal": current.parsed.proposal, "reading": current.reading, "raw": current.raw})
        current = Revised(asked.value, asked.replies[-1], read_proposal(asked.value.proposal, spec), current.revisions)
    return current
