"""The action agent: writes the program a player runs next (Voyager's Explain / Plan / Code).

`LLMActionAgent` asks the "action" role; a reply without a runnable program is asked again with
the parse error appended to the conversation, and an empty or malformed body is asked again as it
was (`repair.ask_until_usable`, the same loop as every other role's). The scripted players in `blockpact.agents.scripted`
implement the same `ActionAgent` protocol without an LLM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import action_messages, parse_error_message
from blockpact.agents.action_settings import action_settings
from blockpact.agents.code_extraction import CodeExtractionError, extract_program, reply_sections
from blockpact.llm.repair import ask_until_usable
from blockpact.skills.reference import GROUP_PRIMITIVES, primitive_reference
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient
    from blockpact.skills.library import SkillLibrary


@dataclass(frozen=True)
class Proposal:
    explain: str
    plan: str
    code: str  # the program to run: helpers first, the entry function last
    function_name: str
    scripted: bool
    skills: tuple[str, ...] = ()  # sources of the library skills the program may call (loaded by the body)
    replies: tuple[str, ...] = ()  # raw LLM replies that led to it, rejected ones included

    @property
    def label(self) -> str:
        return "scripted" if self.scripted else "llm"


class ActionAgent(Protocol):
    player: str

    async def propose(self, ctx: ActionContext) -> Proposal: ...


class ProposalError(Exception):
    """No runnable program after the configured number of replies."""

    def __init__(self, message: str, replies: Sequence[str]) -> None:
        super().__init__(message)
        self.replies = tuple(replies)


class LLMActionAgent:
    """Voyager's action agent on any OpenAI-compatible endpoint (role "action")."""

    def __init__(
        self,
        client: LLMClient,
        player: str,
        spec: WorldSpec,
        library: SkillLibrary | None = None,
        *,
        extraction_attempts: int | None = None,
        role: str = "action",
    ) -> None:
        if player not in spec.players:
            raise ValueError(f"{player!r} is not a player of world {spec.name!r} ({', '.join(sorted(spec.players))})")
        settings = action_settings().action
        self.client = client
        self.player = player
        self.spec = spec
        self.library = library
        self.role = role
        self.extraction_attempts = extraction_attempts or settings.extraction_attempts
        self.retrieved_skills = settings.retrieved_skills
        self.chat_log_lines = settings.chat_log_lines

    async def propose(self, ctx: ActionContext) -> Proposal:
        """Raises ProposalError (no runnable program: the agent's failure) or the LLM layer's errors
        (the endpoint's failure: no answer, or no usable reply body in any attempt)."""
        skills = self.library.retrieve(f"{ctx.task}\n{ctx.contract or ''}", k=self.retrieved_skills) if self.library else []
        reference = primitive_reference(() if ctx.world.groups else GROUP_PRIMITIVES)  # group calls where groups are
        messages = action_messages(ctx, reference, skills, self.chat_log_lines)
        asked = await ask_until_usable(self.client, self.role, messages, extract_program,
                                       lambda reason: parse_error_message(reason), self.extraction_attempts,
                                       errors=(CodeExtractionError,))
        if asked.value is None:
            raise ProposalError(
                f"no runnable program in {asked.attempts} replies; last problem: {asked.last_problem}",
                asked.replies,
            )
        program, text = asked.value, asked.replies[-1]
        sections = reply_sections(text)
        return Proposal(
            explain=sections["explain"],
            plan=sections["plan"],
            code=program.code,
            function_name=program.function_name,
            scripted=False,
            skills=tuple(s.code for s in skills),
            replies=tuple(asked.replies),
        )
