"""`blockpact llm check`, and the --llm-* options every command that calls an LLM shares."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from blockpact.llm.errors import LLMError, LLMNotConfigured, LLMNotFound, LLMRequestRejected
from blockpact.llm.settings import LLMSettings, load_llm_settings
from blockpact.errors import UserError

CHECK_PROMPT = "Reply with the single word OK."


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that select and configure the LLM endpoint (the key only by variable name,
    so it never lands in shell history or process listings)."""
    group = parser.add_argument_group("LLM endpoint")
    group.add_argument("--llm-config", metavar="FILE", help="TOML file overriding llm.toml (or $BLOCKPACT_LLM_CONFIG)")
    group.add_argument("--llm-base-url", metavar="URL", help="OpenAI-compatible base URL (or $OPENAI_BASE_URL)")
    group.add_argument("--llm-model", metavar="NAME", help="model for roles that name none (or $OPENAI_MODEL)")
    group.add_argument("--llm-api-key-env", metavar="VAR", help="environment variable holding the API key")
    group.add_argument("--llm-cache-dir", metavar="DIR", help="response cache directory")
    group.add_argument("--no-llm-cache", action="store_true", help="neither read nor write the response cache")
    agents = parser.add_argument_group("agents")
    agents.add_argument("--agent-settings", metavar="FILE", type=Path,
                        help="TOML file overriding the agents' settings: [action] keys of action.toml, [negotiation] "
                             "keys of negotiation.toml, e.g. fewer attempts for a small model (or $BLOCKPACT_AGENT_SETTINGS)")


def use_agent_settings(path: Path) -> None:
    """Make `path` the agents' settings override for this process and the processes it starts, after checking it:
    every mistake is reported now (file:line), not in a worker halfway through a run."""
    from blockpact.agents.action_settings import load_action_settings
    from blockpact.agents.agent_settings import ENV, checked_tables
    from blockpact.agents.negotiation import load_negotiation_settings

    path = checked_tables(path)
    load_action_settings(path)
    load_negotiation_settings(override=path)
    os.environ[ENV] = str(path)


@contextmanager
def agent_settings_from(args: argparse.Namespace) -> Iterator[None]:
    """--agent-settings in force while the command runs (and in the workers it starts), then as before."""
    from blockpact.agents.agent_settings import ENV

    path = getattr(args, "agent_settings", None)
    if path is None:
        yield
        return
    before = os.environ.get(ENV)
    use_agent_settings(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def settings_from_args(args: argparse.Namespace) -> LLMSettings:
    return load_llm_settings(
        args.llm_config,
        base_url=args.llm_base_url,
        model=args.llm_model,
        api_key_env=args.llm_api_key_env,
        cache_dir=args.llm_cache_dir,
        no_cache=args.no_llm_cache,
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    llm = subparsers.add_parser("llm", help="LLM endpoint tools", description="LLM endpoint tools")
    llm_sub = llm.add_subparsers(dest="llm_command", metavar="COMMAND", required=True)
    check = llm_sub.add_parser(
        "check",
        help="tell whether the configured LLM endpoint answers, and with which model",
        description="List the endpoint's models (if it offers /models) and send one tiny completion.",
    )
    add_llm_arguments(check)
    check.add_argument("--retries", type=int, default=0, help="retries on transient failures (default: 0)")
    check.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="give up on a call after this long (default: the configured timeout_seconds)")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if args.retries < 0 or (args.timeout is not None and args.timeout <= 0):
        raise UserError("--retries must be at least 0 and --timeout positive")
    retry = dataclasses.replace(settings.retry, max_retries=args.retries, timeout_retries=min(args.retries, 1))
    settings = dataclasses.replace(settings, retry=retry)
    if args.timeout is not None:
        settings = settings.with_timeout(args.timeout)
    if (problem := settings.endpoint_problem()) is not None:
        raise LLMNotConfigured(f"{problem}. Runs use the scripted baseline agents unless told otherwise; "
                               "those asked for LLM agents (--agents llm) stop with this error, never falling back")
    print(f"config:   {' < '.join(settings.sources)}")
    print(f"endpoint: {settings.base_url} (timeout {settings.timeout_for('default'):g} s)")
    key = "set" if settings.api_key else "not set (fine for local servers)"
    print(f"API key:  ${settings.api_key_env} {key}")
    return asyncio.run(_check(settings))


async def _check(settings: LLMSettings) -> int:
    from blockpact.llm.client import LLMClient  # imports `openai`: only when checking

    async with LLMClient(settings, use_cache=False) as client:
        try:
            models = await client.list_models()
            print(f"models:   {', '.join(models) if models else '(none listed)'}")
        except (LLMNotFound, LLMRequestRejected):
            models = []
            print("models:   the endpoint does not list models")
        if (problem := settings.model_problem("default")) is not None:
            hint = f" (offered: {', '.join(models)})" if models else ""
            raise LLMNotConfigured(f"{problem}{hint}")
        if models and settings.model not in models:
            print(f"warning:  model '{settings.model}' is not among the listed models")
        try:
            reply = await client.complete("default", [{"role": "user", "content": CHECK_PROMPT}])
        except LLMError as exc:
            raise UserError(f"the endpoint did not answer usefully: {exc}") from None
    print(
        f"reply:    {reply.text.strip()[:80]!r} from {reply.model} in {reply.latency_s:.2f} s "
        f"({reply.usage.prompt_tokens} prompt + {reply.usage.completion_tokens} completion tokens"
        f"{', estimated: the server reported none' if reply.usage.estimated else ''})"
        + (", streamed" if reply.streamed else "") + (", system message merged (no system role)" if reply.merged_system else "")
    )
    print("OK: the LLM endpoint answers")
    return 0
