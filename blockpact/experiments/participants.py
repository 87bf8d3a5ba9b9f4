"""Who plays a run: scripted or LLM agents, on the simulator (the live-server backend is still being built)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blockpact.errors import UserError
from blockpact.experiments.protocol import Participants
from blockpact.experiments.rundir import RunDir

if TYPE_CHECKING:
    from blockpact.agents.llm.settings import LLMSettings


def check_backend(backend: str) -> None:
    if backend != "sim":
        raise UserError(f"--backend {backend} is not available yet: the live-server protocol is still being built "
                        "(use --backend sim)")


def require_llm(settings: LLMSettings) -> None:
    """--agents llm needs an endpoint and a model; say how to configure them."""
    if (problem := settings.problem()) is not None:
        raise UserError(f"--agents llm needs an LLM endpoint: {problem}. Check the configuration with "
                        "`blockpact llm check`, or run the scripted agents (--agents scripted)")


def participants_for(agents: str, backend: str, run_dir: RunDir, llm: LLMSettings | None = None) -> Participants:
    check_backend(backend)
    if agents == "scripted":
        from blockpact.experiments.scripted import scripted_participants

        return scripted_participants()
    if llm is None:
        raise ValueError("LLM agents need LLM settings")
    require_llm(llm)
    from blockpact.experiments.llm_players import llm_participants  # imports `openai`: only for LLM runs

    return llm_participants(llm, run_dir)
