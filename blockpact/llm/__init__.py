"""The LLM layer: one client for every role, any OpenAI-compatible endpoint.

    settings = load_llm_settings()            # llm.toml < --llm-config < env < flags
    if not llm_configured(settings):          # no endpoint: use the scripted agents
        ...
    async with LLMClient(settings, transcript=run_dir / "llm.jsonl") as llm:
        reply = await llm.complete("negotiator", [{"role": "user", "content": "..."}])
        reply.text, reply.usage, reply.cost_usd, reply.cached
    llm.accounting.to_dict()                  # tokens and cost per role and in total
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from blockpact.llm.accounting import Accounting, RoleTotals, Usage
from blockpact.llm.budget import Budget, LLMBudgetSpent
from blockpact.llm.errors import (
    LLMAuthError,
    LLMBadReply,
    LLMConfigError,
    LLMError,
    LLMNotConfigured,
    LLMNotFound,
    LLMRequestRejected,
    LLMUnavailable,
    LLMUnreachable,
)
from blockpact.llm.settings import LLMSettings, RoleSettings, load_llm_settings, llm_configured
from blockpact.llm.transcript import read_transcript

if TYPE_CHECKING:
    from blockpact.llm.client import Completion, LLMClient, Message

# The client pulls in the `openai` package (~0.6 s); importing it on first use keeps
# `blockpact --help` and the commands that never call an LLM quick.
_LAZY = {"Completion", "LLMClient", "Message"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module("blockpact.llm.client"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Accounting",
    "Budget",
    "LLMBudgetSpent",
    "Completion",
    "LLMAuthError",
    "LLMBadReply",
    "LLMClient",
    "LLMConfigError",
    "LLMError",
    "LLMNotConfigured",
    "LLMNotFound",
    "LLMRequestRejected",
    "LLMSettings",
    "LLMUnavailable",
    "LLMUnreachable",
    "Message",
    "RoleSettings",
    "RoleTotals",
    "Usage",
    "llm_configured",
    "load_llm_settings",
    "read_transcript",
]
