"""An LLM member's part in a meeting's questions of office (agents/meeting_floor.Office): a recall vote on the leader
the formal judge found in breach, and an election of the leader (prompts/member_office.md, member_office_retry.md).

The member is shown why the question is put, how the last play ended and every player's record, and answers in a
strict format: `[recall] yes|no|abstain`, or `[elect] NAME|abstain` naming one of the candidates. A reply out of
format is sent back with the reason, in the repair loop of every role; after the attempts the member abstains and
`Choice.error` with the replies says so, for the meeting to record as the member's failure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from blockpact.agents.action_prompts import render
from blockpact.agents.meeting_floor import Choice, Office
from blockpact.llm.repair import ask_until_usable

VOTES = ("yes", "no", "abstain")
_THINKING = re.compile(r"\[thinking\](.*?)(?=\[(?:recall|elect)\]|\Z)", re.DOTALL | re.IGNORECASE)
_LINE = {"recall": re.compile(r"^\s*\[recall\][ \t]*(\S*)", re.MULTILINE | re.IGNORECASE),
         "election": re.compile(r"^\s*\[elect\][ \t]*(\S*)", re.MULTILINE | re.IGNORECASE)}


class OfficeFormatError(ValueError):
    """A reply to a question of office that cannot be used, with the reason sent back to the member."""


def answer_form(office: Office) -> str:
    if office.kind == "recall":
        return f"[recall] yes, no or abstain (yes removes {office.leader} from office)"
    return f"[elect] the name of one candidate ({', '.join(office.candidates)}), or [elect] abstain"


def answer_lines(office: Office) -> str:
    """The answer as the turn's prompt shows it: the line to write, then the other choices."""
    if office.kind == "recall":
        return f"[recall] VOTE\n(VOTE: yes, no or abstain; yes removes {office.leader} from office)"
    return f"[elect] NAME\n(NAME: one of the candidates, {', '.join(office.candidates)}; or [elect] abstain)"


def parse_office(text: str, office: Office) -> tuple[str, str | None]:
    """(thinking, choice) of a reply: a recall's vote, or an election's candidate (None: abstains)."""
    thinking = m.group(1).strip() if (m := _THINKING.search(text)) else ""
    tag = "recall" if office.kind == "recall" else "elect"
    found = [w.strip(".,;:") for w in _LINE[office.kind].findall(text)]
    if not found or not found[0]:
        raise OfficeFormatError(f"no [{tag}] line: write {answer_form(office)}")
    if len({w.lower() for w in found}) > 1:
        raise OfficeFormatError(f"two different [{tag}] lines ({', '.join(found)}): write one")
    word = found[0]
    if office.kind == "recall":
        if word.lower() not in VOTES:
            raise OfficeFormatError(f"[recall] must be yes, no or abstain, not {word!r}")
        return thinking, word.lower()
    if word.lower() == "abstain":
        return thinking, None
    named = {c.lower(): c for c in office.candidates}
    if word.lower() not in named:
        raise OfficeFormatError(f"{word!r} is not a candidate (the candidates: {', '.join(office.candidates)})")
    return thinking, named[word.lower()]


def records_text(office: Office, players: Sequence[str]) -> str:
    if not office.records:
        return "none yet."
    return "\n".join(f"  {p}: {r.breaches} broken, {r.reward:g} emeralds, led {r.led}"
                     for p in players if (r := office.records.get(p)) is not None)


def office_messages(system: str, office: Office, players: Sequence[str], outcome: str) -> list[dict[str, str]]:
    if office.kind == "recall":
        question, ask = f"a vote to recall the leader, {office.leader}", (
            f"Vote on recalling {office.leader}: a recall passes as a proposal does; if it passes, {office.leader} "
            f"leaves office and the players elect a new leader, an election in which {office.leader} may not stand.")
    else:
        question, ask = "the election of the leader", (
            f"Vote for one candidate ({', '.join(office.candidates)}): the leader elected leads the next term"
            + (" and is the only one who may propose." if office.institution.propose == "leader" else "."))
    user = render("member_office", for_episode=office.for_episode + 1, question=question, outcome=outcome,
                  reason=(office.reason[:1].upper() + office.reason[1:]).rstrip("."),
                  records=records_text(office, players), ask=ask, answer=answer_lines(office))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def ask_office(client: Any, role: str, messages: list[dict[str, str]], office: Office,
                     attempts: int) -> Choice:
    retry = lambda reason: {"role": "user", "content": render("member_office_retry", reason=reason,  # noqa: E731
                                                              answer=answer_form(office))}
    asked = await ask_until_usable(client, role, messages, lambda text: parse_office(text, office), retry, attempts,
                                   errors=(OfficeFormatError,))
    replies, problems = tuple(asked.replies), tuple(asked.problems)
    if asked.value is None:
        error = (f"no reply in the format after {asked.attempts} attempts ({'; '.join(problems)}): counted as an "
                 "abstention")
        return Choice("abstain" if office.kind == "recall" else None, "no reply in the format",
                      replies[-1] if replies else "", asked.attempts, problems, replies, error)
    thinking, choice = asked.value
    return Choice(choice, thinking or "(no reason given)", replies[-1], asked.attempts, problems, replies)
