"""Who plays a run and where: scripted or LLM agents, on the simulator or on a live Minecraft server (the
embedded one, started for the run and stopped after it, or an external one given as HOST:PORT)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from blockpact.errors import UserError
from blockpact.experiments.protocol import Participants
from blockpact.experiments.rundir import RunDir

if TYPE_CHECKING:
    from blockpact.llm.budget import Budget
    from blockpact.llm.settings import LLMSettings
    from blockpact.bridge.live.backend import LiveWorlds
    from blockpact.experiments.episode_engine import WorldFactory

BACKENDS = ("sim", "minecraft")


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


@dataclass(frozen=True)
class LiveOptions:
    """Where live episodes play: `server` "HOST:PORT" of an external server, None for the embedded one."""

    server: str | None = None
    version: str | None = None
    auth: str = "offline"
    viewer: bool = False
    lockstep: bool = False  # shared actions in the simulator's order (see lockstep_choice)

    def check(self, backend: str) -> None:
        """Before anything is written: options that need a live server, and the server's address."""
        if backend != "minecraft" and (self.server or self.viewer or self.auth != "offline" or self.lockstep):
            raise UserError("--server, --auth, --viewer and --lockstep apply to --backend minecraft only")
        if self.lockstep and self.server is not None:
            raise UserError("lockstep (--lockstep, or live.toml [episode] lockstep) needs the embedded server (leave out "
                            "--server, or add --no-lockstep): on another server the bots cannot wait for each other "
                            "between walking to a block and digging it")
        if self.server is not None:
            server_address(self.server)
        if self.server is None and self.auth != "offline":
            raise UserError("--auth microsoft needs --server: the embedded server runs in offline mode")


def lockstep_choice(flag: bool | None, backend: str) -> bool:
    """Whether a run's live episodes play in lockstep: --lockstep / --no-lockstep, else live.toml's [episode] lockstep
    for a live run. Decided once, before the run, so that the run records what its episodes do (and resume keeps it)."""
    if flag is not None:
        return flag
    if backend != "minecraft":
        return False
    from blockpact.bridge.live.settings import live_settings

    return live_settings().episode.lockstep


def server_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--server must be HOST:PORT, e.g. 127.0.0.1:25565 (got {text!r})")
    return host, int(port)


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


def require_llm(settings: LLMSettings) -> None:
    """--agents llm needs an endpoint and a model; say how to configure them."""
    if (problem := settings.problem()) is not None:
        raise UserError(f"--agents llm needs an LLM endpoint: {problem}. Check the configuration with "
                        "`blockpact llm check`, or run the scripted agents (--agents scripted)")


def participants_for(agents: str, backend: str, run_dir: RunDir, llm: LLMSettings | None = None,
                     worlds: WorldFactory | None = None, budget: Budget | None = None) -> Participants:
    """`worlds` makes each episode's world: a `LiveWorlds` for --backend minecraft (required then), SimWorld else."""
    check_backend(backend)
    if backend == "minecraft" and worlds is None:
        raise ValueError("the minecraft backend needs its LiveWorlds")
    from blockpact.bridge.sim import SimWorld

    factory = worlds or SimWorld
    if agents == "scripted":
        from blockpact.experiments.scripted import scripted_participants

        return scripted_participants(factory)
    if llm is None:
        raise ValueError("LLM agents need LLM settings")
    require_llm(llm)
    from blockpact.experiments.llm_players import llm_participants  # imports `openai`: only for LLM runs

    return llm_participants(llm, run_dir, factory, budget)
