"""What can go wrong in an LLM call, split by who should handle it.

`LLMError` subclasses are per-call failures an agent can react to (re-prompt, skip a turn, fall
back to a scripted move). `LLMConfigError` subclasses are setup mistakes: they are `UserError`s,
so they stop the command and the CLI prints them without a stack trace.
"""

from __future__ import annotations

from blockpact.errors import UserError


class LLMError(Exception):
    """A single call failed in a way the calling agent may handle."""


class LLMBadReply(LLMError):
    """The endpoint answered, but not with usable text (malformed body, no choices, empty content)."""


class LLMUnavailable(LLMError):
    """Rate limits, server errors or timeouts persisted through every retry."""


class LLMRequestRejected(LLMError):
    """The endpoint refused this particular request (400/422, e.g. the prompt is too long)."""


class LLMConfigError(UserError):
    """The LLM configuration is wrong: fix a file, a flag or an environment variable."""


class LLMNotConfigured(LLMConfigError):
    """No endpoint or model is configured: commands fall back to the scripted agents."""


class LLMUnreachable(LLMConfigError):
    """Nothing answers at the configured base URL."""


class LLMAuthError(LLMConfigError):
    """The endpoint refused the API key (401/403)."""


class LLMNotFound(LLMConfigError):
    """The endpoint answered 404: a wrong model name or base URL."""
