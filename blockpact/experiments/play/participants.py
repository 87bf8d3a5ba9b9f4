"""Who plays a run and where: scripted or LLM agents, on the simulator or on a live Minecraft server (the
embedded one, started for the run and stopped after it, or an external one given as HOST:PORT)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from blockpact.experiments.play.protocol import Participants
from blockpact.experiments.plan.live_options import LiveOptions, check_backend, server_address
from blockpact.experiments.plan.plan_checks import require_llm
from blockpact.experiments.log.rundir import RunDir

if TYPE_CHECKING:
    from blockpact.llm.budget import Budget
    from blockpact.llm.settings import LLMSettings
    from blockpact.bridge.live.backend import LiveWorlds
    from blockpact.experiments.play.episode_engine import WorldFactory


def announce(line: str) -> None:
    """Where the live server and the viewer pages are: on stderr, beside the progress display."""
    print(f"blockpact: {line}", file=sys.stderr, flush=True)


def live_worlds(options: LiveOptions) -> LiveWorlds:
    """The live backend of a run; its embedded server (if any) starts with the first episode."""
    from blockpact.bridge.live.backend import LiveWorlds
    from blockpact.bridge.live.mineflayer_body import ServerAddress

    address = None
    if options.server is not None:
        host, port = server_address(options.server)
        address = ServerAddress(host, port, options.version, options.auth)
    return LiveWorlds(address=address, version=options.version, viewer=options.viewer, announce=announce,
                      lockstep=options.lockstep)


def participants_for(agents: str, backend: str, run_dir: RunDir, llm: LLMSettings | None = None,
                     worlds: WorldFactory | None = None, budget: Budget | None = None) -> Participants:
    """`worlds` makes each episode's world: a `LiveWorlds` for --backend minecraft (required then), SimWorld else."""
    check_backend(backend)
    if backend == "minecraft" and worlds is None:
        raise ValueError("the minecraft backend needs its LiveWorlds")
    from blockpact.bridge.sim import SimWorld

    factory = worlds or SimWorld
    if agents == "scripted":
        from blockpact.experiments.play.scripted import scripted_participants

        return scripted_participants(factory)
    if llm is None:
        raise ValueError("LLM agents need LLM settings")
    require_llm(llm)
    from blockpact.experiments.play.llm_players import llm_participants  # imports `openai`: only for LLM runs

    return llm_participants(llm, run_dir, factory, budget)
