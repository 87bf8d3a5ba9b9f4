"""The action agent's, the critic's and the skill describer's prompts, rendered from template files.

Templates live in `prompts/` and use `string.Template` `$names` (JavaScript's braces need no
escaping); a missing value is an error, never an empty hole in a prompt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blockpact.agents.chat_digest import condensed_chat
from blockpact.agents.observation import render_observation
from blockpact.prompt_files import prompt_template
from blockpact.bridge.protocols import shown_chat

if TYPE_CHECKING:
    from blockpact.agents.action_context import ActionContext
    from blockpact.bridge.protocols import ProgramResult
    from blockpact.skills.library import Skill

PROMPTS_DIR = Path(__file__).with_name("prompts")


def render(name: str, **values: object) -> str:
    return prompt_template(PROMPTS_DIR, name).substitute({k: str(v) for k, v in values.items()}).strip()


def items_text(items: Mapping[str, Any], empty: str = "empty") -> str:
    """`{"raw_iron": 3}` as `raw_iron: 3`, sorted, for prompts."""
    shown = {k: v for k, v in sorted(items.items()) if v}
    return ", ".join(f"{k}: {v:g}" if isinstance(v, float) else f"{k}: {v}" for k, v in shown.items()) or empty


def skills_text(skills: Sequence[Skill]) -> str:
    if not skills:
        return "None yet."
    return "\n\n".join(f"// {s.name}: {s.description}\n{s.code.strip()}" for s in skills)


def action_messages(ctx: ActionContext, primitives: str, skills: Sequence[Skill], chat_lines: int) -> list[dict[str, str]]:
    """System and user message of one action round."""
    spec = ctx.world
    values = spec.players[ctx.player].values
    others = "\n".join(f"- {p}: {items_text(inv)}" for p, inv in sorted(ctx.others_inventories.items())) or "none known"
    chat = condensed_chat(ctx.chat_log)[-chat_lines:]
    user = render(
        "action_user",
        world_title=spec.title or spec.name,
        scenario=spec.description_for(ctx.player),
        observation=render_observation(ctx.observation, spec),
        player=ctx.player,
        values=items_text(values, empty="nothing") + " (emeralds themselves: 1)",
        task=ctx.task,
        contract=ctx.contract.strip() if ctx.contract else "No contract.",
        inventory=items_text(ctx.inventory),
        others_inventories=others,
        chat_title="Chat log of the last episode (times are that episode's):" if ctx.last_outcome else "Chat log:",
        chat_log="\n".join(chat) if chat else "No messages yet.",
        last_code=ctx.last_code.strip() if ctx.last_code else "None yet.",
        last_error=ctx.last_error or "No error.",
        critic_critique=ctx.critic_critique or "None.",
        judge_critique=ctx.judge_critique or "None.",
        last_outcome=f"\n{ctx.last_outcome.strip()}" if ctx.last_outcome else "No earlier episode.",
        lessons="\n".join(f"- {lesson}" for lesson in ctx.lessons) if ctx.lessons else "None yet.",
    )
    # What differs between players and rounds comes last: a local server reuses the shared opening's
    # computed prefix (rules, primitives, format) for every action call instead of reading it again.
    system = render("action_system", player=ctx.player, primitives=primitives.strip(), skills=skills_text(skills))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_error_message(error: str) -> dict[str, str]:
    return {"role": "user", "content": render("action_parse_error", error=error)}


def skill_messages(task: str, code: str, function_name: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": render("action_skill_system")},
        {"role": "user", "content": render("action_skill_user", task=task, code=code.strip(), function_name=function_name)},
    ]


NOT_JUDGED = "not known yet (the episode is still running)"


def critic_messages(task: str, result: ProgramResult, contract: str | None = None,
                    outcome: str | None = None) -> list[dict[str, str]]:
    """The critic judges "met the task while keeping the contract": it is shown the player, its contract and,
    after the episode, how it ended (`outcome`: the player's rewards and each clause's status)."""
    obs = result.observation
    user = render(
        "critic_user",
        player=result.player,
        contract=contract.strip() if contract and contract.strip() else "none (no contract was adopted)",
        task=task,
        chat="\n".join(condensed_chat(shown_chat(result))) if result.chat else "(nothing said)",
        position=obs.get("position", "unknown"),
        held=obs.get("held") or "nothing",
        inventory=items_text(obs.get("inventory", {})),
        nearby_blocks=items_text(obs.get("nearby_blocks", {}), empty="none"),
        chests=json.dumps(obs.get("chests", {}), sort_keys=True) if obs.get("chests") else "none",
        time=f"{obs.get('time', 0.0):g}",
        duration=f"{result.duration:g}",
        outcome=outcome.strip() if outcome and outcome.strip() else NOT_JUDGED,
    )
    return [{"role": "system", "content": render("critic_system")}, {"role": "user", "content": user}]


def critic_json_error_message(error: str) -> dict[str, str]:
    return {"role": "user", "content": render("critic_json_error", error=error)}
