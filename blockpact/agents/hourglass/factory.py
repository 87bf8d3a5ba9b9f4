"""Hourglass agents assembled for a role: scripted stages, or LLM stages with the Voyager action agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from blockpact.agents.hourglass.agent import Emit, HourglassAgent
from blockpact.agents.hourglass.execution import ScriptedExecutor
from blockpact.agents.hourglass.latency import LatencyModel, Thinker
from blockpact.agents.hourglass.mind import Mind
from blockpact.agents.hourglass.settings import hourglass_settings
from blockpact.agents.hourglass.stages import PromptCounter, ScriptedActionPlanner, ScriptedMonitor, ScriptedTaskPlanner
from blockpact.agents.org.roles import Role
from blockpact.agents.org.structures import Organization
from blockpact.agents.pool import MessagePool
from blockpact.worlds.spec import mcdata
from blockpact.worlds.spec.schema import WorldSpec

if TYPE_CHECKING:
    from blockpact.llm.client import LLMClient


def make_agent(
    role: Role,
    org: Organization,
    mode: str,
    pool: MessagePool,
    spec: WorldSpec,
    known_inventories: dict[str, dict[str, int]],
    *,
    llm: LLMClient | None = None,
    emit: Emit | None = None,
    remote: bool = False,
    on_cycle: Callable[[float], None] | None = None,
    latency: LatencyModel | None = None,
    seed: int = 0,
) -> HourglassAgent:
    """`latency`: how long LLM calls and messages take (default hourglass.toml [latency]; a fixed time per
    call: `LatencyModel.fixed`)."""
    data = mcdata.load(spec.mc_version)
    counter = PromptCounter(Thinker(latency or hourglass_settings().latency, role.name, seed, emit))
    mind = Mind(role, mode, known_inventories)
    stages: tuple[Any, Any, Any, Any]
    if llm is None:
        stages = (ScriptedMonitor(counter), ScriptedTaskPlanner(data, counter, spec.description),
                  ScriptedActionPlanner(spec, data, counter), ScriptedExecutor())
    else:
        from blockpact.agents.hourglass.llm_stages import llm_stages

        stages = llm_stages(llm, counter, role, org, spec, data)
    return HourglassAgent(mind, org, pool, *stages, counter, label="scripted" if llm is None else "llm",
                          emit=emit, remote=remote, on_cycle=on_cycle)
